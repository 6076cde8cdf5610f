/* Issue 10, finding 1: a subscriber that cannot open a publisher's pool must never strand a slot.
 *
 * A subscriber of uid 65534 joins first, so the topic is created 0600 and owned by 65534; then root
 * opens a publisher, whose pool is owned by root with mode 0600: unreadable for the subscriber.
 * Accepted outcomes:
 *  - the publisher's open is refused with ZCAST_EPERM, and the message names the subscriber's uid,
 *    the mode and the fix (the `topic.mode` option);
 *  - or the join succeeds, and then no take strands a slot: after the subscriber has tried to take
 *    every message and left, every slot of the publisher's pool is free again.
 * Needs root (to run the subscriber as another uid): skipped with 77 otherwise. */
#include "zt_hostile.h"

#define TOPIC "/perm/pool"
#define SLOTS 8
#define NOBODY 65534

struct sub_args {
	int ready_w, go_r;
};

static int subscriber_main(void *a_)
{
	struct sub_args *a = a_;
	if (zt_become(NOBODY, NOBODY) != 0) {
		fprintf(stderr, "cannot become uid %d: %s\n", NOBODY, strerror(errno));
		return 2;
	}
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = SLOTS;
	zcast_sub *s = NULL;
	int r = zcast_sub_open(TOPIC, &o, &s);
	if (r != 0) {
		fprintf(stderr, "subscriber open as uid %d: %d %s\n", NOBODY, r,
			zcast_last_error());
		return 3;
	}
	zt_signal(a->ready_w);
	char c;
	if (read(a->go_r, &c, 1) != 1)
		return 4;
	/* Tries to take more than was published: whatever take returns, it must not strand slots.
	 */
	for (int i = 0; i < 2 * SLOTS; i++) {
		zcast_msg *m;
		r = zcast_take(s, &m);
		if (r == 0)
			zcast_msg_drop(m);
		else if (r > 0 || r < ZCAST_EBUSY)
			return 5;
	}
	zcast_sub_close(s);
	return 0;
}

int main(void)
{
	zt_setup("poolperm", 60);
	if (geteuid() != 0) {
		printf("SKIP: needs root to run the subscriber as uid %d\n", NOBODY);
		return ZT_SKIP;
	}
	int ready[2], go[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(go), 0);
	struct sub_args a = {ready[1], go[0]};
	pid_t child = zt_fork(subscriber_main, &a);
	zt_await(ready[0]);

	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 256;
	po.slot_count = SLOTS;
	zcast_pub *p = NULL;
	int r = zcast_pub_open(TOPIC, &po, &p);
	if (r != 0) {
		const char *e = zcast_last_error();
		printf("publisher refused: %d (%s)\n", r, e);
		CHECK_EQ(r, ZCAST_EPERM);
		CHECK_MSG_HAS(e, "65534");
		CHECK(strstr(e, "0600") || strstr(e, "600"));
		CHECK_MSG_HAS(e, "topic.mode");
		CHECK_EQ(write(go[1], "g", 1), 1);
		CHECK_CHILD_OK(child);
		printf("ok refused at join\n");
		return 0;
	}
	/* Joined: the publisher is never harmed and no slot is stranded by the subscriber's takes.
	 */
	for (int i = 0; i < SLOTS; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, (uint64_t)i + 1, zcast_pub_id(p));
		r = zcast_publish(p, m);
		if (r != 0) {
			CHECK(r < 0);
			zcast_msg_drop(m);
		}
	}
	CHECK_EQ(write(go[1], "g", 1), 1);
	zt_child_ok_within(child, 20000, "subscriber without access to the pool");
	zcast_topic_stat st = zt_stat(TOPIC);
	printf("after the subscriber left: slots_free %llu of %llu\n",
	       (unsigned long long)st.slots_free, (unsigned long long)st.slots_total);
	CHECK_EQ(st.slots_total, SLOTS);
	if (st.slots_free != SLOTS) {
		fprintf(
		    stderr,
		    "FAIL: the subscriber left and %llu of %d slots stay taken: its failed takes "
		    "stranded them\n",
		    (unsigned long long)(SLOTS - st.slots_free), SLOTS);
		zt_fail();
	}
	/* The publisher still works at full capacity. */
	zcast_msg *loans[SLOTS];
	for (int i = 0; i < SLOTS; i++)
		CHECK_EQ(zcast_loan(p, 64, &loans[i]), 0);
	for (int i = 0; i < SLOTS; i++)
		zcast_msg_drop(loans[i]);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok joined without stranding a slot\n");
	return 0;
}
