/* An infinite zcast_publish_wait is not ended by the topic lock's own timeout. A live publisher holds
 * the topic lock longer than that timeout (2 s; paused under it with ZCAST_PAUSE_AT=lock:held, test
 * builds), as one descheduled on a loaded machine can; another publisher's zcast_publish_wait with
 * timeout -1 must wait for it and publish. Before, it returned ZCAST_ETIMEDOUT ("lock held by
 * member N"): the chaos test saw it at load 20-50. A plain zcast_publish still gives up (it must not
 * wait). */
#include "zt_hostile.h"
#include "zt_pause.h"

#define TOPIC "/lock/held"

static int to_parent[2];

static int holder(void *arg)
{
	(void)arg;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	setenv("ZCAST_PAUSE_AT", "lock:held:3500", 1);
	zt_signal(to_parent[1]);
	zt_publish(p, 1, 32); /* pauses holding the lock */
	unsetenv("ZCAST_PAUSE_AT");
	zcast_pub_close(p);
	return 0;
}

int main(void)
{
	zt_setup("lockheld", 60);
	CHECK_EQ(pipe(to_parent), 0);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	pid_t pid = zt_fork(holder, NULL);
	zt_await(to_parent[0]);
	if (!ZT_POLL(zt_in_pause(pid) && ZC_LOCK_LOW(atomic_load(&h->lock.word)) != 0, 10000)) {
		fprintf(stderr, "FAIL: the other publisher never paused holding the lock\n");
		zt_fail();
	}
	zcast_msg *m = NULL;
	CHECK_EQ(zcast_loan(p, 32, &m), 0);
	int r = zcast_publish_wait(p, m, -1);
	printf("zcast_publish_wait(-1) behind a lock held 3.5 s: %d (%s)\n", r,
	       r ? zcast_last_error() : "published");
	CHECK_EQ(r, 0);
	CHECK_CHILD_OK(pid);
	int got = 0;
	while (zcast_take(s, &m) == 0) {
		got++;
		zcast_msg_drop(m);
	}
	CHECK_EQ(got, 2); /* the holder's message and ours */
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
