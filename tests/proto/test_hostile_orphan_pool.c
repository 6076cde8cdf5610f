/* Issue 10, finding 2: reclaim of a dead publisher's pool must read the publisher record's `pool`
 * index once. Here a publisher is killed while a subscriber holds one of its messages; a child then
 * runs zcast_topic_gc again and again (re-arming the dead publisher's record as ACTIVE before each
 * call, as a hostile member could), while a scribbler thread flips that record's `pool` between the
 * real index, an index 64 MiB past the pool records and an index that lands in an unused ring
 * holding a canary. Required: the gc child never crashes and nothing is written into the canary. */
#include "zt_hostile.h"

#define TOPIC "/hostile/orphan"
#define ROUNDS ZT_SCRIBBLE_ROUNDS(40000)
#define CANARY 0x5a5a5a5a5a5a5a5aull

struct pub_args {
	int ready_w, go_r; /* publishes once the parent's subscriber joined (go) */
};

static int publisher_main(void *a_)
{
	struct pub_args *a = a_;
	char c;
	if (read(a->go_r, &c, 1) != 1)
		return 1;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	zt_publish(p, 1, 64);
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

static struct zc_topic_hdr *h;
static struct zc_pub_rec *dead;
static struct zc_pool_rec *pools;
static uint32_t real_pool, dead_index, canary_index;
static atomic_int stop;

static void *scribbler(void *arg)
{
	(void)arg;
	volatile uint32_t *pool = &dead->pool;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		*pool = real_pool;
		*pool = 0x100000;
		*pool = real_pool;
		*pool = canary_index;
	}
	return NULL;
}

/* What the gc child needs from the parent's setup, sent through a pipe. */
struct gc_setup {
	uint32_t real_pool, dead_index;
};

static void find_records(void)
{
	h = zt_map_topic(TOPIC, NULL);
	dead = (struct zc_pub_rec *)((char *)h + h->off_pubs) + dead_index;
	pools = (struct zc_pool_rec *)((char *)h + h->off_pools);
}

/* Forked before the parent opens anything: a child forked while library threads run may inherit a
 * sanitizer allocator lock held by one of them (ASan's allocator is not fork-safe). */
static int gc_main(void *arg)
{
	int *go = arg;
	struct gc_setup su;
	if (read(go[0], &su, sizeof su) != (ssize_t)sizeof su)
		return 1;
	real_pool = su.real_pool;
	dead_index = su.dead_index;
	find_records();
	int reclaimed = 0;
	for (int i = 0; i < ROUNDS; i++) {
		/* Re-arm: the dead publisher looks ACTIVE with an ACTIVE pool again. */
		atomic_store(&pools[real_pool].state, ZC_POOL_ACTIVE);
		pools[real_pool].owner = dead_index;
		atomic_store(&dead->state, ZC_REC_ACTIVE);
		int r = zcast_topic_gc(NULL, TOPIC);
		CHECK(r >= 0 || (r < 0 && r >= ZCAST_EBUSY));
		reclaimed += r > 0;
	}
	printf("%d of %d gc calls reclaimed the dead publisher\n", reclaimed, ROUNDS);
	CHECK(reclaimed > 0);
	return 0;
}

int main(void)
{
	zt_setup("horphan", 280);
	int go[2];
	CHECK_EQ(pipe(go), 0);
	pid_t gc = zt_fork(gc_main, go);
	int ready[2], pub_go[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(pub_go), 0);
	struct pub_args a = {ready[1], pub_go[0]};
	pid_t pub = zt_fork(publisher_main, &a);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 4;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	zt_signal(pub_go[1]);
	zt_await(ready[0]);
	zcast_msg *held;
	CHECK_EQ(zcast_take(s, &held), 0); /* keeps a slot PUBLISHED: the pool stays */

	h = zt_map_topic(TOPIC, NULL);
	struct zc_pub_rec *pubs = (struct zc_pub_rec *)((char *)h + h->off_pubs);
	for (uint32_t i = 0; i < h->max_pubs && !dead; i++)
		if (atomic_load(&pubs[i].state) == ZC_REC_ACTIVE)
			dead = &pubs[i], dead_index = i;
	CHECK(dead != NULL);
	real_pool = dead->pool;
	CHECK(real_pool < h->max_pools);
	pools = (struct zc_pool_rec *)((char *)h + h->off_pools);
	/* The last ring (no subscriber uses it) holds the canary; canary_index names a pool record
	 * inside it. */
	_Atomic uint64_t *canary = zt_ring(h, h->max_subs - 1);
	for (uint32_t i = 0; i < h->max_depth; i++)
		atomic_store(&canary[i], CANARY);
	canary_index = (uint32_t)(((char *)canary - (char *)pools) / sizeof *pools) + 1;

	kill(pub, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(pub)), SIGKILL);

	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, scribbler, NULL), 0);
	struct gc_setup su = {real_pool, dead_index};
	CHECK_EQ(write(go[1], &su, sizeof su), (ssize_t)sizeof su);
	int st = zt_wait_bounded(gc, 250000, "gc under a pool index scribbler");
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "FAIL: the gc process was killed by signal %d (%s)\n", WTERMSIG(st),
			strsignal(WTERMSIG(st)));
		zt_fail();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (uint32_t i = 0; i < h->max_depth; i++) {
		if (atomic_load(&canary[i]) != CANARY) {
			fprintf(stderr,
				"FAIL: reclaim wrote %016llx into cell %u of an unused ring\n",
				(unsigned long long)atomic_load(&canary[i]), i);
			zt_fail();
		}
	}
	dead->pool = real_pool;
	zcast_msg_drop(held);
	zcast_sub_close(s);
	printf("ok %d reclaims under the scribbler\n", ROUNDS);
	return 0;
}
