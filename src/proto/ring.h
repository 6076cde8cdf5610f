/* A subscriber's descriptor ring through one validated view.
 *
 * The view is built once from a depth the caller range checked; the cell index is `pos & mask`,
 * always inside the ring's own cells whatever another process wrote into head or tail. Only the
 * topic lock holder pushes and drops; consumers pop with one CAS on the head, which decides who
 * owns a descriptor: the consumer took it or the producer dropped it, never both. */
#ifndef ZC_RING_H
#define ZC_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

struct zc_ring {
	_Atomic uint64_t *cells;
	_Atomic uint64_t *head; /* position | drop count, see layout.h */
	_Atomic uint64_t *tail; /* position */
	uint64_t mask;		/* cells - 1 */
	uint32_t depth;		/* capacity in use: 1 .. mask + 1 */
};

/* Cells per ring for a topic whose largest queue depth is max_depth: a power of two. */
static inline uint32_t zc_ring_cells(uint32_t max_depth)
{
	uint32_t c = 1;
	while (c < max_depth)
		c <<= 1;
	return c;
}

static inline struct zc_ring zc_ring_view(_Atomic uint64_t *cells, uint32_t n_cells,
					  struct zc_sub_rec *rec, uint32_t depth)
{
	struct zc_ring r = {cells, &rec->head, &rec->tail, (uint64_t)n_cells - 1u, depth};
	return r;
}

/* Entries queued now. Above depth only when the ring was scribbled on (or, for a consumer, when a
 * DROP_OLD drop raced the read): callers treat that as full, or re-read. */
uint64_t zc_ring_used(const struct zc_ring *r);
/* Producer: the tail (position of the next push). */
uint64_t zc_ring_tail(const struct zc_ring *r);
/* Producer: appends desc at `tail` (read with zc_ring_tail, so repair can record it first). seq_cst
 * on the tail store, the push's commit point: pairs with a sleeper's announce-then-recheck. */
void zc_ring_push_at(const struct zc_ring *r, uint64_t tail, uint64_t desc);
static inline void zc_ring_push(const struct zc_ring *r, uint64_t desc)
{
	zc_ring_push_at(r, zc_ring_tail(r), desc);
}
/* Repair: did the push that started at tail_before complete? (the tail store is its commit point)
 */
bool zc_ring_pushed_since(const struct zc_ring *r, uint64_t tail_before);
/* Consumer or producer: the oldest entry and the head word it was read under. 0 when empty, 1 when
 * found, -1 when the ring is inconsistent (corrupted). */
int zc_ring_peek(const struct zc_ring *r, uint64_t *head, uint64_t *desc);
/* zc_ring_peek for a consumer that remembers the last tail it read in *seen_tail (ZC_SEEN_VALID |
 * tail; 0 = nothing yet): a tail only moves forward, so while the remembered one is ahead of the
 * head the entry is there without reading the line the producer writes on every push. The
 * release/acquire on *seen_tail carries the producer's push to the consumer's other threads. */
#define ZC_SEEN_VALID (1ull << 63)
int zc_ring_peek_seen(const struct zc_ring *r, _Atomic uint64_t *seen_tail, uint64_t *head,
		      uint64_t *desc);
/* Consumer, just woken: asks for the tail's line and the cell at the head, both written by the
 * producer's core, at once; the transfers then overlap each other and the caller's next steps
 * instead of following one another. A hint: the cell index is masked, any head is harmless. */
static inline void zc_ring_prefetch(const struct zc_ring *r)
{
	uint64_t pos = ZC_HEAD_POS(atomic_load_explicit(r->head, memory_order_relaxed));
	__builtin_prefetch(r->tail);
	__builtin_prefetch(&r->cells[pos & r->mask]);
}
/* Consumer: pops the entry peeked under `head`. False when someone else moved the head first. */
bool zc_ring_pop(const struct zc_ring *r, uint64_t head);
/* Producer: drops the entry peeked under `head` (bumps the drop count). False if the head moved. */
bool zc_ring_drop(const struct zc_ring *r, uint64_t head);
/* Repair: did the drop attempted under head_before happen? */
bool zc_ring_dropped_since(const struct zc_ring *r, uint64_t head_before);
/* Empties the ring (its owner is gone). */
void zc_ring_reset(const struct zc_ring *r);

#endif
