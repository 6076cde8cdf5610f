/* Issue 10, finding 7: zcast_pub_matched / zcast_sub_matched stop counting a member killed with
 * SIGKILL without anyone calling gc (polled for up to 5 s). */
#include "zcast/waitset.h"
#include "zt_hostile.h"

#define TOPIC "/dead/matched"

struct args {
	int ready_w;
};

static int peer_main(void *a_)
{
	struct args *a = a_;
	zcast_pub *p = NULL;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_pub_open(TOPIC, NULL, &p), 0);
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0);
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

int main(void)
{
	zt_setup("deadmatch", 60);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 4;
	zcast_pub *p = NULL;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_pub_open(TOPIC, &po, &p), 0);
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0);
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	struct args a = {ready[1]};
	pid_t peer = zt_fork(peer_main, &a);
	zt_await(ready[0]);
	CHECK_EQ(zcast_pub_matched(p), 2);
	CHECK_EQ(zcast_sub_matched(s), 2);

	kill(peer, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(peer)), SIGKILL);
	int ok = ZT_POLL(zcast_pub_matched(p) == 1 && zcast_sub_matched(s) == 1, 5000);
	if (!ok) {
		fprintf(stderr,
			"FAIL: 5 s after the peer was killed: pub_matched %d, sub_matched %d, want "
			"1 and 1\n",
			zcast_pub_matched(p), zcast_sub_matched(s));
		zt_fail();
	}
	zcast_sub_close(s);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
