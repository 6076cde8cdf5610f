/* Wake-ups: who sleeps on which word, and the wake that is owed.
 *
 * Subscribers sleep on the topic's `notify` word (RR members on their record's `wake` word, wait
 * sets on their doorbell, doorbell.c),
 * publishers waiting for queue room on `space`, loaners on their pool's `freed` word. A sleeper
 * announces itself before its last check, so a waker pays a syscall only when someone sleeps.
 *
 * A publisher wakes after it unlocked (the wake must not lengthen the lock). Under the lock it
 * marks the wake as owed with a token; after waking it clears the mark by CAS from that token.
 * A locker that finds the same mark at two acquisitions (stale, repair.c), reclaim, and the death
 * watcher's reclaim of a dead publisher (a wake of everybody) perform the wake: a publisher killed
 * between unlock and wake leaves nobody asleep beside a queued message.
 * A spurious wake is harmless; a lost one is not. */
#include <limits.h>

#include "proto_internal.h"
#include "doorbell.h"

/* Releases are many, waits few: the first release that finds announced waiters sets space_woken,
 * bumps `space` and wakes them all; later releases skip the syscall until a waiter announces itself
 * again. A waiter reads `space`, then clears the flag, then announces (all seq_cst, zc_space_arm).
 * A release that finds the flag set by a releaser who set it after that clear knows the bump comes
 * after the waiter's read too: the waiter's sleep returns at once or is woken. */
ZC_HOT void zc_wake_space(struct zc_topic_hdr *h)
{
	/* SYNC: space; partner proto/wake.c zc_space_arm */
	if (!atomic_load_explicit(&h->space_waiters, memory_order_seq_cst))
		return;
	if (atomic_load_explicit(&h->space_woken, memory_order_relaxed) ||
	    atomic_exchange_explicit(&h->space_woken, 1, memory_order_seq_cst))
		return; /* a wake of every announced waiter is on its way */
	atomic_fetch_add_explicit(&h->space, 1, memory_order_seq_cst);
	zc_futex_wake(&h->space, INT_MAX);
}

void zc_wake_space_force(struct zc_topic_hdr *h)
{
	if (atomic_load_explicit(&h->space_waiters, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&h->space, 1, memory_order_seq_cst);
		zc_futex_wake(&h->space, INT_MAX);
	}
}

/* A publisher thread waiting for room counts itself in the topic's space_waiters (so releases know
 * to wake) and in its own record: the topic first on arm and last on disarm. A reclaim of a dead
 * publisher subtracts the record's count, which is never more than that publisher added — a crash
 * between the two steps leaves one count too many (a spurious FUTEX_WAKE per release), never one
 * too few (a lost wake). Without it, a publisher killed while it waited made every later take and
 * release of the topic pay a syscall. */
uint32_t zc_space_arm(struct zc_topic *t, uint32_t pub)
{
	struct zc_topic_hdr *h = t->hdr;
	uint32_t v = atomic_load_explicit(&h->space, memory_order_seq_cst);
	atomic_store_explicit(&h->space_woken, 0, memory_order_seq_cst); /* after reading v */
	/* SYNC: space; partner proto/wake.c zc_wake_space. The publish that follows reads ring heads
	 * seq_cst (ring_has_room), against a take's seq_cst pop then zc_wake_space's read. */
	atomic_fetch_add_explicit(&h->space_waiters, 1, memory_order_seq_cst);
	atomic_fetch_add_explicit(&t->pubs[pub].space_armed, 1, memory_order_relaxed);
	return v;
}

void zc_space_disarm(struct zc_topic *t, uint32_t pub)
{
	atomic_fetch_sub_explicit(&t->pubs[pub].space_armed, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&t->hdr->space_waiters, 1, memory_order_seq_cst);
}

#define MAX_ARMED 65536u /* threads of one publisher: more is a scribbled record */

void zc_space_forget(struct zc_topic *t, uint32_t pub)
{
	uint32_t n = atomic_exchange(&t->pubs[pub].space_armed, 0);
	if (n == 0 || n > MAX_ARMED)
		return;
	_Atomic uint32_t *w = &t->hdr->space_waiters;
	uint32_t v = atomic_load(w);
	while (!atomic_compare_exchange_weak(w, &v, v > n ? v - n : 0))
		;
}

ZC_HOT void zc_wake_all(struct zc_topic *t)
{
	struct zc_topic_hdr *h = t->hdr;
	atomic_fetch_add_explicit(&h->notify, 1, memory_order_seq_cst);
	zc_futex_wake(&h->notify, INT_MAX);
	uint32_t hi = atomic_load(&h->sub_hi);
	struct zc_bell_batch bells = {0};
	for (uint32_t k = 0; k < hi && k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		if (ZC_READ_ONCE(r->policy) == ZCAST_POLICY_BALANCE_RR && ZC_SLEEPERS(atomic_load(&r->sleepers))) {
			atomic_fetch_add(&r->wake, 1);
			zc_futex_wake(&r->wake, INT_MAX);
		}
		/* A wait set's doorbell: its bit says "check this subscriber" (a push whose bit a
		 * killed publisher never set, a member that joined and must be watched). */
		uint64_t bell = atomic_load_explicit(&r->bell, memory_order_relaxed);
		if (bell && atomic_load(&r->state) != ZC_REC_FREE)
			zc_bell_batch_ring(&bells, bell, t->mode);
	}
	zc_bell_batch_wake(&bells); /* one wake per sleeping wait set */
}

ZC_HOT uint64_t zc_wake_owe(struct zc_topic_hdr *h)
{
	/* Under the lock, the only writer of wake_token: a plain increment gives each lock hold its
	 * own token without a locked instruction. The mark needs no fence of its own: whoever
	 * performs an owed wake reads it under the lock (next locker, reclaim, the death watcher's
	 * reclaim), after our unlock (release) or after our death. */
	uint64_t token = atomic_load_explicit(&h->wake_token, memory_order_relaxed) + 1;
	if (token == 0) /* 0 means "nothing owed" */
		token = 1;
	atomic_store_explicit(&h->wake_token, token, memory_order_relaxed);
	/* SYNC: wake-owed: the mark before the wake; partner proto/wake.c zc_wake_owed */
	atomic_store_explicit(&h->wake_owed, token, memory_order_release);
	return token;
}

ZC_HOT void zc_wake_paid(struct zc_topic_hdr *h, uint64_t token)
{
	/* A CAS, not a store: a later publisher's mark must survive our clearing. */
	atomic_compare_exchange_strong(&h->wake_owed, &token, 0);
}

void zc_wake_owed(struct zc_topic *t)
{
	/* SYNC: wake-owed; partner proto/wake.c zc_wake_owe */
	uint64_t token = atomic_load_explicit(&t->hdr->wake_owed, memory_order_seq_cst);
	if (!token)
		return;
	zc_wake_all(t);
	zc_wake_paid(t->hdr, token);
}
