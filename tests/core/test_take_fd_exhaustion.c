/* Issue 10, finding 1 (second case): a subscriber out of file descriptors cannot map the pool a
 * queued message lives in. Its take must fail with an error, must not lose the message (once the
 * subscriber has descriptors again the same message, same sequence, is taken) and must not strand
 * the slot: after the subscriber leaves, every slot of the publisher's pool is free. */
#include "zt_fds.h"
#include "zt_hostile.h"

#define TOPIC "/fd/exhaust"
#define SLOTS 4

struct sub_args {
	int ready_w, go_r;
};

static int subscriber_main(void *a_)
{
	struct sub_args *a = a_;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = SLOTS;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &o, &s), 0);
	zt_signal(a->ready_w);
	zt_await(a->go_r); /* one message is queued from a pool this process never mapped */

	static struct zt_no_fds no_fds;
	zt_fds_exhaust(&no_fds);
	zcast_msg *m = NULL;
	int r = zcast_take(s, &m);
	zt_fds_restore(&no_fds);
	printf("take without descriptors: %d (%s)\n", r, zcast_last_error());
	if (r == 0) {
		fprintf(stderr,
			"FAIL: take returned a message without being able to map its pool\n");
		zcast_msg_drop(m);
		return 1;
	}
	CHECK(r < 0);

	r = zcast_take(s, &m);
	if (r != 0) {
		fprintf(stderr,
			"FAIL: the message is lost: take with descriptors again returned %d (%s)\n",
			r, zcast_last_error());
		return 1;
	}
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(m, &info), 0);
	CHECK_EQ(info.sequence, 1);
	uint64_t seq = 0;
	CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
	CHECK_EQ(seq, 1);
	zcast_msg_drop(m);
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	CHECK_EQ(zcast_sub_close(s), 0);
	return 0;
}

int main(void)
{
	zt_setup("fdexhaust", 60);
	int ready[2], go[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(go), 0);
	struct sub_args a = {ready[1], go[0]};
	pid_t child = zt_fork(subscriber_main, &a);
	zt_await(ready[0]);

	zcast_pub *p = zt_open_pub(TOPIC, 256, SLOTS);
	zt_publish(p, 1, 64);
	zt_signal(go[1]);
	zt_child_ok_within(child, 20000, "subscriber out of descriptors");

	zcast_topic_stat st = zt_stat(TOPIC);
	printf("after the subscriber left: slots_free %llu of %llu\n",
	       (unsigned long long)st.slots_free, (unsigned long long)st.slots_total);
	CHECK_EQ(st.slots_free, SLOTS);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
