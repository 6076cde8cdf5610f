/* Graph events: matched counts (docs/WAITSETS.md, "Graph").
 *
 * Counts are read from the member records: ACTIVE records whose owner is alive (its OFD byte lock),
 * so a peer killed a moment ago is not counted even before anyone reclaimed it. A change is seen
 * through the topic's `graph` word, which every join, leave and reclaim bumps under the topic lock;
 * the core's death watcher (deaths.c) reclaims a crashed peer promptly, which bumps it. */

#include "wait_internal.h"

int zc_graph_count(struct zc_topic *t, enum zc_kind kind)
{
	int c = 0;
	uint32_t n = kind == ZC_KIND_PUB ? t->max_pubs : t->max_subs;
	for (uint32_t i = 0; i < n; i++) {
		_Atomic uint32_t *st = kind == ZC_KIND_PUB ? &t->pubs[i].state : &t->subs[i].state;
		uint32_t member =
		    kind == ZC_KIND_PUB ? zc_member_of_pub(t, i) : zc_member_of_sub(t, i);
		c += atomic_load_explicit(st, memory_order_acquire) == ZC_REC_ACTIVE &&
		     zc_member_alive(t, member);
	}
	return c;
}

int zcast_pub_matched(zcast_pub *pub)
{
	return pub ? zc_graph_count(&pub->t, ZC_KIND_SUB) : zc_err(ZCAST_EINVAL, "pub is NULL");
}

int zcast_sub_matched(zcast_sub *sub)
{
	return sub ? zc_graph_count(&sub->t, ZC_KIND_PUB) : zc_err(ZCAST_EINVAL, "sub is NULL");
}
