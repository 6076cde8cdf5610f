/* Helpers shared by the policy and history tests: open publishers/subscribers, publish a
 * checksummed sequence, read counters, assert the pool is whole. */
#ifndef ZT_POLICY_HELPERS_H
#define ZT_POLICY_HELPERS_H
#include "harness.h"

static zcast_pub *pu_pub(const char *topic, size_t slot, uint32_t slots, uint32_t hist)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = slot;
	o.slot_count = slots;
	o.history_depth = hist;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

static zcast_sub *pu_sub(const char *topic, int policy, const char *group, uint32_t depth,
			 uint32_t history)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = policy;
	o.group = group;
	if (depth)
		o.queue_depth = depth;
	o.history = history;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

/* Loans, fills with `seq`, publishes; returns zcast_publish's result (loan dropped on failure). */
static int pu_publish(zcast_pub *p, uint64_t seq, size_t n)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, n, &m), 0);
	zt_fill(zcast_msg_data(m), n, seq, 0);
	int r = zcast_publish(p, m);
	if (r != 0)
		zcast_msg_drop(m);
	return r;
}

/* Takes one message, verifies it, returns its sequence (0 if nothing is queued). The tests publish
 * payload seq == topic sequence, so this also checks that failed publishes consume no sequence. */
static uint64_t pu_take(zcast_sub *s)
{
	zcast_msg *m;
	int r = zcast_take(s, &m);
	if (r == ZCAST_EAGAIN)
		return 0;
	CHECK_EQ(r, 0);
	uint64_t seq;
	CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(m, &info), 0);
	CHECK_EQ(info.sequence, seq);
	zcast_msg_drop(m);
	return seq;
}

static zcast_sub_stat pu_stat(zcast_sub *s)
{
	zcast_sub_stat st;
	CHECK_EQ(zcast_sub_stat_get(s, &st), 0);
	return st;
}

static zcast_topic_stat pu_tstat(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st;
}

#define PU_ALL_FREE(topic)                                                                         \
	do {                                                                                       \
		zcast_topic_stat _ts = pu_tstat(topic);                                            \
		CHECK(_ts.slots_total > 0);                                                        \
		CHECK_EQ(_ts.slots_free, _ts.slots_total);                                         \
	} while (0)

#endif
