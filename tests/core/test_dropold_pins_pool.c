/* Issue 22, item 4: DROP_OLD subscribers that never take, with queues as deep as the publisher's
 * pool, must never stall the publisher. Before, the queued entries held every slot: 4 of 200 loans
 * succeeded here, then every loan said ZCAST_ENOSLOT (loan_wait timed out). Now a loan whose pool
 * is empty makes those queues drop their oldest entries of it, as a full DROP_OLD queue would; the
 * queues keep the newest messages, and a FULL subscriber that takes still gets every message. */
#include "zt_hostile.h"

#define TOPIC "/dropold/pins"
#define SLOTS 4
#define N 200

static zcast_sub *open_sub(int policy, uint32_t depth)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = policy;
	so.queue_depth = depth;
	so.topic.max_queue_depth = 16;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	return s;
}

/* Takes what is queued; checks that the sequence numbers are the newest ones, in order. */
static void check_newest(zcast_sub *s, uint64_t last)
{
	int n = 0;
	uint64_t prev = 0, seq = 0;
	zcast_msg *m;
	while (zcast_take(s, &m) == 0) {
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		CHECK(seq > prev);
		prev = seq;
		n++;
		zcast_msg_drop(m);
	}
	CHECK(n >= 1);
	CHECK_EQ(seq, last);
}

int main(void)
{
	zt_setup("dopins", 60);
	zcast_sub *deep = open_sub(ZCAST_POLICY_DROP_OLD, 16); /* deeper than the pool */
	zcast_sub *same = open_sub(ZCAST_POLICY_DROP_OLD, SLOTS);
	zcast_sub *full = open_sub(ZCAST_POLICY_FULL, 2);
	zcast_pub *p = zt_open_pub(TOPIC, 64, SLOTS);
	int published = 0;
	for (uint64_t i = 1; i <= N; i++) {
		zcast_msg *m;
		int r = zcast_loan(p, 32, &m);
		if (r != 0) {
			printf("loan %llu: %d (%s)\n", (unsigned long long)i, r, zcast_last_error());
			break;
		}
		zt_fill(zcast_msg_data(m), 32, i, zcast_pub_id(p));
		CHECK_EQ(zcast_publish(p, m), 0);
		published++;
		CHECK_EQ(zt_drain(full), 1); /* the FULL subscriber takes every message */
	}
	printf("%d of %d published\n", published, N);
	CHECK_EQ(published, N);
	check_newest(deep, N);
	check_newest(same, N);
	zcast_sub_stat st;
	CHECK_EQ(zcast_sub_stat_get(deep, &st), 0);
	CHECK(st.dropped > 0);
	zcast_pub_close(p);
	zcast_sub_close(deep);
	zcast_sub_close(same);
	zcast_sub_close(full);
	printf("ok\n");
	return 0;
}
