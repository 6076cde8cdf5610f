/* A "room again" entry over a set of publishers the layer above names (struct zc_room_src): a
 * server waiting for room in any of the response pools and queues of its clients whose response or
 * failure found none (docs/SERVICES.md, "Waiting for room"). Each is watched as a room entry is
 * (room.c: the topic's space word, the pool's freed word) plus its graph word, which moves when
 * its client closes or dies and is reclaimed: the retry then finds the client gone.
 *
 * The set is looked up before each sleep, each publisher with a reference of ours (the layer above
 * may close it meanwhile: the mapping stays until we let go), and let go of after it. */
#include <stdlib.h>

#include "waitset_internal.h"

bool ws_set_snapshot(struct ws_entry *e)
{
	/* SYNC: room-grown: read before the look-up; partner svc/server_room.c zc_svc_room_need */
	if (e->src->grown)
		e->grown_seen = atomic_load_explicit(e->src->grown, memory_order_seq_cst);
	for (;;) {
		uint32_t n = e->src->pubs(e->src->ctx, e->set, e->cap_set);
		if (n <= e->cap_set) {
			e->n_set = n;
			return true;
		}
		for (uint32_t i = 0; i < e->cap_set; i++) /* too many: again, with room for all */
			zc_pub_unref(e->set[i]);
		zcast_pub **ns = realloc(e->set, n * sizeof *ns);
		if (ns)
			e->set = ns;
		struct zc_wword *nw = realloc(e->set_words, 3 * (size_t)n * sizeof *nw);
		if (nw)
			e->set_words = nw;
		if (!ns || !nw)
			return false;
		e->cap_set = n;
	}
}

/* Announces a room waiter on each publisher and reads its graph word, then asks the source once more:
 * a take, release, close or reclaim after that question moves a word we sleep on. */
bool ws_set_arm(struct ws_entry *e)
{
	e->n_set_armed = 0;
	for (uint32_t i = 0; i < e->n_set; i++) {
		zcast_pub *p = e->set[i];
		struct zc_wword *w = &e->set_words[3 * i];
		if (!zc_room_arm(p, w)) /* room already: not armed */
			return false;
		e->n_set_armed++;
		/* SYNC: graph-word — zc_topic_graph_changed bumps it and always wakes (read before
		 * the source's last look) */
		_Atomic uint32_t *g = &p->t.hdr->graph;
		w[2] = (struct zc_wword){g, atomic_load_explicit(g, memory_order_seq_cst), 0};
	}
	return !e->src->ready(e->src->ctx);
}

void ws_set_disarm(struct ws_entry *e)
{
	for (uint32_t i = 0; i < e->n_set_armed; i++)
		zc_room_disarm(e->set[i]);
	for (uint32_t i = 0; i < e->n_set; i++)
		zc_pub_unref(e->set[i]);
	e->n_set = e->n_set_armed = 0;
}

void ws_set_free(struct ws_entry *e)
{
	if (!e->src)
		return;
	ws_set_disarm(e);
	free(e->set);
	free(e->set_words);
	e->set = NULL;
	e->set_words = NULL;
	e->cap_set = 0;
}
