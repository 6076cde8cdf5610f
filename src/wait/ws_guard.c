/* A wait set's guard slice (docs/WAITSETS.md, "Hostile members"): when a sleep ran out of its
 * guard slice, still armed, the wait set looks at what other members can rewrite. Its doorbell
 * file: `closed` set (ringers let go of it), `sleeping` cleared or `woken` forged (ringers skip the
 * wake). Its entries' records: the doorbell reference cleared or changed (publishers ring nothing),
 * and each armed subscription's own announcement (core/sub_guard.c). It repairs what it finds, and
 * queues every belled entry for a check of its queue: a message whose ring was never rung is found
 * there. While it sees tampering, its next slices are short. */
#include "waitset_internal.h"

/* The doorbell while we sleep on it: open, `sleeping` set, `woken` in our epoch and not claimed or
 * delivered (a real wake ends the sleep before the slice does). Repairs `closed`. */
static bool bell_tampered(zcast_waitset *ws)
{
	struct zc_bell_hdr *h = ws->bell.b->hdr;
	bool bad = false;
	if (atomic_load(&h->closed)) {
		atomic_store(&h->closed, 0); /* we live: ringers must not let go of it */
		bad = true;
	}
	if (!ws->bell_armed)
		return bad;
	uint32_t w = atomic_load(&h->woken);
	if (atomic_load(&h->sleeping) != 1 ||
	    w != ZC_BELL_WOKEN(ws->bell_epoch, ZC_BELL_FREE))
		bad = true; /* the next arm writes both afresh */
	return bad;
}

/* A belled subscription's record must name our doorbell (nothing while it is quiet). */
static bool ref_tampered(struct ws_entry *e)
{
	if (e->kind != ZCAST_WS_SUB || !e->belled || zc_inherited(&e->sub->t))
		return false;
	uint64_t want = e->quiet ? 0 : e->bell_ref;
	uint64_t ref = atomic_load(&e->sub->rec->bell);
	if (ref == want || e->quiet)
		return false; /* a quiet record's reference only costs its ringer a check */
	atomic_compare_exchange_strong(&e->sub->rec->bell, &ref, want);
	return true;
}

void ws_guard_check(zcast_waitset *ws)
{
	bool bad = ws->bell.b && bell_tampered(ws);
	for (int i = 0; i < ws->n; i++) {
		struct ws_entry *e = &ws->e[i];
		if (!e->kind)
			continue;
		if (e->kind == ZCAST_WS_SUB && e->armed && zc_sub_guard_check(e->sub))
			bad = true;
		if (ref_tampered(e))
			bad = true;
		if (e->belled && e->kind == ZCAST_WS_SUB && !e->quiet)
			ws_make_hot(ws, e); /* its queue checked whatever its bit says */
	}
	ws->wake_tampered = bad;
}
