/* Issue 10, finding 8: ring positions near the 48-bit wrap of the head word. A fresh subscriber's
 * head and tail are set (while its ring is empty) to 2^48 - 3; ten messages then go through the
 * wrap in batches of 1 to 4 (the depth): every message is delivered exactly once, in order, for a
 * FULL and for a DROP_OLD subscriber. */
#include "zt_hostile.h"

#define START ((1ull << 48) - 3)

static void through_wrap(const char *topic, int policy)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = policy;
	so.queue_depth = 4;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &so, &s), 0);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 8;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &po, &p), 0);

	struct zc_topic_hdr *h = zt_map_topic(topic, NULL);
	struct zc_sub_rec *r = zt_sub_rec(h, zcast_sub_id(s));
	CHECK(r != NULL);
	CHECK_EQ(atomic_load(&r->tail), ZC_HEAD_POS(atomic_load(&r->head))); /* empty */
	atomic_store(&r->head, ZC_HEAD_MAKE(START, ZC_HEAD_DROPS(atomic_load(&r->head))));
	atomic_store(&r->tail, START);

	static const int batches[] = {1, 2, 3, 4};
	uint64_t next = 1, want = 1;
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < batches[b]; i++)
			zt_publish(p, next++, 64);
		int q = zcast_sub_queued(s);
		if (q != batches[b]) {
			fprintf(stderr, "FAIL: %d published through the wrap, %d queued\n",
				batches[b], q);
			zt_fail();
		}
		for (int i = 0; i < batches[b]; i++) {
			zcast_msg *m;
			int rc = zcast_take(s, &m);
			if (rc != 0) {
				fprintf(stderr,
					"FAIL: message %llu not delivered near the wrap: take %d "
					"(%s)\n",
					(unsigned long long)want, rc, zcast_last_error());
				zt_fail();
			}
			uint64_t seq = 0;
			CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
			if (seq != want) {
				fprintf(stderr, "FAIL: near the wrap got message %llu, want %llu\n",
					(unsigned long long)seq, (unsigned long long)want);
				zt_fail();
			}
			want++;
			zcast_msg_drop(m);
		}
		zcast_msg *m;
		CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	}
	CHECK_EQ(want, 11);
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void full(void)
{
	through_wrap("/wrap/full", ZCAST_POLICY_FULL);
}

static void drop_old(void)
{
	through_wrap("/wrap/drop", ZCAST_POLICY_DROP_OLD);
}

int main(void)
{
	zt_setup("ringwrap", 60);
	static const struct zt_case cases[] = {ZT_CASE(full), ZT_CASE(drop_old)};
	return zt_run_cases(cases, 2, 20);
}
