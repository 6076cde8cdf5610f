/* The topic lock: a futex word owned by a member index, with an epoch (layout.h).
 *
 * Why not a glibc robust mutex: glibc asserts on a corrupted (PI) owner word, and a TID owner does
 * not work across PID namespaces. Here the word names the owner's member record; the owner's
 * liveness is its OFD byte lock, which the kernel drops when the process dies. A waiter that waits
 * longer than a probe interval checks the owner; a dead (or impossible) owner is replaced by one
 * CAS on the whole word, epoch included, so it cannot hit a later holder of the same record. No
 * path aborts or waits without bound. */
#include "proto_internal.h"

#define PROBE_INTERVAL_NS 2000000 /* 2 ms: a live holder's critical section is microseconds */
#define ZC_LOCK_PROGRESS_CAP 8

_Atomic uint32_t *zc_lock_futex(struct zc_topic_hdr *h)
{
	/* The low half of the 64-bit word: owner and waiters bit. */
	uint32_t one = 1;
	bool little = *(uint8_t *)&one == 1;
	return (_Atomic uint32_t *)((char *)&h->lock.word + (little ? 0 : 4));
}

/* The lock word without its waiters bit: who holds it, and since which acquisition. */
static uint64_t holder(uint64_t w)
{
	return w & ~(uint64_t)ZC_LOCK_WAITERS;
}

static bool take(struct zc_topic *t, uint64_t *seen, uint32_t low)
{
	uint64_t want = ZC_LOCK_MAKE(ZC_LOCK_EPOCH(*seen) + 1u, low);
	if (!atomic_compare_exchange_strong_explicit(&t->hdr->lock.word, seen, want,
						     memory_order_acquire, memory_order_relaxed))
		return false;
	t->lock_held = holder(want); /* under lock_mu: release checks the word still says so */
	return true;
}

static int acquire(struct zc_topic *t, int64_t timeout_ns, const struct zc_wword *stop);

/* t->lock_mu: 0 free, 1 held, 2 held and maybe waited for. Lighter than a pthread mutex on the
 * path every publish takes (one CAS to lock, one exchange to unlock, no syscall unless our own
 * threads contend). */
static void local_lock(_Atomic uint32_t *mu)
{
	uint32_t c = 0;
	if (atomic_compare_exchange_strong_explicit(mu, &c, 1, memory_order_acquire,
						    memory_order_relaxed))
		return;
	if (c != 2)
		c = atomic_exchange_explicit(mu, 2, memory_order_acquire);
	while (c != 0) {
		zc_futex_wait_private(mu, 2, -1);
		c = atomic_exchange_explicit(mu, 2, memory_order_acquire);
	}
}

static void local_unlock(_Atomic uint32_t *mu)
{
	if (atomic_exchange_explicit(mu, 0, memory_order_release) == 2)
		zc_futex_wake_private(mu, 1);
}

ZC_HOT int zc_lock_acquire(struct zc_topic *t, int64_t timeout_ns, const struct zc_wword *stop)
{
	local_lock(&t->lock_mu);
	int r = acquire(t, timeout_ns, stop);
	if (r < 0)
		local_unlock(&t->lock_mu);
	else
		ZC_PAUSE("lock:held"); /* tests: the word changes under a holder (test_lock_release_owner) */
	return r;
}

/* Has the caller called the wait off (its stop word moved)? */
static bool stopped(const struct zc_wword *stop)
{
	/* SYNC: lock-stop: read before each sleep, which also compares it; partner
	 * core/pub.c zcast_pub_close's store then wake. */
	return stop && atomic_load_explicit(stop->word, memory_order_seq_cst) != stop->val;
}

/* Sleeps on the lock word, and on the caller's stop word if any: the one who changes it wakes
 * us at once, in the middle of a try, not at its timeout. */
static void sleep_on(struct zc_topic *t, uint32_t low, const struct zc_wword *stop, int64_t until)
{
	struct zc_wword w[2] = {{zc_lock_futex(t->hdr), low, 0}, {0}};
	if (stop)
		w[1] = *stop;
	zc_wait_words(w, stop ? 2 : 1, until);
}

static int acquire(struct zc_topic *t, int64_t timeout_ns, const struct zc_wword *stop)
{
	_Atomic uint64_t *w = &t->hdr->lock.word;
	const uint32_t self = t->member + 1;
	uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
	if (ZC_LOCK_LOW(v) == 0 && take(t, &v, self))
		return 0;

	int64_t now = zc_now_ns();
	/* The timeout guards against a word that names a live member but does not move (a corrupted
	 * word): it counts from the last change of holder. A lock that moves from holder to holder
	 * is in use, and a locker that keeps losing it on a loaded machine waits on, up to
	 * ZC_LOCK_PROGRESS_CAP timeouts in all (a member that flips the word for ever is bounded). */
	const int64_t cap = timeout_ns < 0 ? INT64_MAX : now + ZC_LOCK_PROGRESS_CAP * timeout_ns;
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : now + timeout_ns;
	int64_t next_probe = now + PROBE_INTERVAL_NS;
	uint64_t last_holder = holder(v);
	for (int spins = 0;; spins++) {
		v = atomic_load_explicit(w, memory_order_relaxed);
		uint32_t low = ZC_LOCK_LOW(v);
		if (timeout_ns >= 0 && holder(v) != last_holder) {
			last_holder = holder(v);
			int64_t again = zc_now_ns() + timeout_ns;
			deadline = again < cap ? again : cap;
		}
		if (low == 0) {
			/* Keep the waiters bit if others may sleep: a spurious wake is harmless. */
			if (take(t, &v, self | (spins ? ZC_LOCK_WAITERS : 0)))
				return 0;
			continue;
		}
		if (spins < 64) {
			zc_cpu_relax();
			continue;
		}
		now = zc_now_ns();
		uint32_t owner = (low & ~ZC_LOCK_WAITERS) - 1;
		/* A word naming a live member that does not hold the lock (corruption) is not
		 * healed: lockers time out cleanly. Stealing from a live owner could make two
		 * holders. */
		bool bogus = owner >= t->n_members;
		/* Our own index, and no other thread of ours can hold it (lock_mu): a dead former owner
		 * of our record. */
		bool stale_self = owner == t->member;
		if (now >= next_probe || bogus || stale_self) {
			if (bogus || stale_self || !zc_member_alive(t, owner)) {
				/* Owner is dead or the word is garbage: take over and repair. The
				 * CAS compares the epoch read before the probe: a newer holder
				 * fails it. */
				if (take(t, &v, self | ZC_LOCK_WAITERS))
					return ZC_LOCK_OWNER_DEAD;
				continue;
			}
			next_probe = now + PROBE_INTERVAL_NS;
		}
		if (now >= deadline)
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: lock held by member %u", t->name,
				      owner);
		if (stopped(stop))
			return zc_err(ZCAST_ESTALE,
				      "topic %s: the wait for its lock was called off", t->name);
		if (!(low & ZC_LOCK_WAITERS)) {
			uint64_t with = v | ZC_LOCK_WAITERS;
			if (!atomic_compare_exchange_strong_explicit(
				w, &v, with, memory_order_relaxed, memory_order_relaxed))
				continue;
			low |= ZC_LOCK_WAITERS;
		}
		int64_t until = next_probe < deadline ? next_probe : deadline;
		sleep_on(t, low, stop, until);
	}
}

ZC_HOT void zc_lock_release(struct zc_topic *t)
{
	_Atomic uint64_t *w = &t->hdr->lock.word;
	uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
	/* Keep the epoch, clear owner and waiters: only while the word still names our acquisition.
	 * If a locker took it over (it judged us dead) or a member scribbled on it, clearing it would
	 * free a lock somebody else holds; leaving it alone at worst makes lockers probe and repair. */
	bool ours;
	while ((ours = holder(v) == t->lock_held) &&
	       !atomic_compare_exchange_weak_explicit(w, &v, ZC_LOCK_MAKE(ZC_LOCK_EPOCH(v), 0),
						      memory_order_release, memory_order_relaxed)) {
	}
	if (ours && (ZC_LOCK_LOW(v) & ZC_LOCK_WAITERS))
		zc_futex_wake(zc_lock_futex(t->hdr), 1);
	local_unlock(&t->lock_mu);
}
