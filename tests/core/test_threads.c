/* Handles across threads: shared process-local counts, concurrent takers, waking a waiting thread.
 * Run under ThreadSanitizer as well (make test-tsan). */
#include <pthread.h>

#include "harness.h"

static zcast_topic_stat stat_of(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st;
}

struct ref_job {
	zcast_msg *msg;
	int rounds;
};

static void *ref_drop_worker(void *arg)
{
	struct ref_job *j = arg;
	for (int i = 0; i < j->rounds; i++) {
		zcast_msg *c = zcast_msg_ref(j->msg);
		CHECK(c == j->msg);
		CHECK(zt_verify(zcast_msg_data(c), 64, NULL, NULL));
		zcast_msg_drop(c);
	}
	return NULL;
}

static void *drop_one(void *arg)
{
	zcast_msg_drop(arg);
	return NULL;
}

static void test_copies_across_threads_share_one_count(void)
{
	zcast_sub *s;
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open("/refs", NULL, &s), 0);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 2;
	po.slot_size = 64;
	CHECK_EQ(zcast_pub_open("/refs", &po, &p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 1, 1);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_take(s, &m), 0);
	pthread_t th[8];
	struct ref_job job = {m, 20000};
	for (int i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, ref_drop_worker, &job);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(stat_of("/refs").slots_free, 1);
	/* Hand copies to other threads; the slot comes back only with the very last drop. */
	zcast_msg *copies[4];
	for (int i = 0; i < 4; i++)
		copies[i] = zcast_msg_ref(m);
	zcast_msg_drop(m);
	for (int i = 0; i < 3; i++) {
		pthread_create(&th[i], NULL, drop_one, copies[i]);
		pthread_join(th[i], NULL);
		CHECK_EQ(stat_of("/refs").slots_free, 1);
	}
	pthread_create(&th[3], NULL, drop_one, copies[3]);
	pthread_join(th[3], NULL);
	CHECK_EQ(stat_of("/refs").slots_free, 2);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

#define N_TAKE 20000
#define N_TAKERS 4
static zcast_sub *shared_sub;
static _Atomic int seen[N_TAKE];
static _Atomic int taken_total;

static void *taker(void *arg)
{
	(void)arg;
	while (atomic_load(&taken_total) < N_TAKE) {
		zcast_msg *m;
		int r = zcast_take(shared_sub, &m);
		if (r == ZCAST_EAGAIN) {
			zcast_wait(shared_sub, 10000000);
			continue;
		}
		CHECK_EQ(r, 0);
		uint64_t seq;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		CHECK(seq < N_TAKE);
		CHECK_EQ(atomic_fetch_add(&seen[seq], 1), 0);
		atomic_fetch_add(&taken_total, 1);
		zcast_msg_drop(m);
	}
	return NULL;
}

static void test_concurrent_takers_get_each_message_once(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 32;
	CHECK_EQ(zcast_sub_open("/takers", &so, &shared_sub), 0);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 48;
	po.slot_size = 128;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/takers", &po, &p), 0);
	pthread_t th[N_TAKERS];
	for (int i = 0; i < N_TAKERS; i++)
		pthread_create(&th[i], NULL, taker, NULL);
	for (uint64_t i = 0; i < N_TAKE; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, 128, 5000000000, &m), 0);
		zt_fill(zcast_msg_data(m), 128, i, 0);
		CHECK_EQ(zcast_publish_wait(p, m, 5000000000), 0);
	}
	for (int i = 0; i < N_TAKERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < N_TAKE; i++)
		CHECK_EQ(atomic_load(&seen[i]), 1);
	CHECK_EQ(stat_of("/takers").slots_free, 48);
	zcast_sub_close(shared_sub);
	zcast_pub_close(p);
}

static void *late_publisher(void *arg)
{
	zt_sleep_ms(50);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(arg, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 9, 0);
	CHECK_EQ(zcast_publish(arg, m), 0);
	return NULL;
}

static void test_wait_blocks_until_publish_and_times_out(void)
{
	zcast_sub *s;
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open("/wait", NULL, &s), 0);
	CHECK_EQ(zcast_pub_open("/wait", NULL, &p), 0);
	int64_t t0 = zt_now_ns();
	CHECK_EQ(zcast_wait(s, 30000000), ZCAST_ETIMEDOUT);
	CHECK(zt_now_ns() - t0 >= 30000000);
	pthread_t th;
	pthread_create(&th, NULL, late_publisher, p);
	CHECK_EQ(zcast_wait(s, 10000000000), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_drop(m);
	pthread_join(th, NULL);
	/* With a spin budget the same holds. */
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.spin_ns = 2000000;
	zcast_sub *spinner;
	CHECK_EQ(zcast_sub_open("/wait", &so, &spinner), 0);
	CHECK_EQ(zcast_wait(spinner, 5000000), ZCAST_ETIMEDOUT);
	pthread_create(&th, NULL, late_publisher, p);
	CHECK_EQ(zcast_wait(spinner, 10000000000), 0);
	pthread_join(th, NULL);
	zcast_sub_close(spinner);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

/* Sleep slices end sleeps, never the wait: with or without a timeout it returns only at its
 * deadline or with a message queued. */
static void test_wait_slices_end_sleeps_not_the_wait(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.sleep_slice_ns = 5000000;
	zcast_sub *s;
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open("/slices", &so, &s), 0);
	CHECK_EQ(zcast_pub_open("/slices", NULL, &p), 0);
	int64_t t0 = zt_now_ns();
	CHECK_EQ(zcast_wait(s, 30000000), ZCAST_ETIMEDOUT);
	CHECK(zt_now_ns() - t0 >= 30000000);
	for (int round = 0; round < 2; round++) {
		pthread_t th;
		pthread_create(&th, NULL, late_publisher, p);
		CHECK_EQ(zcast_wait(s, round ? 10000000000 : -1), 0);
		zcast_msg *m;
		CHECK_EQ(zcast_take(s, &m), 0);
		zcast_msg_drop(m);
		pthread_join(th, NULL);
	}
	zcast_sub_close(s);
	zcast_pub_close(p);
}

int main(void)
{
	zt_setup("threads", 120);
	RUN(test_copies_across_threads_share_one_count);
	RUN(test_concurrent_takers_get_each_message_once);
	RUN(test_wait_blocks_until_publish_and_times_out);
	RUN(test_wait_slices_end_sleeps_not_the_wait);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
