/* Issue 10, finding 2: a slot header's `size` rewritten above the slot capacity by another member
 * must never reach the application. A scribbler thread flips the size of every slot between a sane
 * value and values above the capacity while the test publishes and takes in a loop. Every take must
 * either fail with ZCAST_ECORRUPT or return a message with zcast_msg_size() <=
 * zcast_msg_capacity(), and a refused take must not strand its slot (the next loan still finds a
 * free one). */
#include "zt_hostile.h"

#define TOPIC "/hostile/size"
#define ROUNDS 200000
#define SLOTS 8

static struct zc_pool_hdr *pool;
static atomic_int stop;

static void *scribbler(void *arg)
{
	(void)arg;
	uint64_t cap = pool->slot_size;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (uint32_t i = 0; i < SLOTS; i++) {
			volatile uint64_t *size = &zt_slot(pool, i)->size;
			*size = 64;
			*size = cap + 1;
			*size = 64;
			*size = 1ull << 40;
		}
	}
	return NULL;
}

int main(void)
{
	zt_setup("hsize", 120);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 4;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	zcast_pub *p = zt_open_pub(TOPIC, 256, SLOTS);

	char path[400];
	CHECK(zt_find_pool(path, sizeof path));
	struct zt_map pm = zt_map_path(path);
	pool = pm.p;
	CHECK_EQ(pool->slot_count, SLOTS);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, scribbler, NULL), 0);

	int taken = 0, refused = 0;
	for (int i = 0; i < ROUNDS; i++) {
		zcast_msg *m;
		/* One message per round is published and taken (or refused): at most the queue's 4
		 * entries and no loan are in use, so a loan failing means a refused take stranded a
		 * slot. (A refused entry may stay queued: then the publish finds the queue full.)
		 */
		int r = zcast_loan(p, 64, &m);
		if (r != 0) {
			fprintf(stderr,
				"FAIL: round %d: loan %d (%s) after %d refused takes: stranded\n",
				i, r, zcast_last_error(), refused);
			zt_fail();
		}
		int pr = zcast_publish(p, m);
		if (pr != 0) {
			CHECK_EQ(pr, ZCAST_EAGAIN);
			zcast_msg_drop(m);
		}
		r = zcast_take(s, &m);
		if (r == ZCAST_ECORRUPT) {
			refused++;
			continue;
		}
		if (r == ZCAST_EAGAIN && pr != 0)
			continue;
		CHECK_EQ(r, 0);
		size_t size = zcast_msg_size(m), cap = zcast_msg_capacity(m);
		if (size > cap) {
			fprintf(stderr,
				"FAIL: take %d returned a message of size %zu, capacity %zu\n", i,
				size, cap);
			atomic_store(&stop, 1);
			pthread_join(th, NULL);
			zt_fail();
		}
		zcast_msg_drop(m);
		taken++;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("ok %d taken, %d refused as corrupt, none above the capacity\n", taken, refused);
	zcast_sub_close(s);
	zcast_pub_close(p);
	return 0;
}
