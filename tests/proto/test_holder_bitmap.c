/* Holder bitmaps wider than one word: a slot comes back exactly when its last holder releases,
 * whichever word that holder's bit lives in, and the history bit (word 0) keeps it alive. */
#include <sys/resource.h>

#include "zt_skip.h"

#define SUBS 130 /* bits 1..130: three 64-bit words */

static uint64_t free_slots(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st.slots_free;
}

static void test_reclaim_waits_for_last_holder_in_any_word(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.topic.max_subscribers = SUBS;
	so.queue_depth = 4;
	static zcast_sub *subs[SUBS];
	for (int i = 0; i < SUBS; i++)
		CHECK_EQ(zcast_sub_open("/wide", &so, &subs[i]), 0);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 2;
	po.slot_size = 64;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/wide", &po, &p), 0);
	/* Release orders: ascending (last bit in word 2), descending (last in word 0), and middle-out
	 * (last in word 1). */
	for (int order = 0; order < 3; order++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, (uint64_t)order, 0);
		CHECK_EQ(zcast_publish(p, m), 0);
		static zcast_msg *held[SUBS];
		for (int i = 0; i < SUBS; i++)
			CHECK_EQ(zcast_take(subs[i], &held[i]), 0);
		CHECK_EQ(free_slots("/wide"), 1);
		for (int k = 0; k < SUBS; k++) {
			int i = order == 0 ? k : order == 1 ? SUBS - 1 - k : (k + SUBS / 2 + 10) % SUBS;
			CHECK(zt_verify(zcast_msg_data(held[i]), 64, NULL, NULL));
			zcast_msg_drop(held[i]);
			CHECK_EQ(free_slots("/wide"), k == SUBS - 1 ? 2 : 1);
		}
	}
	for (int i = 0; i < SUBS; i++)
		zcast_sub_close(subs[i]);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_history_bit_keeps_slot_until_evicted(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.topic.max_subscribers = 100;
	zcast_sub *subs[100];
	for (int i = 0; i < 100; i++)
		CHECK_EQ(zcast_sub_open("/hist", &so, &subs[i]), 0);
	zcast_sub_close(subs[0]); /* leaves only subscribers whose bits are past word 0's first bits */
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 4;
	po.slot_size = 64;
	po.history_depth = 1;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/hist", &po, &p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 1, 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	for (int i = 1; i < 100; i++) {
		CHECK_EQ(zcast_take(subs[i], &m), 0);
		zcast_msg_drop(m);
	}
	CHECK_EQ(free_slots("/hist"), 3); /* held by history alone */
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 2, 0);
	CHECK_EQ(zcast_publish(p, m), 0); /* evicts message 1 from history */
	for (int i = 1; i < 100; i++) {
		CHECK_EQ(zcast_take(subs[i], &m), 0);
		zcast_msg_drop(m);
	}
	CHECK_EQ(free_slots("/hist"), 3);
	for (int i = 1; i < 100; i++)
		zcast_sub_close(subs[i]);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* The largest topic: 1024 subscribers, a 17-word bitmap; the slot comes back with the last. */
static void test_thousand_twenty_four_subscribers(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 1200) {
		rl.rlim_cur = rl.rlim_max < 1200 ? rl.rlim_max : 1200;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < 1200) {
			zt_skip_part("1024 subscribers", "open-file limit %llu < 1200, cannot be raised",
				     (unsigned long long)rl.rlim_cur);
			return;
		}
	}
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.topic.max_subscribers = 1024;
	so.queue_depth = 2;
	static zcast_sub *subs[1024];
	for (int i = 0; i < 1024; i++)
		CHECK_EQ(zcast_sub_open("/max", &so, &subs[i]), 0);
	zcast_sub *extra;
	CHECK_EQ(zcast_sub_open("/max", &so, &extra), ZCAST_ELIMIT);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 2;
	po.slot_size = 64;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/max", &po, &p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 1, 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	static zcast_msg *held[1024];
	for (int i = 0; i < 1024; i++)
		CHECK_EQ(zcast_take(subs[i], &held[i]), 0);
	for (int i = 1023; i >= 0; i--) {
		if (i % 256 == 0 || i < 3)
			CHECK_EQ(free_slots("/max"), 1);
		zcast_msg_drop(held[i]);
	}
	CHECK_EQ(free_slots("/max"), 2);
	for (int i = 0; i < 1024; i++)
		zcast_sub_close(subs[i]);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("bitmap", 60);
	RUN(test_reclaim_waits_for_last_holder_in_any_word);
	RUN(test_history_bit_keeps_slot_until_evicted);
	RUN(test_thousand_twenty_four_subscribers);
	return zt_status();
}
