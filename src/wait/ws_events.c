/* Collecting a wait's events: the doorbell's ready set, the entries ready last time ("hot") and
 * those without the doorbell (waitset.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waitset_internal.h"

ZC_HOT static void harvest(zcast_waitset *ws)
{
	/* Quiet (arm_solo): the lone entry is checked by disarm and arm, a bit set meanwhile is a
	 * stale ring; the bits wait until the doorbell is used again. */
	if (!ws->bell.b || ws_quiet_entry(ws))
		return;
	_Atomic uint64_t *bits = ws->bell.b->hdr->bits;
	for (uint32_t w = 0; w < ws->bell_words; w++) {
		if (!atomic_load_explicit(&bits[w], memory_order_relaxed))
			continue;
		uint64_t x = atomic_exchange_explicit(&bits[w], 0, memory_order_seq_cst);
		while (x) {
			int id = (int)(w * 64 + (uint32_t)__builtin_ctzll(x));
			x &= x - 1;
			if (id >= ws->n)
				continue; /* removed since */
			struct ws_entry *e = &ws->e[id];
			if (e->kind == ZCAST_WS_SUB && e->belled && !e->hot) {
				/* A ring may mean a peer joined: its death must be watched too. */
				zc_deaths_rescan(&e->sub->t);
				ws_make_hot(ws, e);
			} else if (e->kind == ZCAST_WS_GUARD && e->belled) {
				ws_make_hot(ws, e); /* `fired` tells (a stale bit finds it clear) */
			}
		}
	}
}


/* Takes a belled guard's trigger: true once per trigger (or several triggers in between). */
static bool guard_fired(struct ws_entry *e)
{
	struct zc_guard_link *l = e->link;
	if (!atomic_load_explicit(&l->fired, memory_order_relaxed) ||
	    !atomic_exchange_explicit(&l->fired, 0, memory_order_seq_cst))
		return false;
	/* The classic flag is only for wait sets without a doorbell; none: it is stale now. */
	if (!atomic_load(&e->guard->classic))
		atomic_store(&e->guard->pending, 0);
	return true;
}

/* The hot entries, oldest first: a ready subscriber is reported and goes to the back
 * (level-triggered: checked again next time), a fired guard is reported and leaves (once per
 * trigger), an entry not ready leaves; beyond `max` they wait in front. */
ZC_HOT static int collect_hot(zcast_waitset *ws, zcast_ws_event *ev, int k, int max)
{
	int keep = 0, done = 0;
	for (int j = 0; j < ws->n_hot; j++) {
		int id = ws->hot[j];
		struct ws_entry *e = &ws->e[id];
		if (k >= max) {
			ws->hot[keep++] = id;
		} else if (e->kind == ZCAST_WS_SUB && e->belled && e->enabled &&
			   zc_sub_ready(e->sub)) { /* at max_held it waits for a release */
			ws_report(ev, &k, e, id);
			ws->tmp[done++] = id;
		} else if (e->kind == ZCAST_WS_GUARD && e->belled && e->enabled && guard_fired(e)) {
			ws_report(ev, &k, e, id);
			e->hot = false;
		} else {
			e->hot = false;
		}
	}
	if (done) /* an empty wait set has no arrays yet: memcpy with NULL is undefined, even of 0 */
		memcpy(ws->hot + keep, ws->tmp, (size_t)done * sizeof *ws->tmp);
	ws->n_hot = keep + done;
	return k;
}

/* The entries without the doorbell, starting at the cursor. Consumes what it reports (guard
 * pending, timer expiry, graph value); a subscriber stays ready while messages are queued. */
ZC_HOT static int collect_others(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int k, int max)
{
	int last = -1, n = ws->n_others;
	for (int j = 0; j < n && k < max; j++) {
		int o = (ws->cursor + j) % n, i = ws->others[o];
		struct ws_entry *e = &ws->e[i];
		if (!e->enabled || e->belled)
			continue;
		bool ready = false;
		switch (e->kind) {
		case ZCAST_WS_SUB:
			ready = zc_sub_ready(e->sub);
			break;
		case ZCAST_WS_GUARD:
			ready = atomic_load(&e->guard->pending) &&
				atomic_exchange(&e->guard->pending, 0);
			break;
		case ZCAST_WS_TIMER:
			if (now >= e->next) {
				ready = true;
				/* Stay on the grid; expiries missed while nobody waited are reported once. */
				e->next = zc_after(e->next,
						   e->period * ((now - e->next) / e->period + 1));
			}
			break;
		case ZCAST_WS_GRAPH: {
			uint32_t g = atomic_load_explicit(&e->topic->hdr->graph, memory_order_seq_cst);
			if (g != e->graph_seen) {
				e->graph_seen = g;
				ready = true;
				zc_deaths_rescan(e->topic); /* new peers get a pidfd */
			}
			break;
		}
		case ZCAST_WS_PUB_ROOM:
			ready = e->src ? e->src->ready(e->src->ctx) : zc_pub_has_room(e->pub);
			break;
		}
		if (ready) {
			ws_report(ev, &k, e, i);
			last = o;
		}
	}
	if (last >= 0)
		ws->cursor = (last + 1) % n;
	return k;
}

/* Reports ready entries: the doorbell's and the others, taking turns at going first. */
ZC_HOT int ws_collect(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int max)
{
	harvest(ws);
	int k = 0;
	ws->hot_first = !ws->hot_first;
	if (ws->hot_first) {
		k = collect_hot(ws, ev, k, max);
		k = collect_others(ws, now, ev, k, max);
	} else {
		k = collect_others(ws, now, ev, k, max);
		k = collect_hot(ws, ev, k, max);
	}
	return k;
}
