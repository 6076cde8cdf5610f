/* A dead or closing BALANCE_RR member's queue goes to the live members of its group (a killed or
 * closed service server's queued requests go to another server), for groups named with
 * ZC_HANDOVER_PREFIX only: a handed-over message arrives after newer ones, and other groups keep
 * the promise of publication order per member (docs/POLICIES.md). Runs under the topic lock: in
 * reclaim before the dead member's bits are cleared, or in its own close once its record is
 * DRAINING (no longer a target). Messages it had taken are not moved: they are released.
 *
 * Each queued entry is given, then dropped from the old ring, then the old member's bit is
 * cleared: the taker's bit and its push first. A reclaim or close that dies between the give and
 * the drop leaves the entry in both rings; the next reclaim finds the taker's bit set and only
 * drops it (and clears the dead member's bits). The depth, policy and group of every record
 * are read once and checked; a descriptor is used only when its slot is PUBLISHED with the
 * descriptor's generation and held by the old member. */
#include <string.h>

#include "proto_internal.h"

static bool hands_over(const struct zc_topic *t, uint32_t g)
{
	char name[ZC_GROUP_NAME_MAX];
	memcpy(name, t->groups[g].name, sizeof name); /* copied once; compared as bytes */
	return memcmp(name, ZC_HANDOVER_PREFIX, sizeof ZC_HANDOVER_PREFIX - 1) == 0;
}

/* A live member of group g other than k with room in its queue, round robin from *next; -1 if
 * none. */
static int64_t taker(struct zc_topic *t, uint32_t k, uint32_t g, uint32_t *next,
		     struct zc_ring *ring)
{
	for (uint32_t n = 0; n < t->max_subs; n++) {
		uint32_t j = (*next + n) % t->max_subs;
		struct zc_sub_rec *r = &t->subs[j];
		if (j == k || atomic_load(&r->state) != ZC_REC_ACTIVE ||
		    ZC_READ_ONCE(r->policy) != ZCAST_POLICY_BALANCE_RR || ZC_READ_ONCE(r->group) != g)
			continue;
		uint32_t depth = zc_valid_depth(t, ZC_READ_ONCE(r->depth));
		if (!depth)
			continue;
		*ring = zc_sub_ring(t, j, depth);
		if (zc_ring_used(ring) >= depth || !zc_member_alive(t, zc_member_of_sub(t, j)))
			continue;
		*next = j + 1;
		return j;
	}
	return -1;
}

/* Gives descriptor d, held by k, to j. False when d is not a message k holds. */
static bool give(struct zc_topic *t, uint32_t k, uint32_t j, const struct zc_ring *ring, uint64_t d)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, ZC_DESC_POOL(d), &m) != 0)
		return false;
	bool ok = false;
	uint32_t i = ZC_DESC_SLOT(d), kb = ZC_SUB_BIT(k), jb = ZC_SUB_BIT(j);
	if (i < m->slot_count) {
		struct zc_slot_hdr *s = zc_slot(m, i);
		uint64_t w = atomic_load(&s->state);
		ok = ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED && (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d) &&
		     (atomic_load(&s->bits[kb / 64]) & (1ull << (kb % 64)));
		/* Its bit already set: given before a reclaim died, not pushed twice. */
		if (ok && !(atomic_fetch_or(&s->bits[jb / 64], 1ull << (jb % 64)) & (1ull << (jb % 64)))) {
			zc_ring_push(ring, d);
			atomic_fetch_add(&t->subs[j].delivered, 1);
		}
	}
	zc_pool_put(m);
	return ok;
}

uint32_t zc_rr_handover(struct zc_topic *t, uint32_t k)
{
	struct zc_sub_rec *r = &t->subs[k];
	uint32_t g = ZC_READ_ONCE(r->group), moved = 0, next = k + 1, st = atomic_load(&r->state);
	uint32_t depth = zc_valid_depth(t, ZC_READ_ONCE(r->depth));
	if ((st != ZC_REC_ACTIVE && st != ZC_REC_DRAINING) || !depth || g >= t->max_groups ||
	    ZC_READ_ONCE(r->policy) != ZCAST_POLICY_BALANCE_RR || !hands_over(t, g))
		return 0;
	struct zc_ring dead = zc_sub_ring(t, k, depth), to;
	uint64_t head, d;
	for (uint32_t n = 0; n < depth && zc_ring_peek(&dead, &head, &d) == 1; n++) {
		int64_t j = taker(t, k, g, &next, &to);
		if (j < 0)
			break; /* nobody has room: the rest is released with the dead member's bits */
		bool given = give(t, k, (uint32_t)j, &to, d);
		if (!zc_ring_drop(&dead, head))
			break;
		if (given) /* the taker's bit keeps the slot: ours goes (a closer lives on) */
			zc_release_desc_bit(t, d, ZC_SUB_BIT(k));
		moved += given;
	}
	return moved;
}
