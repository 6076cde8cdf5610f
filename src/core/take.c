/* Take: the oldest queued descriptor becomes a message the caller holds.
 *
 * Everything that can fail happens before the pop: the descriptor is read, its pool mapped (headers
 * and payload), the slot checked against it, a message struct found; only then does one CAS on the
 * ring head make the entry ours. A take that fails (no descriptors, no memory, a permission
 * problem) leaves the entry queued and its slot held by the queue, never stranded. An entry that is
 * garbage (names no live slot of ours) is popped and reported: it holds nothing. */
#include <stdlib.h>

#include "core_internal.h"

/* Pops the invalid entry peeked under `head` (releasing our bit on its slot when the slot is real).
 * Returns ZCAST_ECORRUPT, or 0 when the head moved first: another taker (or a DROP_OLD drop) owned
 * the entry, and what we read may simply have been reused meanwhile — look again. */
static int discard(zcast_sub *s, uint64_t head, struct zc_pool_map *m, uint32_t i, uint64_t gen,
		   uint64_t d)
{
	bool popped = zc_ring_pop(&s->ring, head);
	if (popped && m)
		zc_slot_release_bit(m, i, ZC_SUB_BIT(s->index), gen);
	zc_pool_put(m);
	if (!popped)
		return 0;
	zc_wake_space(s->t.hdr);
	return zc_err(ZCAST_ECORRUPT, "topic %s: queued descriptor %016llx is invalid (discarded)",
		      s->t.name, (unsigned long long)d);
}

ZC_HOT int zcast_take(zcast_sub *s, zcast_msg **out)
{
	if (!s || !out)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	*out = NULL;
	if (zc_inherited(&s->t))
		return zc_err(ZCAST_ESTALE, "subscriber of %s was opened before fork()", s->t.name);
	if (s->max_held && atomic_load_explicit(&s->held, memory_order_relaxed) >= s->max_held)
		return zc_err(ZCAST_ELIMIT, "subscriber holds max_held=%u messages", s->max_held);
	for (;;) {
		uint64_t head, d;
		int r = zc_ring_peek_seen(&s->ring, &s->seen_tail, &head, &d);
		if (r == 0) {
			const struct zc_sub_hooks *hk =
			    atomic_load_explicit(&s->hooks, memory_order_acquire);
			if (hk)
				hk->drained(
				    s); /* e.g. the descriptor is cleared and watched again */
			zc_err_clear();
			return ZCAST_EAGAIN;
		}
		if (r < 0)
			return zc_err(ZCAST_ECORRUPT,
				      "topic %s: ring of subscriber %u is corrupted", s->t.name,
				      s->index);
		struct zc_pool_map *m;
		r = zc_pool_get_hinted(&s->t, &s->map_hint, ZC_DESC_POOL(d), &m);
		if (r == ZCAST_ECORRUPT) {
			if ((r = discard(s, head, NULL, 0, 0, d)) < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r; /* e.g. out of descriptors: the entry stays queued */
		/* Never trust the descriptor: slot, generation, state and our bit must all agree;
		 * the size is read once and checked. */
		uint32_t i = ZC_DESC_SLOT(d), bit = ZC_SUB_BIT(s->index);
		struct zc_slot_hdr *sl = i < m->slot_count ? zc_slot(m, i) : NULL;
		/* The caller reads the payload next: its first line is asked for now, beside the
		 * slot header's, not after it (both were written by the publisher's core). */
		uint8_t *mapped = sl ? zc_pool_payload_mapped(m) : NULL;
		if (mapped)
			__builtin_prefetch(mapped + (uint64_t)i * m->slot_size);
		uint64_t w = sl ? atomic_load_explicit(&sl->state, memory_order_acquire) : 0;
		if (!sl || ZC_STATE_ST(w) != ZC_SLOT_PUBLISHED ||
		    (uint32_t)ZC_STATE_GEN(w) != ZC_DESC_GEN(d) ||
		    !(atomic_load(&sl->bits[bit / 64]) & (1ull << (bit % 64)))) {
			zc_pool_put(m);
			if ((r = discard(s, head, NULL, 0, 0, d)) < 0)
				return r;
			continue;
		}
		uint64_t size = ZC_READ_ONCE(sl->size);
		if (size > m->slot_size) {
			if ((r = discard(s, head, m, i, ZC_STATE_GEN(w), d)) < 0)
				return r;
			continue;
		}
		uint8_t *payload = zc_pool_payload(m, &s->t);
		if (!payload) {
			zc_pool_put(m);
			return ZCAST_ENOMEM; /* zc_pool_payload said why; the entry stays queued */
		}
		zcast_msg *msg = atomic_exchange_explicit(&s->spare, NULL, memory_order_acquire);
		if (!msg)
			msg = malloc(sizeof *msg);
		if (!msg) {
			zc_pool_put(m);
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		/* The commit point: the head CAS decides whether the entry is ours. */
		if (!zc_ring_pop(&s->ring, head)) {
			zcast_msg *none = NULL;
			if (!atomic_compare_exchange_strong(&s->spare, &none, msg))
				free(msg);
			zc_pool_put(m);
			continue; /* another taker, or a DROP_OLD drop: look again */
		}
		ZC_CRASH("take:after-pop");
		zc_wake_space(s->t.hdr); /* a FULL publisher may wait for this room */
		atomic_init(&msg->refs, 1);
		atomic_init(&msg->kind, ZC_MSG_RECEIVED);
		/* Copied once: the publisher may rewrite its slot header, never our copy. */
		msg->stamp.sequence = ZC_READ_ONCE(sl->seq);
		msg->stamp.publish_time_ns = ZC_READ_ONCE(sl->time_ns);
		msg->slot = i;
		msg->gen = ZC_STATE_GEN(w);
		msg->data = payload + (uint64_t)i * m->slot_size;
		atomic_store_explicit(&s->next_lines[0], (const void *)sl, memory_order_relaxed);
		atomic_store_explicit(&s->next_lines[1], (const void *)msg->data, memory_order_relaxed);
		msg->size = (size_t)size;
		msg->map = m;
		msg->pub = NULL;
		msg->sub = s;
		msg->compacted = false;
		atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->held, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->rec->held, 1, memory_order_relaxed);
		*out = msg;
		return 0;
	}
}
