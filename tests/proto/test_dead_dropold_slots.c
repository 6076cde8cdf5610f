/* Issue 10, finding 7: the slots a DROP_OLD subscriber holds (queued and taken) return to a
 * still-running publisher's pool once the subscriber is killed with SIGKILL, without anyone calling
 * gc (the pool's free count is polled for up to 5 s; nothing else happens on the topic). */
#include "zt_hostile.h"

#define TOPIC "/dead/dropold"
#define SLOTS 8

struct args {
	int ready_w, go_r;
};

static int sub_main(void *a_)
{
	struct args *a = a_;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_DROP_OLD;
	o.queue_depth = 4;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &o, &s), 0);
	zt_signal(a->ready_w);
	zt_await(a->go_r);
	zcast_msg *held;
	CHECK_EQ(zcast_take(s, &held), 0); /* one held, three queued */
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

int main(void)
{
	zt_setup("deaddrop", 60);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = SLOTS;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(TOPIC, &po, &p), 0);
	int ready[2], go[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(go), 0);
	struct args a = {ready[1], go[0]};
	pid_t sub = zt_fork(sub_main, &a);
	zt_await(ready[0]);
	for (uint64_t i = 1; i <= 6; i++)
		zt_publish(p, i, 64); /* the depth-4 queue keeps the last four */
	zt_signal(go[1]);
	zt_await(ready[0]);
	CHECK_EQ(zt_stat(TOPIC).slots_free, SLOTS - 4);

	kill(sub, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(sub)), SIGKILL);
	int ok = ZT_POLL(zt_stat(TOPIC).slots_free == SLOTS, 5000);
	if (!ok) {
		fprintf(stderr,
			"FAIL: 5 s after the subscriber was killed %llu of %d slots are free\n",
			(unsigned long long)zt_stat(TOPIC).slots_free, SLOTS);
		zt_fail();
	}
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
