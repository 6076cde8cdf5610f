/* The guard slice's check of a subscriber's wake-up state (docs/CRASH_SAFETY.md, "Hostile wake-up
 * state"). A member can rewrite another's record: zero `sleepers` (publishers then see nobody to
 * wake) or forge `woken` (publishers then believe the wake done). A sleeper whose guard slice ran
 * out, still announced, looks at both: its own announcement must be counted, and no wake can be
 * marked for an epoch that has not begun or for its own sleep that never came. It repairs what it
 * can and shortens its next slices while it sees tampering; its re-check of the queue after the
 * slice is what delivers a queued message either way. */
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#ifdef ZCAST_FAULT_INJECTION
bool zc_guard_off(void)
{
	static _Atomic int off = -1; /* read once: the tests never change the environment later */
	int v = atomic_load_explicit(&off, memory_order_relaxed);
	if (v < 0) {
		const char *e = getenv("ZCAST_NO_GUARD_SLICE");
		v = e && strcmp(e, "1") == 0;
		atomic_store_explicit(&off, v, memory_order_relaxed);
	}
	return v;
}
#endif

bool zc_sub_guard_check(zcast_sub *s)
{
	struct zc_sub_rec *r = s->rec;
	bool bad = false;
	uint64_t x = atomic_load_explicit(&r->sleepers, memory_order_seq_cst);
	if (ZC_SLEEPERS(x) == 0) {
		/* We are announced: the count was zeroed. Counted again in a new epoch, so that our
		 * disarm brings it back to what it was, never below zero. */
		bad = true;
		if (atomic_compare_exchange_strong(&r->sleepers, &x, x + ZC_ANNOUNCE))
			x += ZC_ANNOUNCE;
	}
	uint64_t w = atomic_load_explicit(&r->woken, memory_order_seq_cst);
	if (w > ZC_SLEEP_EPOCH(x)) {
		/* A wake marked for an epoch not begun yet: forged. Cleared, or our future sleep
		 * of that epoch would be skipped. A lock holder's later mark makes the CAS fail. */
		bad = true;
		atomic_compare_exchange_strong(&r->woken, &w, 0);
	} else if (w == ZC_SLEEP_EPOCH(x)) {
		/* Our sleep's wake marked, but it never came in a whole slice: forged, or a
		 * publisher killed between mark and wake (the owed wake repairs that). The next
		 * announce starts a new epoch, which the forged mark does not cover. */
		bad = true;
	}
	atomic_store_explicit(&s->wake_tampered, bad, memory_order_relaxed);
	return bad;
}
