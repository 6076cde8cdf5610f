/* Guards: user triggers that wake wait sets (docs/WAITSETS.md, "Guards and the doorbell").
 *
 * A wait set with a doorbell attaches a guard through a link (wait_internal.h): a trigger sets the
 * link's `fired` flag and the wait set's bit in its doorbell, and wakes the doorbell only if its
 * owner sleeps, like a publisher does. So the wait set sleeps on its doorbell word alone. Wait sets
 * without a doorbell sleep on the guard's own process-private futex word, with the same announce
 * handshake as subscribers: a trigger makes a syscall only when a wait set sleeps on the guard.
 *
 * A trigger takes no lock (it may run in a signal handler): it walks the list of links, which only
 * grows, and pins each link (`users`) while it uses the doorbell the link names. A detach clears
 * the link's doorbell and waits until no trigger pins it, so the doorbell's reference can be let go
 * and the link reused without a trigger touching a doorbell that is gone. */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "doorbell.h"
#include "wait_internal.h"

int zcast_guard_create(zcast_guard **out)
{
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	zcast_guard *g = calloc(1, sizeof *g);
	if (!g)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	pthread_mutex_init(&g->mu, NULL);
	*out = g;
	return 0;
}

void zcast_guard_destroy(zcast_guard *g)
{
	if (!g)
		return;
	struct zc_guard_link *l = atomic_load(&g->links);
	while (l) {
		struct zc_guard_link *next = l->next;
		if (atomic_load(&l->bell)) /* still attached (a wait set not removed it): let go */
			zc_guard_unlink(g, l);
		free(l);
		l = next;
	}
	pthread_mutex_destroy(&g->mu);
	free(g);
}

struct zc_guard_link *zc_guard_link(zcast_guard *g, struct zc_bell *b, uint32_t bit)
{
	pthread_mutex_lock(&g->mu);
	struct zc_guard_link *l = atomic_load(&g->links);
	while (l && l->claimed)
		l = l->next;
	if (!l && (l = calloc(1, sizeof *l))) {
		l->next = atomic_load(&g->links);
		atomic_store_explicit(&g->links, l, memory_order_release);
	}
	if (l) {
		l->claimed = true;
		l->bit = bit;
		l->fork_gen = atomic_load(&zc_fork_generation);
		atomic_store(&l->fired, 0);
		atomic_fetch_add(&b->refs, 1);
		atomic_store_explicit(&l->bell, b, memory_order_seq_cst); /* bit and gen before */
	}
	pthread_mutex_unlock(&g->mu);
	return l;
}

void zc_guard_unlink(zcast_guard *g, struct zc_guard_link *l)
{
	/* SYNC: guard-link; partner wait/guard.c ring_links */
	struct zc_bell *b = atomic_exchange_explicit(&l->bell, NULL, memory_order_seq_cst);
	/* A trigger pins, then reads `bell`; we clear, then read the pins: one sees the other. */
	while (atomic_load_explicit(&l->users, memory_order_seq_cst))
		sched_yield(); /* a trigger between two loads and a store (and maybe a wake) */
	bool ours = l->fork_gen == atomic_load(&zc_fork_generation);
	pthread_mutex_lock(&g->mu);
	if (atomic_exchange(&l->fired, 0)) /* not reported: the next wait set to attach reports it */
		atomic_store(&g->pending, 1);
	l->claimed = false;
	pthread_mutex_unlock(&g->mu);
	if (b && ours) /* a forked child's copy names a mapping it does not have: left alone */
		zc_bell_put(b);
}

/* Rings the doorbell of every wait set with a doorbell the guard is attached to. */
static void ring_links(zcast_guard *g)
{
	unsigned gen = atomic_load_explicit(&zc_fork_generation, memory_order_relaxed);
	for (struct zc_guard_link *l = atomic_load_explicit(&g->links, memory_order_acquire); l;
	     l = l->next) {
		/* SYNC: guard-link; partner wait/guard.c zc_guard_unlink */
		atomic_fetch_add_explicit(&l->users, 1, memory_order_seq_cst);
		struct zc_bell *b = atomic_load_explicit(&l->bell, memory_order_seq_cst);
		if (b && l->fork_gen == gen) {
			/* fired before the bit: a wait set that takes the bit finds it */
			atomic_store_explicit(&l->fired, 1, memory_order_seq_cst);
			uint32_t claim;
			if (zc_bell_set(b, l->bit) && zc_bell_must_wake(b, &claim)) {
				zc_bell_bump(b);
				zc_bell_wake(b);
				if (claim)
					zc_bell_delivered(b, claim);
			}
		}
		atomic_fetch_sub_explicit(&l->users, 1, memory_order_seq_cst);
	}
}

int zcast_guard_trigger(zcast_guard *g)
{
	if (!g)
		return ZCAST_EINVAL; /* no zc_err: async-signal-safe path */
	int saved_errno = errno; /* a signal handler must leave errno as it found it */
	/* The links first: a detach that came before we reached a link leaves it out, and `pending`
	 * (set after) carries this trigger to the next wait set attached. */
	ring_links(g);
	/* pending before the bump, the bump before the waiter check: a wait set that announced itself
	 * after our check re-checks `pending` and sees it (all seq_cst). */
	/* SYNC: guard-wait: pending, bump, then read waiters; partner wait/ws_wait.c arm */
	atomic_store_explicit(&g->pending, 1, memory_order_seq_cst);
	atomic_fetch_add_explicit(&g->word, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&g->waiters, memory_order_seq_cst))
		zc_futex_wake_private(&g->word, INT32_MAX);
	errno = saved_errno;
	return 0;
}
