/* The topic lock: a futex word owned by a member index.
 *
 * Why not a glibc robust mutex: glibc asserts on a corrupted (PI) owner word, and a TID owner does
 * not work across PID namespaces. Here the word names the owner's member record; the owner's liveness
 * is its OFD byte lock, which the kernel drops when the process dies. A waiter that waits longer than
 * a probe interval checks the owner; a dead (or impossible) owner is replaced by one CAS, and the
 * winner repairs the topic. No path aborts or waits without bound. */
#include "internal.h"

#define PROBE_INTERVAL_NS 2000000 /* 2 ms: a live holder's critical section is microseconds */

int zc_lock_acquire(struct zc_topic *t, int64_t timeout_ns)
{
	_Atomic uint32_t *w = &t->hdr->lock.word;
	const uint32_t self = t->member + 1;
	uint32_t v = 0;
	if (atomic_compare_exchange_strong_explicit(w, &v, self, memory_order_acquire,
						    memory_order_relaxed))
		return 0;

	int64_t now = zc_now_ns();
	const int64_t deadline = timeout_ns < 0 ? INT64_MAX : now + timeout_ns;
	int64_t next_probe = now + PROBE_INTERVAL_NS;
	for (int spins = 0;; spins++) {
		v = atomic_load_explicit(w, memory_order_relaxed);
		if (v == 0) {
			/* Keep the waiters bit if others may sleep: a spurious wake is harmless. */
			uint32_t want = self | (spins ? ZC_LOCK_WAITERS : 0);
			if (atomic_compare_exchange_strong_explicit(w, &v, want, memory_order_acquire,
								    memory_order_relaxed))
				return 0;
			continue;
		}
		if (spins < 64) {
			zc_cpu_relax();
			continue;
		}
		now = zc_now_ns();
		uint32_t owner = (v & ~ZC_LOCK_WAITERS) - 1;
		/* A word naming a live member that does not hold the lock (corruption) is not healed:
		 * lockers time out cleanly. Stealing from a live owner could make two holders. */
		bool bogus = owner >= t->n_members;
		if (now >= next_probe || bogus) {
			if (bogus || (owner != t->member && !zc_member_alive(t, owner))) {
				/* Owner is dead or the word is garbage: take over and repair. */
				if (atomic_compare_exchange_strong_explicit(w, &v, self | ZC_LOCK_WAITERS,
									    memory_order_acquire,
									    memory_order_relaxed))
					return ZC_LOCK_OWNER_DEAD;
				continue;
			}
			next_probe = now + PROBE_INTERVAL_NS;
		}
		if (now >= deadline)
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: lock held by member %u", t->name, owner);
		if (!(v & ZC_LOCK_WAITERS) &&
		    !atomic_compare_exchange_strong_explicit(w, &v, v | ZC_LOCK_WAITERS,
							     memory_order_relaxed, memory_order_relaxed))
			continue;
		int64_t until = next_probe < deadline ? next_probe : deadline;
		zc_futex_wait(w, v | ZC_LOCK_WAITERS, until);
	}
}

void zc_lock_release(struct zc_topic *t)
{
	uint32_t old = atomic_exchange_explicit(&t->hdr->lock.word, 0, memory_order_release);
	if (old & ZC_LOCK_WAITERS)
		zc_futex_wake(&t->hdr->lock.word, 1);
}
