/* Delivery policies in one process, deterministic: DROP_OLD, FULL, BALANCE_RR, the per-subscriber
 * counters, the queue depth option, and every slot back in the pool (docs/POLICIES.md).
 *
 * Counter semantics asserted here, for one subscriber S and the publish attempts made while S is a
 * member (ACTIVE, i.e. between its open and its close):
 *   delivered = descriptors queued to S (history on join + successful publishes that targeted S)
 *             = taken + dropped + queued            (conservation: nothing appears or vanishes)
 *   FULL      : a successful publish targets S; a failed one never reaches S; rejected counts the
 *               failed attempts during which S's own queue was full.
 *   DROP_OLD  : every successful publish targets S; rejected stays 0; dropped counts the
 *               oldest queued entries pushed out.
 *   RR        : each successful publish targets exactly one member of each group; when no member
 *               can accept, the publish fails and every member's rejected counts it. */
#include "harness.h"

#include "policy_helpers.h"

/* ---- DROP_OLD ---- */

static void test_drop_old_keeps_the_last_q(void)
{
	const uint32_t Q = 4, K = 6;
	zcast_sub *s = pu_sub("/dropold", ZCAST_POLICY_DROP_OLD, NULL, Q, 0);
	zcast_pub *p = pu_pub("/dropold", 256, 16, 0);
	for (uint64_t i = 1; i <= Q + K; i++) {
		CHECK_EQ(pu_publish(p, i, 64), 0); /* a DROP_OLD subscriber never fails a publish */
		zcast_sub_stat st = pu_stat(s);
		CHECK_EQ(st.delivered, i);
		CHECK_EQ(st.dropped, i > Q ? i - Q : 0);
		CHECK_EQ(st.queued, i > Q ? Q : i);
	}
	/* Dropped slots went back to the pool at once: only the Q queued ones are in use. */
	CHECK_EQ(pu_tstat("/dropold").slots_free, 16 - Q);
	zcast_sub_stat st = pu_stat(s);
	CHECK_EQ(st.dropped, K);
	CHECK_EQ(st.rejected, 0);
	for (uint64_t want = K + 1; want <= K + Q; want++)
		CHECK_EQ(pu_take(s), want);
	CHECK_EQ(pu_take(s), 0);
	st = pu_stat(s);
	CHECK_EQ(st.delivered, Q + K);
	CHECK_EQ(st.delivered, Q /* taken */ + st.dropped + st.queued);
	PU_ALL_FREE("/dropold");
	zcast_sub_close(s);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* A taken (held) message is out of the queue: later drops never touch it. */
static void test_drop_old_never_drops_a_held_message(void)
{
	const uint32_t Q = 3;
	zcast_sub *s = pu_sub("/dropheld", ZCAST_POLICY_DROP_OLD, NULL, Q, 0);
	zcast_pub *p = pu_pub("/dropheld", 256, 8, 0);
	CHECK_EQ(pu_publish(p, 1, 128), 0);
	zcast_msg *held;
	CHECK_EQ(zcast_take(s, &held), 0);
	uint64_t taken = 1;
	for (uint64_t i = 2; i <= 40; i++) /* the ring wraps many times; the slots are reused */
		CHECK_EQ(pu_publish(p, i, 128), 0);
	uint64_t seq;
	CHECK(zt_verify(zcast_msg_data(held), 128, &seq, NULL)); /* poisoned if it had been reused */
	CHECK_EQ(seq, 1);
	zcast_sub_stat st = pu_stat(s);
	CHECK_EQ(st.held, 1);
	CHECK_EQ(st.delivered, 40);
	CHECK_EQ(st.dropped, 40 - 1 - Q);
	CHECK_EQ(pu_tstat("/dropheld").slots_free, 8 - Q - 1);
	for (uint64_t want = 40 - Q + 1; want <= 40; want++, taken++)
		CHECK_EQ(pu_take(s), want);
	st = pu_stat(s);
	CHECK_EQ(st.delivered, taken + st.dropped + st.queued);
	zcast_msg_drop(held);
	PU_ALL_FREE("/dropheld");
	zcast_sub_close(s);
	zcast_pub_close(p);
}

/* ---- FULL ---- */

static void test_full_rejects_and_keeps_the_loan(void)
{
	const uint32_t Q = 4, K = 3;
	zcast_sub *s = pu_sub("/fullq", ZCAST_POLICY_FULL, NULL, Q, 0);
	zcast_sub *d = pu_sub("/fullq", ZCAST_POLICY_DROP_OLD, NULL, 2, 0);
	zcast_pub *p = pu_pub("/fullq", 256, 16, 0);
	for (uint64_t i = 1; i <= Q; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, Q + 1, 0);
	for (uint32_t k = 1; k <= K; k++) {
		CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
		/* The loan is still ours, intact and writable. */
		CHECK(zcast_msg_data(m) != NULL);
		CHECK(zt_verify(zcast_msg_data(m), 64, NULL, NULL));
		zt_fill(zcast_msg_data(m), 64, Q + 1, 0);
		/* Nothing changed: no sequence used, the DROP_OLD subscriber got nothing either. */
		CHECK_EQ(pu_tstat("/fullq").last_sequence, Q);
		CHECK_EQ(pu_stat(d).delivered, Q);
		CHECK_EQ(pu_stat(s).rejected, k);
	}
	zcast_sub_stat st = pu_stat(s);
	CHECK_EQ(st.delivered, Q);
	CHECK_EQ(st.queued, Q);
	/* delivered + rejected == attempts (S is the only FULL subscriber, so every failure is S's). */
	CHECK_EQ(st.delivered + st.rejected, Q + K);
	CHECK_EQ(pu_stat(d).rejected, 0);
	CHECK_EQ(pu_take(s), 1);
	CHECK_EQ(zcast_publish(p, m), 0);
	for (uint64_t want = 2; want <= Q + 1; want++)
		CHECK_EQ(pu_take(s), want);
	CHECK_EQ(pu_take(s), 0);
	CHECK_EQ(pu_take(d), Q);
	CHECK_EQ(pu_take(d), Q + 1);
	st = pu_stat(d);
	CHECK_EQ(st.delivered, 2 + st.dropped);
	PU_ALL_FREE("/fullq");
	zcast_sub_close(s);
	zcast_sub_close(d);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Two FULL subscribers: a failure is counted only by the one whose queue is full. */
static void test_full_rejected_counts_the_full_one(void)
{
	zcast_sub *small = pu_sub("/full2", ZCAST_POLICY_FULL, NULL, 2, 0);
	zcast_sub *big = pu_sub("/full2", ZCAST_POLICY_FULL, NULL, 8, 0);
	zcast_pub *p = pu_pub("/full2", 128, 16, 0);
	int ok = 0, fail = 0;
	for (uint64_t i = 1; i <= 6; i++) {
		int r = pu_publish(p, (uint64_t)ok + 1, 64);
		CHECK(r == 0 || r == ZCAST_EAGAIN);
		r == 0 ? ok++ : fail++;
	}
	CHECK_EQ(ok, 2);
	CHECK_EQ(fail, 4);
	zcast_sub_stat a = pu_stat(small), b = pu_stat(big);
	CHECK_EQ(a.delivered, 2);
	CHECK_EQ(a.rejected, 4);
	CHECK_EQ(b.delivered, 2);
	CHECK_EQ(b.rejected, 0);
	zcast_sub_close(small);
	zcast_sub_close(big);
	PU_ALL_FREE("/full2");
	zcast_pub_close(p);
}

/* The queue depth is a per-subscriber option, default 16. */
static void test_default_queue_depth_is_16(void)
{
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/depth", NULL, &s), 0);
	zcast_sub *deep = pu_sub("/depth", ZCAST_POLICY_DROP_OLD, NULL, 40, 0);
	zcast_pub *p = pu_pub("/depth", 64, 64, 0);
	for (uint64_t i = 1; i <= 16; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	CHECK_EQ(pu_publish(p, 17, 64), ZCAST_EAGAIN);
	CHECK_EQ(zcast_sub_queued(s), 16);
	CHECK_EQ(zcast_sub_queued(deep), 16);
	zcast_sub_close(s);
	for (uint64_t i = 17; i <= 45; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	CHECK_EQ(zcast_sub_queued(deep), 40);
	CHECK_EQ(pu_stat(deep).dropped, 5);
	CHECK_EQ(pu_take(deep), 6);
	zcast_sub_close(deep);
	PU_ALL_FREE("/depth");
	zcast_pub_close(p);
}

/* ---- BALANCE_RR ---- */

static void test_rr_round_robin_skip_and_all_full(void)
{
	zcast_sub *w[3];
	for (int i = 0; i < 3; i++)
		w[i] = pu_sub("/rr", ZCAST_POLICY_BALANCE_RR, "workers", 2, 0);
	zcast_sub *bc = pu_sub("/rr", ZCAST_POLICY_DROP_OLD, NULL, 16, 0);
	zcast_pub *p = pu_pub("/rr", 128, 16, 0);
	/* Round robin: one message each before anyone gets a second. */
	for (uint64_t i = 1; i <= 3; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_sub_queued(w[i]), 1);
	for (uint64_t i = 4; i <= 6; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	/* The broadcast subscriber got every one, each worker exactly its share. */
	CHECK_EQ(zcast_sub_queued(bc), 6);
	uint64_t got[3][2];
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(zcast_sub_queued(w[i]), 2);
		got[i][0] = pu_take(w[i]);
		got[i][1] = pu_take(w[i]);
		CHECK(got[i][0] != 0 && got[i][1] == got[i][0] + 3); /* strictly alternating */
	}
	CHECK_EQ(got[0][0] + got[1][0] + got[2][0], 1 + 2 + 3);
	/* Fill all three again; the next publish finds no member with room. */
	for (uint64_t i = 7; i <= 12; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 13, 0);
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
	/* ...before anything changed: no sequence, the broadcast subscriber did not get it. */
	CHECK_EQ(pu_tstat("/rr").last_sequence, 12);
	CHECK_EQ(zcast_sub_queued(bc), 12);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(pu_stat(w[i]).rejected, 1);
	/* Only worker 1 has room: it is chosen, the full ones are skipped. */
	uint64_t first1 = pu_take(w[1]);
	CHECK(first1 >= 7);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_sub_queued(w[0]), 2);
	CHECK_EQ(zcast_sub_queued(w[1]), 2);
	CHECK_EQ(zcast_sub_queued(w[2]), 2);
	CHECK(pu_take(w[1]) > first1);
	CHECK_EQ(pu_take(w[1]), 13);
	/* Accounting: the group's delivered sum is the number of successful publishes. */
	uint64_t sum = 0, taken = 0;
	for (int i = 0; i < 3; i++) {
		zcast_sub_stat st = pu_stat(w[i]);
		sum += st.delivered;
		CHECK_EQ(st.dropped, 0);
		while (pu_take(w[i]))
			taken++;
	}
	CHECK_EQ(sum, 13);
	CHECK_EQ(taken + 6 /* first round */ + 3 /* worker 1 above */, 13);
	CHECK_EQ(pu_stat(bc).delivered, 13);
	for (int i = 0; i < 3; i++)
		zcast_sub_close(w[i]);
	zcast_sub_close(bc);
	PU_ALL_FREE("/rr");
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Two groups and a broadcast subscriber: each publish reaches the broadcast subscriber and exactly
 * one member of each group; one full group fails the publish for everyone. */
static void test_rr_two_groups_and_broadcast(void)
{
	zcast_sub *a[2], *b[3];
	for (int i = 0; i < 2; i++)
		a[i] = pu_sub("/rr2", ZCAST_POLICY_BALANCE_RR, "a", 8, 0);
	for (int i = 0; i < 3; i++)
		b[i] = pu_sub("/rr2", ZCAST_POLICY_BALANCE_RR, "b", 8, 0);
	zcast_sub *bc = pu_sub("/rr2", ZCAST_POLICY_FULL, NULL, 32, 0);
	zcast_pub *p = pu_pub("/rr2", 128, 64, 0);
	for (uint64_t i = 1; i <= 12; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	CHECK_EQ(zcast_sub_queued(bc), 12);
	CHECK_EQ(zcast_sub_queued(a[0]), 6);
	CHECK_EQ(zcast_sub_queued(a[1]), 6);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_sub_queued(b[i]), 4);
	/* Each sequence exactly once per group. */
	int seen_a[13] = {0}, seen_b[13] = {0};
	uint64_t q;
	for (int i = 0; i < 2; i++)
		while ((q = pu_take(a[i])) != 0)
			seen_a[q]++;
	for (int i = 0; i < 3; i++)
		while ((q = pu_take(b[i])) != 0)
			seen_b[q]++;
	for (int i = 1; i <= 12; i++) {
		CHECK_EQ(seen_a[i], 1);
		CHECK_EQ(seen_b[i], 1);
		CHECK_EQ(pu_take(bc), (uint64_t)i);
	}
	/* Group a full (2 x 8), group b has room: the publish fails, nobody gets it. */
	for (uint64_t i = 13; i <= 28; i++)
		CHECK_EQ(pu_publish(p, i, 64), 0);
	CHECK_EQ(pu_publish(p, 29, 64), ZCAST_EAGAIN);
	CHECK_EQ(pu_stat(a[0]).rejected, 1);
	CHECK_EQ(pu_stat(a[1]).rejected, 1);
	CHECK_EQ(pu_stat(b[0]).rejected + pu_stat(b[1]).rejected + pu_stat(b[2]).rejected, 0);
	uint64_t bq = 0;
	for (int i = 0; i < 3; i++)
		bq += (uint64_t)zcast_sub_queued(b[i]);
	CHECK_EQ(bq, 16);
	CHECK_EQ(zcast_sub_queued(bc), 16);
	for (int i = 0; i < 2; i++)
		zcast_sub_close(a[i]);
	for (int i = 0; i < 3; i++)
		zcast_sub_close(b[i]);
	zcast_sub_close(bc);
	PU_ALL_FREE("/rr2");
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* A group whose members have all closed no longer exists as a target, even while a closed member
 * still holds a message (it drains, it is not a target). */
static void test_rr_closed_group_does_not_block(void)
{
	zcast_sub *w = pu_sub("/rrclose", ZCAST_POLICY_BALANCE_RR, "solo", 1, 0);
	zcast_sub *other = pu_sub("/rrclose", ZCAST_POLICY_BALANCE_RR, "other", 8, 0);
	zcast_sub *bc = pu_sub("/rrclose", ZCAST_POLICY_FULL, NULL, 8, 0);
	zcast_pub *p = pu_pub("/rrclose", 128, 8, 0);
	CHECK_EQ(pu_publish(p, 1, 64), 0);
	zcast_msg *held;
	CHECK_EQ(zcast_take(w, &held), 0);
	CHECK_EQ(pu_publish(p, 2, 64), 0);
	CHECK_EQ(pu_publish(p, 3, 64), ZCAST_EAGAIN); /* the only member is full */
	zcast_sub_close(w); /* draining: holds seq 1 */
	CHECK_EQ(pu_publish(p, 3, 64), 0);
	CHECK_EQ(pu_publish(p, 4, 64), 0);
	/* A new member of the same group name gets the next ones. */
	zcast_sub *w2 = pu_sub("/rrclose", ZCAST_POLICY_BALANCE_RR, "solo", 4, 0);
	CHECK_EQ(pu_publish(p, 5, 64), 0);
	CHECK_EQ(pu_take(w2), 5);
	CHECK_EQ(zcast_sub_queued(bc), 5);
	CHECK_EQ(zcast_sub_queued(other), 5);
	CHECK_EQ(pu_stat(other).rejected, 0);
	zcast_msg_drop(held);
	zcast_sub_close(other);
	zcast_sub_close(w2);
	zcast_sub_close(bc);
	PU_ALL_FREE("/rrclose");
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Validation of the policy options. */
static void test_policy_options_are_checked(void)
{
	zcast_sub_opts o;
	zcast_sub *s;
	zcast_sub_opts_init(&o);
	CHECK_EQ(o.queue_depth, 16);
	CHECK_EQ(o.policy, ZCAST_POLICY_FULL);
	o.policy = ZCAST_POLICY_BALANCE_RR;
	CHECK_EQ(zcast_sub_open("/opts", &o, &s), ZCAST_EINVAL); /* RR needs a group */
	o.group = "bad name";
	CHECK_EQ(zcast_sub_open("/opts", &o, &s), ZCAST_EINVAL);
	o.policy = ZCAST_POLICY_DROP_OLD;
	o.group = "g";
	CHECK_EQ(zcast_sub_open("/opts", &o, &s), ZCAST_EINVAL); /* a group needs RR */
	o.group = NULL;
	o.policy = 7;
	CHECK_EQ(zcast_sub_open("/opts", &o, &s), ZCAST_EINVAL);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = 0;
	CHECK_EQ(zcast_sub_open("/opts", &o, &s), ZCAST_EINVAL);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("polsingle", 60);
	RUN(test_drop_old_keeps_the_last_q);
	RUN(test_drop_old_never_drops_a_held_message);
	RUN(test_full_rejects_and_keeps_the_loan);
	RUN(test_full_rejected_counts_the_full_one);
	RUN(test_default_queue_depth_is_16);
	RUN(test_rr_round_robin_skip_and_all_full);
	RUN(test_rr_two_groups_and_broadcast);
	RUN(test_rr_closed_group_does_not_block);
	RUN(test_policy_options_are_checked);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
