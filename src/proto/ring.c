/* Descriptor rings (see ring.h). Positions are 48 bits and wrap; the cell count is a power of two.
 */
#include "ring.h"
#include "proto_internal.h"

ZC_HOT uint64_t zc_ring_used(const struct zc_ring *r)
{
	uint64_t head = atomic_load_explicit(r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(r->tail, memory_order_acquire);
	return (tail - ZC_HEAD_POS(head)) & ZC_POS_MASK;
}

ZC_HOT uint64_t zc_ring_tail(const struct zc_ring *r)
{
	return atomic_load_explicit(r->tail, memory_order_relaxed) & ZC_POS_MASK;
}

ZC_HOT void zc_ring_push_at(const struct zc_ring *r, uint64_t tail, uint64_t desc)
{
	tail &= ZC_POS_MASK;
	atomic_store_explicit(&r->cells[tail & r->mask], desc, memory_order_relaxed);
	ZC_CRASH("publish:after-entry");
	/* SYNC: ring: the cell before the tail; partner proto/ring.c zc_ring_peek_seen */
	atomic_store_explicit(r->tail, (tail + 1) & ZC_POS_MASK, memory_order_seq_cst);
}

bool zc_ring_pushed_since(const struct zc_ring *r, uint64_t tail_before)
{
	return (atomic_load(r->tail) & ZC_POS_MASK) != (tail_before & ZC_POS_MASK);
}

int zc_ring_peek(const struct zc_ring *r, uint64_t *head, uint64_t *desc)
{
	return zc_ring_peek_seen(r, NULL, head, desc);
}

ZC_HOT int zc_ring_peek_seen(const struct zc_ring *r, _Atomic uint64_t *seen_tail, uint64_t *head,
			     uint64_t *desc)
{
	for (;;) {
		uint64_t h = atomic_load_explicit(r->head, memory_order_acquire);
		uint64_t pos = ZC_HEAD_POS(h), seen = 0, tail = 0, used = 0;
		if (seen_tail && (seen = atomic_load_explicit(seen_tail, memory_order_acquire))) {
			tail = seen & ZC_POS_MASK;
			used = (tail - pos) & ZC_POS_MASK;
		}
		if (used == 0 || used > r->depth) { /* nothing proven: the tail itself */
			/* SYNC: ring; partner proto/ring.c zc_ring_push_at */
			tail = atomic_load_explicit(r->tail, memory_order_acquire);
			used = (tail - pos) & ZC_POS_MASK;
			if (seen_tail)
				atomic_store_explicit(seen_tail, tail | ZC_SEEN_VALID, memory_order_release);
		}
		if (used == 0)
			return 0;
		if (used > r->depth) {
			/* A DROP_OLD drop and push may have happened since the head was read. */
			if (atomic_load_explicit(r->head, memory_order_acquire) != h)
				continue;
			return -1;
		}
		*desc = atomic_load_explicit(&r->cells[pos & r->mask], memory_order_relaxed);
		*head = h;
		return 1;
	}
}

ZC_HOT bool zc_ring_pop(const struct zc_ring *r, uint64_t head)
{
	uint64_t pos = ZC_HEAD_POS(head);
	/* SYNC: seq_cst, then zc_wake_space reads space_waiters: store buffering with a publisher's
	 * zc_space_arm then its read of this head (publish.c, ring_has_room), seq_cst too. */
	return atomic_compare_exchange_strong_explicit(
	    r->head, &head, ZC_HEAD_MAKE((pos + 1) & ZC_POS_MASK, ZC_HEAD_DROPS(head)),
	    memory_order_seq_cst, memory_order_relaxed);
}

bool zc_ring_drop(const struct zc_ring *r, uint64_t head)
{
	uint64_t pos = ZC_HEAD_POS(head);
	return atomic_compare_exchange_strong(
	    r->head, &head, ZC_HEAD_MAKE((pos + 1) & ZC_POS_MASK, ZC_HEAD_DROPS(head) + 1u));
}

bool zc_ring_dropped_since(const struct zc_ring *r, uint64_t head_before)
{
	/* Only the lock holder bumps the drop count: if it moved, the holder's drop happened. */
	return ZC_HEAD_DROPS(atomic_load(r->head)) == ((ZC_HEAD_DROPS(head_before) + 1u) & 0xffffu);
}

void zc_ring_reset(const struct zc_ring *r)
{
	atomic_store(r->head, 0);
	atomic_store(r->tail, 0);
}
