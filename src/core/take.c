/* Take: the oldest queued descriptor becomes a message the caller holds.
 *
 * Everything that can fail happens before the pop: the descriptor is read, its pool mapped (headers
 * and payload), the slot checked against it, a message struct found; only then does one CAS on the
 * ring head make the entry ours. Each step that fails first asks whether the entry is still ours
 * (the head has not moved): if another taker or a DROP_OLD drop owned it, what we read may have
 * been reused or unlinked since, and the take looks again. Otherwise:
 *  - a failure that may pass (no descriptors, no memory, a permission problem) leaves the entry
 *    queued and its slot held by the queue, and returns its true cause;
 *  - an entry that is garbage (names no live slot of ours) is popped and reported (ECORRUPT);
 *  - an entry whose pool this process can never map (its file is gone or was replaced after we
 *    mapped its headers) is popped, its bit released and counted as dropped; the take goes on with
 *    the next entry instead of wedging the queue. */
#include <stdlib.h>

#include "core_internal.h"

#define LOOK_AGAIN 1 /* the step lost a race or dropped the entry: peek again */

/* What a take read about the entry at the head, before it commits. */
struct entry {
	uint64_t head, desc;
	struct zc_pool_map *map; /* a reference, or NULL */
	struct zc_slot_hdr *slot;
	uint32_t i;
	uint64_t gen, size;
	uint8_t *payload;
};

static bool head_moved(const zcast_sub *s, uint64_t head)
{
	return atomic_load_explicit(s->ring.head, memory_order_acquire) != head;
}

/* Pops the entry (releasing our bit on its slot when its header is mapped and checked). LOOK_AGAIN
 * when the head moved first: another taker (or a DROP_OLD drop) owned it. Otherwise an invalid
 * entry is reported (ECORRUPT); an undeliverable one is counted as dropped (LOOK_AGAIN). */
static int pop_unusable(zcast_sub *s, struct entry *e, bool invalid)
{
	bool popped = zc_ring_pop(&s->ring, e->head);
	if (popped && e->slot)
		zc_slot_release_bit(e->map, e->i, ZC_SUB_BIT(s->index), e->gen);
	zc_pool_put(e->map);
	e->map = NULL;
	if (!popped)
		return LOOK_AGAIN;
	zc_wake_space(s->t.hdr);
	if (!invalid) {
		atomic_fetch_add_explicit(&s->rec->dropped, 1, memory_order_relaxed);
		return LOOK_AGAIN;
	}
	return zc_err(ZCAST_ECORRUPT, "topic %s: queued descriptor %016llx is invalid (discarded)",
		      s->t.name, (unsigned long long)e->desc);
}

/* A step failed with r, which may pass: the entry stays queued, unless it was not ours any more. */
static int keep_queued(zcast_sub *s, struct entry *e, int r)
{
	zc_pool_put(e->map);
	e->map = NULL;
	return head_moved(s, e->head) ? LOOK_AGAIN : r;
}

/* The oldest entry: 0 when found, ZCAST_EAGAIN when the queue is empty, or ECORRUPT. */
ZC_HOT static int peek(zcast_sub *s, struct entry *e)
{
	int r = zc_ring_peek_seen(&s->ring, &s->seen_tail, &e->head, &e->desc);
	if (r > 0)
		return 0;
	if (r < 0)
		return zc_err(ZCAST_ECORRUPT, "topic %s: ring of subscriber %u is corrupted",
			      s->t.name, s->index);
	const struct zc_sub_hooks *hk = atomic_load_explicit(&s->hooks, memory_order_acquire);
	if (hk)
		hk->drained(s); /* e.g. the descriptor is cleared and watched again */
	zc_err_clear();
	return ZCAST_EAGAIN;
}

/* Maps the descriptor's pool (headers) and checks its slot: state, generation and our bit must all
 * agree, the size is read once and checked. Never trusts the descriptor. */
ZC_HOT static int check_slot(zcast_sub *s, struct entry *e)
{
	int r = zc_pool_get_hinted(&s->t, &s->map_hint, ZC_DESC_POOL(e->desc), &e->map);
	if (r == ZCAST_ECORRUPT)
		return pop_unusable(s, e, true);
	if (r < 0)
		return keep_queued(s, e, r); /* e.g. out of descriptors */
	struct zc_pool_map *m = e->map;
	e->i = ZC_DESC_SLOT(e->desc);
	uint32_t bit = ZC_SUB_BIT(s->index);
	struct zc_slot_hdr *sl = e->i < m->slot_count ? zc_slot(m, e->i) : NULL;
	/* The caller reads the payload next: its first line is asked for now, beside the slot
	 * header's, not after it (both were written by the publisher's core). */
	uint8_t *mapped = sl ? zc_pool_payload_mapped(m) : NULL;
	if (mapped)
		__builtin_prefetch(mapped + (uint64_t)e->i * m->slot_size);
	uint64_t w = sl ? atomic_load_explicit(&sl->state, memory_order_acquire) : 0;
	if (!sl || ZC_STATE_ST(w) != ZC_SLOT_PUBLISHED ||
	    (uint32_t)ZC_STATE_GEN(w) != ZC_DESC_GEN(e->desc) ||
	    !(atomic_load(&sl->bits[bit / 64]) & (1ull << (bit % 64))))
		return pop_unusable(s, e, true); /* its slot is not ours: nothing to release */
	e->slot = sl;
	e->gen = ZC_STATE_GEN(w);
	e->size = ZC_READ_ONCE(sl->size);
	if (e->size > m->slot_size)
		return pop_unusable(s, e, true);
	return 0;
}

/* The payload (mapped read-only on the first take from the pool). */
ZC_HOT static int map_payload(zcast_sub *s, struct entry *e)
{
	int r = zc_pool_payload(e->map, &s->t, &e->payload);
	if (r == ZCAST_ECORRUPT) /* the pool's file is gone or replaced: never deliverable here */
		return pop_unusable(s, e, false);
	return r == 0 ? 0 : keep_queued(s, e, r); /* zc_pool_payload said why */
}

/* A message struct: the spare of the last release, else a fresh one. */
ZC_HOT static zcast_msg *msg_struct(zcast_sub *s)
{
	zcast_msg *msg = atomic_exchange_explicit(&s->spare, NULL, memory_order_acquire);
	return msg ? msg : malloc(sizeof *msg);
}

static void msg_struct_back(zcast_sub *s, zcast_msg *msg)
{
	zcast_msg *none = NULL;
	if (!atomic_compare_exchange_strong(&s->spare, &none, msg))
		free(msg);
}

/* The entry is ours (popped): it becomes msg. Everything the caller may ask about it later is
 * copied from the slot header now: the publisher may rewrite its slot header, never our copy. */
ZC_HOT static void fill_msg(zcast_sub *s, const struct entry *e, zcast_msg *msg)
{
	const struct zc_slot_hdr *sl = e->slot;
	atomic_init(&msg->refs, 1);
	atomic_init(&msg->kind, ZC_MSG_RECEIVED);
	msg->stamp.sequence = ZC_READ_ONCE(sl->seq);
	msg->stamp.publish_time_ns = ZC_READ_ONCE(sl->time_ns);
	msg->publisher_id = ZC_READ_ONCE(sl->publisher_id);
	msg->slot = e->i;
	msg->gen = e->gen;
	msg->data = e->payload + (uint64_t)e->i * e->map->slot_size;
	atomic_store_explicit(&s->next_lines[0], (const void *)sl, memory_order_relaxed);
	atomic_store_explicit(&s->next_lines[1], (const void *)msg->data, memory_order_relaxed);
	msg->size = (size_t)e->size;
	msg->map = e->map;
	msg->pub = NULL;
	msg->sub = s;
	msg->compacted = false;
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->held, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->rec->held, 1, memory_order_relaxed);
}

/* The commit point: the head CAS decides whether the entry is ours. */
ZC_HOT static int commit(zcast_sub *s, struct entry *e, zcast_msg **out)
{
	zcast_msg *msg = msg_struct(s);
	if (!msg)
		return keep_queued(s, e, zc_err(ZCAST_ENOMEM, "out of memory"));
	if (!zc_ring_pop(&s->ring, e->head)) {
		msg_struct_back(s, msg);
		zc_pool_put(e->map);
		return LOOK_AGAIN; /* another taker, or a DROP_OLD drop */
	}
	ZC_CRASH("take:after-pop");
	zc_wake_space(s->t.hdr); /* a FULL publisher may wait for this room */
	fill_msg(s, e, msg);
	*out = msg;
	return 0;
}

/* One attempt on the entry at the head: 0 (taken), LOOK_AGAIN, or an error. */
ZC_HOT static int take_head(zcast_sub *s, zcast_msg **out)
{
	struct entry e = {0};
	int r = peek(s, &e);
	if (r == 0)
		r = check_slot(s, &e);
	if (r == 0) {
		ZC_PAUSE("take:before-payload"); /* tests: a race window (test_take_lost_race) */
		r = map_payload(s, &e);
	}
	if (r == 0)
		r = commit(s, &e, out);
	return r;
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
	int r;
	while ((r = take_head(s, out)) == LOOK_AGAIN) {
	}
	return r;
}
