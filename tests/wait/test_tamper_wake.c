/* Hostile wake-up state (issue 22, item 3): a member rewrites another's wake-up state while it
 * sleeps without a timeout — zeroes `sleepers` or forges `woken` in its subscriber record (a
 * zcast_wait), clears the doorbell reference in its record, or sets `closed`, clears `sleeping` or
 * forges `woken` (delivered) in its doorbell file (a wait set on two subscriptions). Then a message
 * is published: the sleeper must return with it (its guard slice re-checks the queue and repairs the
 * state). Then the attack stops (the field gets its old value back) and a second message must be
 * delivered too. Before the guard slices each attack left the waiter asleep beside the message for
 * good (the watchdog failed the test). No timing is asserted: only that the messages arrive. */
#include <stdbool.h>

#include "zt_hostile.h"
#include "zcast/waitset.h"

enum attack { SLEEPERS, WOKEN, BELL_REF, BELL_CLOSED, BELL_SLEEPING, BELL_WOKEN, N_ATTACKS };
static const char *names[N_ATTACKS] = {"sleepers zeroed", "woken forged", "doorbell ref cleared",
				       "doorbell closed", "doorbell sleeping cleared",
				       "doorbell woken forged"};

static int attack_now;
static int to_parent[2];
static char topic_a[64], topic_b[64];

static bool on_bell(int a)
{
	return a >= BELL_REF;
}

/* The child: a zcast_wait(-1), or a wait set on A and B (its doorbell), for two messages on A. */
static int waiter(void *arg)
{
	(void)arg;
	zcast_sub *a = zt_open_sub(topic_a, ZCAST_POLICY_FULL, 8);
	zcast_sub *b = NULL;
	zcast_waitset *ws = NULL;
	if (on_bell(attack_now)) {
		b = zt_open_sub(topic_b, ZCAST_POLICY_FULL, 8);
		CHECK_EQ(zcast_waitset_create(&ws), 0);
		int id;
		CHECK_EQ(zcast_waitset_add_sub(ws, a, NULL, &id), 0);
		CHECK_EQ(zcast_waitset_add_sub(ws, b, NULL, &id), 0);
	}
	zt_signal(to_parent[1]);
	for (int got = 0; got < 2;) {
		if (ws) {
			zcast_ws_event ev[4];
			CHECK(zcast_waitset_wait(ws, -1, ev, 4) > 0);
		} else {
			CHECK_EQ(zcast_wait(a, -1), 0);
		}
		int n = zt_drain(a);
		got += n;
		for (int i = 0; i < n; i++)
			zt_signal(to_parent[1]);
	}
	if (ws)
		zcast_waitset_destroy(ws);
	zcast_sub_close(b);
	zcast_sub_close(a);
	return 0;
}

static struct zc_sub_rec *only_sub(struct zc_topic_hdr *h)
{
	struct zc_sub_rec *subs = (struct zc_sub_rec *)((char *)h + h->off_subs);
	for (uint32_t k = 0; k < h->max_subs; k++)
		if (atomic_load(&subs[k].state) != ZC_REC_FREE)
			return &subs[k];
	return NULL;
}

/* The field the attack rewrites (64 or 32 bits), and whether the victim sleeps on it now. */
struct target {
	struct zc_sub_rec *r;
	struct zc_bell_hdr *bell;
};

static bool asleep(const struct target *t, int a)
{
	if (on_bell(a))
		return atomic_load(&t->bell->sleeping) == 1;
	return ZC_SLEEPERS(atomic_load(&t->r->sleepers)) >= 1;
}

static uint64_t strike(const struct target *t, int a)
{
	uint64_t old;
	switch (a) {
	case SLEEPERS:
		old = atomic_load(&t->r->sleepers);
		atomic_store(&t->r->sleepers, old & ~0xffffull);
		return old;
	case WOKEN:
		old = atomic_load(&t->r->woken);
		atomic_store(&t->r->woken, ZC_SLEEP_EPOCH(atomic_load(&t->r->sleepers)));
		return old;
	case BELL_REF:
		return atomic_exchange(&t->r->bell, 0);
	case BELL_CLOSED:
		return atomic_exchange(&t->bell->closed, 1);
	case BELL_SLEEPING:
		return atomic_exchange(&t->bell->sleeping, 0);
	default: {
		uint32_t w = atomic_load(&t->bell->woken);
		atomic_store(&t->bell->woken, (w & ~3u) | ZC_BELL_DELIVERED);
		return w;
	}
	}
}

static void restore(const struct target *t, int a, uint64_t old)
{
	switch (a) {
	case SLEEPERS: atomic_store(&t->r->sleepers, old); break;
	case WOKEN: atomic_store(&t->r->woken, old); break;
	case BELL_REF: atomic_store(&t->r->bell, old); break;
	case BELL_CLOSED: atomic_store(&t->bell->closed, (uint32_t)old); break;
	case BELL_SLEEPING: atomic_store(&t->bell->sleeping, (uint32_t)old); break;
	default: atomic_store(&t->bell->woken, (uint32_t)old); break;
	}
}

static void run_attack(int a)
{
	attack_now = a;
	snprintf(topic_a, sizeof topic_a, "/tamper/a%d", a);
	snprintf(topic_b, sizeof topic_b, "/tamper/b%d", a);
	CHECK_EQ(pipe(to_parent), 0);
	zcast_pub *p = zt_open_pub(topic_a, 256, 8);
	zcast_pub *pb = zt_open_pub(topic_b, 256, 8);
	pid_t pid = zt_fork(waiter, NULL);
	zt_await(to_parent[0]);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(topic_a, &size);
	struct target t = {only_sub(h), NULL};
	CHECK(t.r);
	struct zt_map bm = {NULL, 0};
	if (on_bell(a)) {
		ZT_EVENTUALLY(atomic_load(&t.r->bell) != 0);
		char path[96];
		zt_bell_path(path, sizeof path, atomic_load(&t.r->bell));
		bm = zt_map_path(path);
		t.bell = bm.p;
	}
	ZT_EVENTUALLY(asleep(&t, a));
	zt_sleep_ms(20); /* past its last check: in the futex */
	uint64_t old = strike(&t, a);
	zt_publish(p, 1, 64);
	zt_await(to_parent[0]); /* delivered despite the attack */
	restore(&t, a, old); /* the attack stops */
	zt_sleep_ms(20);
	zt_publish(p, 2, 64);
	zt_await(to_parent[0]); /* and after it */
	zt_child_ok_within(pid, 60000, names[a]);
	if (bm.p)
		munmap(bm.p, bm.size);
	munmap(h, size);
	close(to_parent[0]);
	close(to_parent[1]);
	zcast_pub_close(pb);
	zcast_pub_close(p);
	printf("ok %s\n", names[a]);
}

int main(int argc, char **argv)
{
	zt_setup("tamper_wake", 240);
	int only = argc > 1 ? atoi(argv[1]) : -1; /* one attack (checking the library before) */
	for (int a = 0; a < N_ATTACKS; a++)
		if (only < 0 || a == only)
			run_attack(a);
	return 0;
}
