/* DROP_OLD ("latest wins"): dropping the oldest entry of a subscriber's ring, under the topic lock.
 *
 * Two callers: a publish that finds a DROP_OLD ring full, and a loan whose pool is empty because
 * DROP_OLD rings hold its slots. A DROP_OLD subscriber that never takes must not stall a publisher:
 * its queued entries are not messages it holds, and dropping the oldest of them is what its policy
 * asks for. The intent is recorded first, so a crash between the drop and the bit's release is
 * finished by the next locker (repair.c). */
#include "proto_internal.h"

bool zc_drop_head(struct zc_topic *t, uint32_t k, const struct zc_ring *ring, uint64_t head,
		  uint64_t desc)
{
	struct zc_intent *in = &t->hdr->intent;
	ZC_STORE(in->drop_desc, desc);
	ZC_STORE(in->drop_head, head);
	ZC_STORE(in->drop_sub, k);
	if (!zc_ring_drop(ring, head)) {
		ZC_STORE(in->drop_sub, ZC_NO_SUB); /* the consumer took it meanwhile */
		return false;
	}
	ZC_CRASH("publish:after-drop-cas");
	atomic_fetch_add_explicit(&t->subs[k].dropped, 1, memory_order_relaxed);
	zc_release_desc_bit(t, desc, ZC_SUB_BIT(k));
	ZC_STORE(in->drop_sub, ZC_NO_SUB);
	return true;
}

/* Does the ring hold an entry of `pool`? (under the lock the tail stands still) */
static bool holds_pool(const struct zc_ring *ring, uint32_t pool)
{
	uint64_t head, desc;
	if (zc_ring_peek(ring, &head, &desc) != 1)
		return false;
	uint64_t tail = zc_ring_tail(ring);
	for (uint64_t pos = ZC_HEAD_POS(head); pos != tail; pos = (pos + 1) & ZC_POS_MASK)
		if (ZC_DESC_POOL(atomic_load_explicit(&ring->cells[pos & ring->mask],
						      memory_order_relaxed)) == pool)
			return true;
	return false;
}

/* Drops from the ring's head through its oldest entry of `pool`. Returns whether one of the pool's
 * entries went. */
static bool drop_through(struct zc_topic *t, uint32_t k, const struct zc_ring *ring, uint32_t pool)
{
	uint64_t head, desc;
	for (uint32_t n = 0; n < ring->depth && zc_ring_peek(ring, &head, &desc) == 1; n++)
		if (zc_drop_head(t, k, ring, head, desc) && ZC_DESC_POOL(desc) == pool)
			return true;
	return false;
}

int zc_unpin_pool(struct zc_topic *t, uint32_t pool)
{
	uint32_t hi = atomic_load(&t->hdr->sub_hi), dropped = 0;
	for (uint32_t k = 0; k < hi && k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t depth = zc_valid_depth(t, ZC_READ_ONCE(r->depth));
		if (atomic_load_explicit(&r->state, memory_order_acquire) != ZC_REC_ACTIVE ||
		    ZC_READ_ONCE(r->policy) != ZCAST_POLICY_DROP_OLD || !depth)
			continue;
		struct zc_ring ring = zc_sub_ring(t, k, depth);
		if (holds_pool(&ring, pool) && drop_through(t, k, &ring, pool))
			dropped++;
	}
	if (dropped)
		zc_wake_space(t->hdr); /* queue room: a FULL publisher may wait for it */
	return (int)dropped;
}
