/* The owed-wake mark in the topic header (src/wake.c), as any member sees it through the control
 * segment: a publish that finds a sleeper marks its wake owed with a token of its own and clears
 * the mark once it has woken; a publish nobody sleeps for takes no token; a token is never 0
 * ("nothing owed"), also when the counter wraps; a mark left behind (a publisher gone between its
 * unlock and its wake) is paid and cleared by the next locker, even one that wakes nobody itself.
 */
#include <pthread.h>
#include <semaphore.h>

#include "zt_seg.h"

#define TOPIC "/wt/t"
#define ROUNDS 50

static zcast_sub *sub;
static sem_t taken;

static void take_one(void)
{
	zcast_msg *m;
	CHECK_EQ(zcast_take(sub, &m), 0);
	CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
	zcast_msg_drop(m);
}

/* Sleeps in zcast_wait(-1) for each of `n` messages, taking each. */
static void *sleeper(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++) {
		CHECK_EQ(zcast_wait(sub, -1), 0);
		take_one();
		sem_post(&taken);
	}
	return NULL;
}

static void publish(zcast_pub *p, uint64_t seq)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, seq, 1);
	CHECK_EQ(zcast_publish(p, m), 0);
}

/* Publishes once while the sleeper is announced, and checks the token it took. */
static void woken_publish(zcast_pub *p, struct zc_topic_hdr *h, struct zc_sub_rec *rec,
			  uint64_t seq)
{
	ZT_EVENTUALLY(ZC_SLEEPERS(atomic_load(&rec->sleepers)) == 1);
	uint64_t before = atomic_load(&h->wake_token);
	publish(p, seq);
	uint64_t want = before + 1 == 0 ? 1 : before + 1;
	CHECK_EQ(atomic_load(&h->wake_token), want);
	CHECK_EQ(atomic_load(&h->wake_owed), 0); /* paid before zcast_publish returned */
	CHECK_EQ(sem_wait(&taken), 0);
}

static void test_owed_mark(void)
{
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &sub), 0);
	CHECK_EQ(zcast_pub_open(TOPIC, NULL, &p), 0);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, &size);
	struct zc_sub_rec *rec = (struct zc_sub_rec *)((char *)h + h->off_subs); /* the only sub */
	CHECK_EQ(atomic_load(&rec->state), ZC_REC_ACTIVE);
	CHECK_EQ(sem_init(&taken, 0, 0), 0);

	/* Nobody asleep: no token, nothing owed. */
	uint64_t tok = atomic_load(&h->wake_token);
	publish(p, 1);
	CHECK_EQ(atomic_load(&h->wake_token), tok);
	CHECK_EQ(atomic_load(&h->wake_owed), 0);
	take_one();

	/* One token per woken publish, each mark cleared after its wake; the counter wraps past 0.
	 */
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, sleeper, (void *)(long)(ROUNDS + 2)), 0);
	for (int i = 0; i < ROUNDS; i++)
		woken_publish(p, h, rec, 2 + (uint64_t)i);
	atomic_store(&h->wake_token, UINT64_MAX - 1);
	woken_publish(p, h, rec, 100);
	CHECK_EQ(atomic_load(&h->wake_token), UINT64_MAX);
	woken_publish(p, h, rec, 101);
	CHECK_EQ(atomic_load(&h->wake_token), 1);
	CHECK_EQ(pthread_join(th, NULL), 0);

	/* A mark left behind: a locker pays it once it is stale (found again at its next acquisition),
	 * though its own publishes wake nobody; the first acquisition only notes it (its publisher
	 * may be alive, between its unlock and its wake). */
	atomic_store(&h->wake_owed, 12345);
	tok = atomic_load(&h->wake_token);
	publish(p, 102);
	CHECK_EQ(atomic_load(&h->wake_owed), 12345);
	publish(p, 103);
	CHECK_EQ(atomic_load(&h->wake_owed), 0);
	CHECK_EQ(atomic_load(&h->wake_token), tok);
	take_one();
	take_one();

	munmap(h, size);
	sem_destroy(&taken);
	zcast_pub_close(p);
	zcast_sub_close(sub);
}

int main(void)
{
	zt_setup("wake_token", 120);
	RUN(test_owed_mark);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
