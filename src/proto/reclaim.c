/* Reclaim: what dead or departed members left behind goes back.
 *
 * Runs under the topic lock, when it can find something: a publish meets a full ring or an empty
 * pool (rate limited), a record limit is reached, the death watcher reports a peer, a tool asks
 * (gc), or an opener finds the topic abandoned. Joins and leaves never run it: probing every record
 * costs milliseconds at a thousand members. It reads slot headers only, never payload.
 *
 * What it restores: a dead member's record, ring and holder bits; a dead publisher's loans; holder
 * bits of records that are FREE or CLAIMED (nobody adds a bit for those: such a bit is stale, e.g.
 * a leaver could not map a pool); PUBLISHED slots whose bitmap is empty (a releaser died between
 * its clear and its CAS); orphaned pools whose slots are all free; group member counts (recounted
 * from the records). Whatever it frees or removes wakes the waits that may end. */
#include <stdlib.h>
#include <unistd.h>

#include "proto_internal.h"
#include "doorbell.h"

void zc_release_desc_bit(struct zc_topic *t, uint64_t desc, uint32_t bit)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, ZC_DESC_POOL(desc), &m) != 0)
		return;
	uint32_t i = ZC_DESC_SLOT(desc);
	if (i < m->slot_count) {
		uint64_t w = atomic_load(&zc_slot(m, i)->state);
		if ((uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(desc) &&
		    ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED)
			zc_slot_release_bit(m, i, bit, ZC_STATE_GEN(w));
	}
	zc_pool_put(m);
}

void zc_reclaim_sub(struct zc_topic *t, uint32_t k)
{
	uint32_t bit = ZC_SUB_BIT(k);
	uint32_t hi = atomic_load(&t->hdr->pool_hi);
	for (uint32_t p = 0; p < hi && p < t->max_pools; p++) {
		struct zc_pool_map *m;
		if (atomic_load(&t->pools[p].state) == ZC_POOL_UNUSED || zc_pool_get(t, p, &m) != 0)
			continue;
		ZC_CRASH("sweep:before-clear");
		for (uint32_t i = 0; i < m->slot_count; i++) {
			struct zc_slot_hdr *s = zc_slot(m, i);
			if (!(atomic_load(&s->bits[bit / 64]) & (1ull << (bit % 64))))
				continue;
			uint64_t w = atomic_load(&s->state);
			zc_slot_release_bit(m, i, bit, ZC_STATE_GEN(w));
		}
		zc_pool_put(m);
	}
	struct zc_sub_rec *r = &t->subs[k];
	zc_ring_reset(&(struct zc_ring){.head = &r->head, .tail = &r->tail});
	atomic_store(&r->sleepers, 0);
	atomic_store(&r->held, 0);
}

/* Returns the LOANED slots of a pool whose publisher is gone, and orphans the pool. */
static void orphan_pool(struct zc_topic *t, uint32_t p)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, p, &m) == 0) {
		for (uint32_t i = 0; i < m->slot_count; i++) {
			uint64_t w = atomic_load(&zc_slot(m, i)->state);
			if (ZC_STATE_ST(w) == ZC_SLOT_LOANED) {
				zc_slot_free(m, i, ZC_SLOT_LOANED, ZC_STATE_GEN(w));
				ZC_CRASH("gc:orphan-mid-loans");
			}
		}
		zc_pool_put(m);
	}
	atomic_store(&t->pools[p].state, ZC_POOL_ORPHAN);
}

/* The holder bits no live subscriber can own: records FREE or CLAIMED hold nothing. */
static void stale_mask(struct zc_topic *t, uint64_t *mask)
{
	for (uint32_t w = 0; w < t->bitmap_words; w++)
		mask[w] = 0;
	for (uint32_t k = 0; k < t->max_subs; k++) {
		uint32_t st = atomic_load(&t->subs[k].state);
		if (st == ZC_REC_FREE || st == ZC_REC_CLAIMED)
			mask[ZC_SUB_BIT(k) / 64] |= 1ull << (ZC_SUB_BIT(k) % 64);
	}
}

/* Frees what can be freed in pool p (PUBLISHED slots whose bitmap, minus stale bits, is empty);
 * unlinks it when it is orphaned and all its slots are free. */
void zc_reclaim_pool(struct zc_topic *t, uint32_t p, const uint64_t *stale)
{
	struct zc_pool_rec *rec = &t->pools[p];
	uint32_t st = atomic_load(&rec->state);
	if (st == ZC_POOL_UNUSED)
		return;
	if (st == ZC_POOL_ACTIVE) {
		uint32_t o = ZC_READ_ONCE(rec->owner);
		if (o >= t->max_pubs || atomic_load(&t->pubs[o].state) != ZC_REC_ACTIVE ||
		    ZC_READ_ONCE(t->pubs[o].pool) != p) {
			orphan_pool(t, p);
			st = ZC_POOL_ORPHAN;
		}
	}
	struct zc_pool_map *m;
	if (zc_pool_get(t, p, &m) != 0) {
		if (st == ZC_POOL_ORPHAN)
			atomic_store(&rec->state, ZC_POOL_UNUSED); /* its segment is gone */
		return;
	}
	bool all_free = true;
	for (uint32_t i = 0; i < m->slot_count; i++) {
		struct zc_slot_hdr *s = zc_slot(m, i);
		uint64_t w = atomic_load(&s->state);
		if (ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED) {
			for (uint32_t b = 0; stale && b < t->bitmap_words; b++)
				if (atomic_load(&s->bits[b]) & stale[b])
					atomic_fetch_and(&s->bits[b], ~stale[b]);
			if (zc_slot_try_free(m, i, ZC_STATE_GEN(w)))
				continue;
		}
		if (ZC_STATE_ST(atomic_load(&s->state)) != ZC_SLOT_FREE)
			all_free = false;
	}
	uint64_t id = m->id;
	zc_pool_put(m);
	if (st == ZC_POOL_ORPHAN && all_free) {
		ZC_CRASH("gc:before-pool-unlink");
		zc_pool_unlink(t, id);
		atomic_store(&rec->state, ZC_POOL_UNUSED);
	}
}

static void sweep_pools(struct zc_topic *t)
{
	uint64_t *stale = calloc(t->bitmap_words, sizeof *stale);
	if (stale)
		stale_mask(t, stale);
	uint32_t hi = atomic_load(&t->hdr->pool_hi);
	for (uint32_t p = 0; p < hi && p < t->max_pools; p++)
		zc_reclaim_pool(t, p, stale);
	free(stale);
}

/* Group member counts from the records: a crash between joining a group and becoming ACTIVE can
 * no longer leave a count behind. One pass over the records, then one over the groups. */
static void recount_groups(struct zc_topic *t)
{
	uint32_t *n = calloc(t->max_groups, sizeof *n);
	if (!n)
		return; /* counts stay as they are until the next reclaim */
	for (uint32_t k = 0; k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t st = atomic_load(&r->state), g = ZC_READ_ONCE(r->group);
		if ((st == ZC_REC_ACTIVE || st == ZC_REC_DRAINING) && g < t->max_groups &&
		    ZC_READ_ONCE(r->policy) == ZCAST_POLICY_BALANCE_RR)
			n[g]++;
	}
	for (uint32_t g = 0; g < t->max_groups; g++)
		if (atomic_load(&t->groups[g].members) != n[g])
			atomic_store(&t->groups[g].members, n[g]);
	free(n);
}

static int reclaim_pubs(struct zc_topic *t)
{
	int dead = 0;
	for (uint32_t i = 0; i < t->max_pubs; i++) {
		struct zc_pub_rec *r = &t->pubs[i];
		uint32_t st = atomic_load(&r->state);
		if (st == ZC_REC_FREE || zc_member_alive(t, zc_member_of_pub(t, i)))
			continue;
		if (st == ZC_REC_ACTIVE) /* it was matched: its subscribers see a crash */
			atomic_fetch_add(&t->hdr->pubs_died, 1);
		uint32_t pool = ZC_READ_ONCE(r->pool);
		uint64_t id = ZC_READ_ONCE(r->id);
		if (st == ZC_REC_ACTIVE && pool < t->max_pools &&
		    atomic_load(&t->pools[pool].state) == ZC_POOL_ACTIVE)
			orphan_pool(t, pool);
		if (st == ZC_REC_CLAIMED) {
			/* Died while joining: its pool file may exist without a pool record. The id
			 * may be a previous owner's: unlink only if no pool record names it. */
			bool recorded = false;
			for (uint32_t p = 0; p < t->max_pools && !recorded; p++)
				recorded = atomic_load(&t->pools[p].state) != ZC_POOL_UNUSED &&
					   t->pools[p].id == id;
			if (!recorded)
				zc_pool_unlink(t, id);
		}
		zc_space_forget(t, i);
		ZC_CRASH("gc:mid-sweep");
		atomic_store(&r->state, ZC_REC_FREE);
		dead++;
	}
	return dead;
}

static int reclaim_subs(struct zc_topic *t)
{
	int dead = 0;
	uint32_t moved = 0;
	for (uint32_t k = 0; k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t st = atomic_load(&r->state);
		if (st == ZC_REC_FREE || zc_member_alive(t, zc_member_of_sub(t, k)))
			continue;
		if (st == ZC_REC_ACTIVE) /* it was matched: its publishers see a crash */
			atomic_fetch_add(&t->hdr->subs_died, 1);
		moved += zc_rr_handover(t, k);
		zc_reclaim_sub(t, k);
		ZC_CRASH("gc:after-sub-sweep");
		/* The dead process's doorbell file goes too (only if its owner is gone). */
		zc_bell_reap(atomic_exchange(&r->bell, 0));
		ZC_WRITE_ONCE(r->group, ZC_NO_SUB); /* a room check (room.c) reads it unlocked */
		atomic_store(&r->state, ZC_REC_FREE);
		dead++;
	}
	for (uint32_t k = 0; k < ZC_TOOL_RECORDS; k++) {
		uint32_t member = t->max_pubs + t->max_subs + k;
		if (atomic_load(&t->tools[k].state) != ZC_REC_FREE && !zc_member_alive(t, member)) {
			atomic_store(&t->tools[k].state, ZC_REC_FREE);
			dead++;
		}
	}
	if (moved)
		zc_wake_all(t); /* the members that got a dead one's queue */
	return dead;
}

int zc_reclaim(struct zc_topic *t)
{
	int dead_pubs = reclaim_pubs(t), dead = dead_pubs + reclaim_subs(t);
	sweep_pools(t);
	recount_groups(t);
	if (dead)
		zc_topic_graph_changed(t);
	/* Queue room, free slots and membership may have changed: every wait re-checks. */
	zc_wake_space_force(t->hdr); /* also for a releaser that died owing that wake */
	/* A dead publisher's owed wake, even if a later publisher's mark replaced its own. */
	if (dead_pubs && !atomic_load(&t->hdr->wake_owed))
		zc_wake_all(t);
	zc_wake_owed(t);
	return dead;
}

int zc_reclaim_locked(struct zc_topic *t)
{
	bool temp = !t->is_member;
	uint32_t idx = 0;
	int r;
	if (temp && (r = zc_member_claim(t, ZC_KIND_TOOL, &idx)) < 0)
		return r;
	if (temp)
		ZC_WRITE_ONCE(t->tools[idx].pid, getpid());
	r = zc_topic_lock(t);
	if (r == 0) {
		r = zc_reclaim(t);
		zc_topic_unlock(t);
	}
	if (temp)
		zc_member_release_tool(t, idx);
	return r;
}
