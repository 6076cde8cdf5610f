/* Publish and take in one process: delivery, message info, many held at once, reclaim, FULL. */
#include "harness.h"

static zcast_sub *open_sub(const char *topic, uint32_t depth)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = depth;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static void publish_seq(zcast_pub *p, uint64_t seq, size_t n)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, n, &m), 0);
	zt_fill(zcast_msg_data(m), n, seq, zcast_pub_id(p));
	CHECK_EQ(zcast_publish(p, m), 0);
}

static zcast_topic_stat stat_of(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st;
}

static void test_message_arrives_in_place_with_info(void)
{
	zcast_sub *s = open_sub("/basic", 8);
	zcast_pub *p = zt_open_pub("/basic", 1024, 4);
	zcast_msg *loan;
	CHECK_EQ(zcast_loan(p, 100, &loan), 0);
	zcast_msg_info li;
	CHECK_EQ(zcast_msg_info_get(loan, &li), 0);
	zt_fill(zcast_msg_data(loan), 100, 1, 7);
	int64_t before = zt_now_ns();
	CHECK_EQ(zcast_publish(p, loan), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	CHECK_EQ(zcast_msg_size(m), 100);
	uint64_t seq, pub;
	CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub));
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(m, &info), 0);
	CHECK_EQ(info.sequence, 1);
	CHECK_EQ(info.publisher_id, zcast_pub_id(p));
	CHECK(info.publish_time_ns >= before && info.publish_time_ns <= zt_now_ns());
	/* Same memory: the same pool file and offset as the loan. */
	CHECK_EQ(info.pool_ino, li.pool_ino);
	CHECK_EQ(info.pool_offset, li.pool_offset);
	zcast_msg_drop(m);
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	zcast_msg_drop(NULL);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

static void test_sequence_numbers_are_per_topic(void)
{
	zcast_sub *s = open_sub("/seq", 16);
	zcast_pub *a = zt_open_pub("/seq", 128, 4), *b = zt_open_pub("/seq", 256, 4);
	for (int i = 0; i < 6; i++)
		publish_seq(i % 2 ? b : a, (uint64_t)i, 64);
	for (uint64_t want = 1; want <= 6; want++) {
		zcast_msg *m;
		CHECK_EQ(zcast_take(s, &m), 0);
		zcast_msg_info info;
		zcast_msg_info_get(m, &info);
		CHECK_EQ(info.sequence, want);
		CHECK_EQ(info.publisher_id, zcast_pub_id(want % 2 ? a : b));
		zcast_msg_drop(m);
	}
	zcast_pub_close(a);
	zcast_pub_close(b);
	zcast_sub_close(s);
}

static void test_many_held_released_in_any_order(void)
{
	zcast_sub *s1 = open_sub("/held", 16), *s2 = open_sub("/held", 16);
	zcast_pub *p = zt_open_pub("/held", 256, 8);
	for (int i = 0; i < 8; i++)
		publish_seq(p, (uint64_t)i, 64);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), ZCAST_ENOSLOT); /* all 8 queued */
	zcast_msg *h1[8], *h2[8];
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(zcast_take(s1, &h1[i]), 0);
		CHECK_EQ(zcast_take(s2, &h2[i]), 0);
	}
	zcast_sub_stat ss;
	zcast_sub_stat_get(s1, &ss);
	CHECK_EQ(ss.held, 8);
	CHECK_EQ(ss.delivered, 8);
	/* s1 releases odd ones, s2 even ones: nothing may come back yet. */
	for (int i = 0; i < 8; i++)
		zcast_msg_drop(i % 2 ? h1[i] : h2[i]);
	CHECK_EQ(stat_of("/held").slots_free, 0);
	CHECK_EQ(zcast_loan(p, 8, &m), ZCAST_ENOSLOT);
	for (int i = 7; i >= 0; i--) {
		uint64_t seq;
		zcast_msg *x = i % 2 ? h2[i] : h1[i];
		CHECK(zt_verify(zcast_msg_data(x), 64, &seq, NULL));
		CHECK_EQ(seq, (uint64_t)i);
		zcast_msg_drop(x);
		CHECK_EQ(stat_of("/held").slots_free, 8 - i);
	}
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	zcast_msg_drop(m);
	zcast_sub_close(s1);
	zcast_sub_close(s2);
	zcast_pub_close(p);
}

static void test_full_queue_rejects_before_anything_changes(void)
{
	zcast_sub *full = open_sub("/full", 2), *roomy = open_sub("/full", 8);
	zcast_pub *p = zt_open_pub("/full", 128, 8);
	publish_seq(p, 0, 64);
	publish_seq(p, 1, 64);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 2, 0);
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
	/* All or nothing: the roomy subscriber did not get it either, and the loan is intact. */
	CHECK_EQ(zcast_sub_queued(roomy), 2);
	CHECK(zt_verify(zcast_msg_data(m), 64, NULL, NULL));
	zcast_sub_stat ss;
	zcast_sub_stat_get(full, &ss);
	CHECK_EQ(ss.rejected, 1);
	CHECK_EQ(zcast_publish_wait(p, m, 20000000), ZCAST_ETIMEDOUT);
	zcast_msg *t;
	CHECK_EQ(zcast_take(full, &t), 0);
	zcast_msg_drop(t);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_sub_queued(full), 2);
	CHECK_EQ(zcast_sub_queued(roomy), 3);
	zcast_sub_close(full);
	zcast_sub_close(roomy);
	CHECK_EQ(stat_of("/full").slots_free, 8);
	zcast_pub_close(p);
}

static void test_publish_without_subscribers_returns_slot(void)
{
	zcast_pub *p = zt_open_pub("/void", 64, 2);
	for (int i = 0; i < 10; i++)
		publish_seq(p, (uint64_t)i, 64);
	CHECK_EQ(stat_of("/void").slots_free, 2);
	zcast_pub_close(p);
}

static void test_dropped_loan_returns_slot(void)
{
	zcast_pub *p = zt_open_pub("/loans", 64, 3);
	zcast_msg *m[3], *x;
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_loan(p, 64, &m[i]), 0);
	CHECK_EQ(zcast_loan(p, 64, &x), ZCAST_ENOSLOT);
	int64_t t0 = zt_now_ns();
	CHECK_EQ(zcast_loan_wait(p, 64, 20000000, &x), ZCAST_ETIMEDOUT);
	CHECK(zt_now_ns() - t0 >= 20000000);
	zcast_msg *copy = zcast_msg_ref(m[1]);
	zcast_msg_drop(m[1]);
	CHECK_EQ(zcast_loan(p, 64, &x), ZCAST_ENOSLOT); /* a copy still holds the loan */
	zcast_msg_drop(copy);
	CHECK_EQ(zcast_loan(p, 64, &x), 0);
	CHECK_EQ(zcast_loan(p, 65, &m[1]), ZCAST_EINVAL); /* bigger than the slot */
	zcast_msg_drop(x);
	zcast_msg_drop(m[0]);
	zcast_msg_drop(m[2]);
	CHECK_EQ(stat_of("/loans").slots_free, 3);
	zcast_pub_close(p);
}

static void test_published_loan_copies_are_stale(void)
{
	zcast_sub *s = open_sub("/stale", 4);
	zcast_pub *p = zt_open_pub("/stale", 64, 2);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zcast_msg *copy = zcast_msg_ref(m);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK(zcast_msg_data(copy) == NULL);
	CHECK(strstr(zcast_last_error(), "published") != NULL);
	CHECK_EQ(zcast_msg_size(copy), 0);
	CHECK_EQ(zcast_msg_resize(copy, 8), ZCAST_ESTALE);
	CHECK_EQ(zcast_publish(p, copy), ZCAST_ESTALE);
	zcast_msg_drop(copy);
	zcast_msg *t;
	CHECK_EQ(zcast_take(s, &t), 0);
	zcast_msg_drop(t);
	CHECK_EQ(stat_of("/stale").slots_free, 2);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

static void test_resize_and_max_held(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.max_held = 2;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/maxheld", &so, &s), 0);
	zcast_pub *p = zt_open_pub("/maxheld", 256, 8);
	for (int i = 0; i < 3; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 256, &m), 0);
		CHECK_EQ(zcast_msg_capacity(m), 256);
		CHECK_EQ(zcast_msg_resize(m, 300), ZCAST_EINVAL);
		CHECK_EQ(zcast_msg_resize(m, 40), 0);
		zt_fill(zcast_msg_data(m), 40, (uint64_t)i, 0);
		CHECK_EQ(zcast_publish(p, m), 0);
	}
	zcast_msg *a, *b, *c;
	CHECK_EQ(zcast_take(s, &a), 0);
	CHECK_EQ(zcast_msg_size(a), 40);
	CHECK_EQ(zcast_take(s, &b), 0);
	CHECK_EQ(zcast_take(s, &c), ZCAST_ELIMIT);
	zcast_msg_drop(a);
	CHECK_EQ(zcast_take(s, &c), 0);
	zcast_msg_drop(b);
	zcast_msg_drop(c);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

static void test_close_with_held_messages_keeps_them_valid(void)
{
	zcast_sub *s = open_sub("/closeheld", 8);
	zcast_pub *p = zt_open_pub("/closeheld", 128, 4);
	publish_seq(p, 1, 64);
	publish_seq(p, 2, 64);
	publish_seq(p, 3, 64);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_sub_close(s); /* 2 queued are released now, the held one when dropped */
	CHECK_EQ(stat_of("/closeheld").slots_free, 3);
	CHECK_EQ(stat_of("/closeheld").subscribers, 0);
	publish_seq(p, 4, 64); /* no longer a target */
	CHECK_EQ(stat_of("/closeheld").slots_free, 3);
	uint64_t seq;
	CHECK(zt_verify(zcast_msg_data(m), 64, &seq, NULL));
	CHECK_EQ(seq, 1);
	zcast_msg_drop(m);
	CHECK_EQ(stat_of("/closeheld").slots_free, 4);
	zcast_pub_close(p);
	/* Publisher and subscriber gone: nothing of the domain remains. */
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_loan_outlives_closed_publisher(void)
{
	zcast_sub *s = open_sub("/pubclosed", 4);
	zcast_pub *p = zt_open_pub("/pubclosed", 128, 2);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zcast_pub_close(p);
	zt_fill(zcast_msg_data(m), 64, 1, 0); /* still ours to write */
	CHECK_EQ(zcast_publish(p, m), ZCAST_ESTALE);
	CHECK_EQ(stat_of("/pubclosed").publishers, 1); /* membership ends with the last loan */
	zcast_msg_drop(m);
	CHECK_EQ(stat_of("/pubclosed").publishers, 0);
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("pubsub", 60);
	RUN(test_message_arrives_in_place_with_info);
	RUN(test_sequence_numbers_are_per_topic);
	RUN(test_many_held_released_in_any_order);
	RUN(test_full_queue_rejects_before_anything_changes);
	RUN(test_publish_without_subscribers_returns_slot);
	RUN(test_dropped_loan_returns_slot);
	RUN(test_published_loan_copies_are_stale);
	RUN(test_resize_and_max_held);
	RUN(test_close_with_held_messages_keeps_them_valid);
	RUN(test_loan_outlives_closed_publisher);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
