/* Room: would a publish find room now? For the wait set's "room again" entry (ZCAST_WS_PUB_ROOM,
 * docs/WAITSETS.md), which lets a single-threaded executor wait for room instead of blocking in
 * zcast_publish_wait.
 *
 * Room means: the publisher's pool has a FREE slot, every FULL subscriber's queue has space, and
 * every BALANCE_RR group has a member with space. The check reads without the topic lock, so it is
 * a hint, like the publish it predicts: the publish decides under the lock. Records are read once,
 * range checked, and only the copies used; a scribbled record can make the hint wrong (a spurious
 * report, or none until the next take), never make us touch memory outside the topic.
 *
 * A waiter announces itself in the topic's `space_waiters` and the pool's `waiters` before it reads
 * the words and re-checks (the handshake of zcast_publish_wait and zcast_loan_wait), so every take,
 * release, close and reclaim after the check changes a word it sleeps on. */
#include "wait_internal.h"

static bool pool_has_free_slot(const struct zc_pool_map *m)
{
	for (uint32_t i = 0; i < m->slot_count; i++)
		if (ZC_STATE_ST(atomic_load_explicit(&zc_slot(m, i)->state,
						     memory_order_acquire)) == ZC_SLOT_FREE)
			return true;
	return false;
}

#define MAX_GROUPS 1024 /* max_groups == max_subs <= 1024 */

/* FULL queues must each have space; a BALANCE_RR group needs one member with space: two bitmaps
 * over the group indices, on the stack. */
static bool queues_have_room(struct zc_topic *t)
{
	uint32_t hi = atomic_load(&t->hdr->sub_hi);
	if (hi > t->max_subs)
		hi = t->max_subs;
	uint64_t rr_seen[MAX_GROUPS / 64] = {0}, rr_room[MAX_GROUPS / 64] = {0};
	for (uint32_t k = 0; k < hi; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		if (atomic_load_explicit(&r->state, memory_order_acquire) != ZC_REC_ACTIVE)
			continue;
		/* Read once, as ZC_READ_ONCE does, but atomically: our own death watcher may rewrite
		 * a dead record under the topic lock while we look without it. */
		uint32_t policy = __atomic_load_n(&r->policy, __ATOMIC_RELAXED);
		uint32_t group = __atomic_load_n(&r->group, __ATOMIC_RELAXED);
		uint32_t depth = zc_valid_depth(t, __atomic_load_n(&r->depth, __ATOMIC_RELAXED));
		if (!depth || policy == ZCAST_POLICY_DROP_OLD)
			continue; /* never refuses (or not a target at all) */
		struct zc_ring ring = zc_sub_ring(t, k, depth);
		bool room = zc_ring_used(&ring) < depth;
		if (policy == ZCAST_POLICY_BALANCE_RR) {
			if (group < t->max_groups && group < MAX_GROUPS) {
				rr_seen[group / 64] |= 1ull << (group % 64);
				rr_room[group / 64] |= (uint64_t)room << (group % 64);
			}
			continue;
		}
		if (!room)
			return false;
	}
	for (uint32_t w = 0; w < MAX_GROUPS / 64; w++)
		if (rr_seen[w] != rr_room[w])
			return false;
	return true;
}

bool zc_pub_room_for(zcast_pub *p, unsigned need)
{
	return (!(need & ZC_ROOM_SLOT) || pool_has_free_slot(p->pool)) &&
	       (!(need & ZC_ROOM_QUEUE) || queues_have_room(&p->t));
}

bool zc_pub_has_room(zcast_pub *p)
{
	return zc_pub_room_for(p, ZC_ROOM_SLOT | ZC_ROOM_QUEUE);
}

bool zc_room_arm(zcast_pub *p, struct zc_wword w[2])
{
	struct zc_topic_hdr *h = p->t.hdr;
	struct zc_pool_hdr *ph = zc_pool_hdr(p->pool);
	/* counted in our record too: a crash is taken back out. SYNC: space; partner proto/wake.c
	 * zc_wake_space (zc_space_arm announces, then the check below) */
	w[0] = (struct zc_wword){&h->space, zc_space_arm(&p->t, p->index), 0};
	/* SYNC: pool-freed: announce, read the word, then check; partner proto/slot_release.c
	 * zc_slot_free (FREE before it reads waiters) */
	atomic_fetch_add_explicit(&ph->waiters, 1, memory_order_seq_cst);
	w[1] = (struct zc_wword){&ph->freed, atomic_load_explicit(&ph->freed, memory_order_seq_cst),
				 0};
	zc_deaths_rescan(&p->t); /* a dead subscriber with a full queue is reclaimed: a wake */
	if (!zc_pub_has_room(p))
		return true;
	zc_room_disarm(p);
	return false;
}

void zc_room_disarm(zcast_pub *p)
{
	zc_space_disarm(&p->t, p->index);
	atomic_fetch_sub_explicit(&zc_pool_hdr(p->pool)->waiters, 1, memory_order_seq_cst);
}
