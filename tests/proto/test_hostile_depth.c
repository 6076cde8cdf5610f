/* Issue 10, finding 2: a member rewriting a subscriber record's `depth` and `tail` while a
 * publisher publishes must not crash the publisher (SIGFPE on `% 0`, SIGSEGV on a store far past
 * the ring) nor make it write outside that subscriber's ring.
 *
 * The publisher runs in a child and publishes in a loop to a DROP_OLD subscriber of depth 1 (every
 * publish drops and pushes). A scribbler thread of the test flips that record's depth between 1, 0
 * and 0x7fffffff and its tail between sane values, 0x100000 (8 MiB past the ring) and a value that
 * makes `ring[tail % depth]` land in the ring of an unused record, which holds a canary. Required:
 * the publisher exits normally, every publish returns 0 or a negative code, the canary is intact.
 */
#include "zt_hostile.h"

#define TOPIC "/hostile/depth"
#define PUBLISHES 200000
#define CANARY 0xa5a5a5a5a5a5a5a5ull

static int publisher_main(void *arg)
{
	(void)arg;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 8);
	for (int i = 0; i < PUBLISHES; i++) {
		zcast_msg *m;
		int r = zcast_loan(p, 64, &m);
		if (r != 0) {
			CHECK(r < 0 && r >= ZCAST_EBUSY);
			continue;
		}
		r = zcast_publish(p, m);
		CHECK(r <= 0 && r >= ZCAST_EBUSY);
		if (r != 0)
			zcast_msg_drop(m);
	}
	zcast_pub_close(p);
	return 0;
}

static struct zc_sub_rec *victim;
static uint64_t canary_tail; /* with depth 0x7fffffff, ring[canary_tail] is in the canary ring */
static atomic_int stop;

static void *scribbler(void *arg)
{
	(void)arg;
	volatile uint32_t *depth = &victim->depth;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		*depth = 1;
		*depth = 0;
		*depth = 1;
		*depth = 0x7fffffff;
		atomic_store_explicit(&victim->tail, 0x100000, memory_order_relaxed);
		*depth = 1;
		*depth = 0x7fffffff;
		atomic_store_explicit(&victim->tail, canary_tail, memory_order_relaxed);
		*depth = 1;
		atomic_store_explicit(&victim->tail, ZC_HEAD_POS(atomic_load(&victim->head)) + 1,
				      memory_order_relaxed);
	}
	return NULL;
}

int main(void)
{
	zt_setup("hdepth", 120);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 1);

	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	victim = zt_sub_rec(h, zcast_sub_id(s));
	CHECK(victim != NULL);
	uint32_t k = zt_sub_index(h, victim), last = h->max_subs - 1;
	CHECK(k < last);
	_Atomic uint64_t *canary = zt_ring(h, last);
	for (uint32_t i = 0; i < h->max_depth; i++)
		atomic_store(&canary[i], CANARY);
	canary_tail = (uint64_t)(last - k) * h->max_depth + 3;

	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, scribbler, NULL), 0);
	pid_t pub = zt_fork(publisher_main, NULL);
	int st = zt_wait_bounded(pub, 100000, "publisher under a depth/tail scribbler");
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "FAIL: the publisher was killed by signal %d (%s)\n", WTERMSIG(st),
			strsignal(WTERMSIG(st)));
		zt_fail();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (uint32_t i = 0; i < h->max_depth; i++) {
		if (atomic_load(&canary[i]) != CANARY) {
			fprintf(
			    stderr,
			    "FAIL: the publisher wrote %016llx into cell %u of an unused ring\n",
			    (unsigned long long)atomic_load(&canary[i]), i);
			zt_fail();
		}
	}
	/* Sane values again before the subscriber leaves (its close is not under test here). */
	victim->depth = 1;
	atomic_store(&victim->tail, ZC_HEAD_POS(atomic_load(&victim->head)));
	zcast_sub_close(s);
	printf("ok %d publishes under the scribbler\n", PUBLISHES);
	return 0;
}
