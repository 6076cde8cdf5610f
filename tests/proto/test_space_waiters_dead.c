/* A publisher killed while it waits for queue room (zcast_publish_wait blocked on a FULL
 * subscriber's full queue) must not leave itself counted in the topic's space_waiters: that count
 * makes every later take and release of the topic pay a FUTEX_WAKE syscall, for good. Once the dead
 * publisher is reclaimed (by the subscriber's death watcher, or a gc), space_waiters is 0 again —
 * while a live publisher waiting beside it stays counted and is still woken by a take. */
#include "zt_hostile.h"

#define TOPIC "/space/dead"

static int publish_wait(zcast_pub *p, int64_t timeout_ns)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	memset(zcast_msg_data(m), 1, 64);
	int r = zcast_publish_wait(p, m, timeout_ns);
	if (r < 0)
		zcast_msg_drop(m);
	return r;
}

/* Once the subscriber is there (go), fills its queue, reports, then waits for room forever (it is
 * killed in that wait). */
static int waiter_main(void *arg)
{
	int *pipes = arg; /* ready[2], go[2] */
	char c;
	if (read(pipes[2], &c, 1) != 1)
		return 2;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 8);
	CHECK_EQ(publish_wait(p, 0), 0); /* the queue (depth 1) is full now */
	zt_signal(pipes[1]);
	publish_wait(p, -1);
	return 1; /* never reached: killed while waiting */
}

static void *live_waiter(void *arg)
{
	return publish_wait(arg, -1) == 0 ? NULL : arg;
}

static uint32_t space_waiters(struct zc_topic_hdr *h)
{
	return atomic_load(&h->space_waiters);
}

int main(void)
{
	zt_setup("spacedead", 60);
	int pipes[4], pipes2[4]; /* ready, go: one set per waiter */
	CHECK_EQ(pipe(pipes), 0);
	CHECK_EQ(pipe(pipes + 2), 0);
	memcpy(pipes2, pipes, sizeof pipes);
	CHECK_EQ(pipe(pipes2 + 2), 0);
	/* Both forked before this process opens anything: a child forked while library threads run
	 * may inherit a held sanitizer allocator lock. */
	pid_t pid = zt_fork(waiter_main, pipes), pid2 = zt_fork(waiter_main, pipes2);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = ZCAST_POLICY_FULL;
	so.queue_depth = 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	zt_signal(pipes[3]);
	zt_await(pipes[0]);
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	ZT_EVENTUALLY(space_waiters(h) == 1 && zt_futex_asleep(pid, pid));
	kill(pid, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(pid)), SIGKILL);
	/* The subscriber's death watcher reclaims the dead publisher; a gc does if it has not. */
	for (int i = 0; i < 500 && space_waiters(h) != 0; i++) {
		zcast_topic_gc(NULL, TOPIC);
		zt_sleep_ms(10);
	}
	CHECK_EQ(space_waiters(h), 0);

	/* A live publisher waiting beside a killed one: the reclaim takes out only the dead one's
	 * count, and a take still wakes the live one. */
	zcast_msg *m;
	while (zcast_take(s, &m) == 0)
		zcast_msg_drop(m);
	pid = pid2;
	zt_signal(pipes2[3]);
	zt_await(pipes2[0]);
	ZT_EVENTUALLY(space_waiters(h) == 1);
	zcast_pub *live = zt_open_pub(TOPIC, 64, 8);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, live_waiter, live), 0);
	ZT_EVENTUALLY(space_waiters(h) == 2);
	kill(pid, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(pid)), SIGKILL);
	for (int i = 0; i < 500 && space_waiters(h) != 1; i++) {
		zcast_topic_gc(NULL, TOPIC);
		zt_sleep_ms(10);
	}
	CHECK_EQ(space_waiters(h), 1);
	CHECK_EQ(zcast_take(s, &m), 0); /* the killed publisher's message: room for the live one */
	zcast_msg_drop(m);
	void *ret;
	CHECK_EQ(pthread_join(th, &ret), 0);
	CHECK(ret == NULL);
	CHECK_EQ(space_waiters(h), 0);
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_drop(m);
	zcast_pub_close(live);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
