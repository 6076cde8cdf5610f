/* History (Transient Local): the control segment keeps the last D published descriptors of the
 * topic in a circular index [hist_start, hist_end), D the largest depth any publisher asked for. A
 * slot in the window carries the history bit; eviction clears it. Under the topic lock; the window
 * bounds are read once and checked, a corrupted window is forgotten rather than trusted. */
#include "proto_internal.h"

/* The window, or false when it is inconsistent. */
static bool window(struct zc_topic *t, uint64_t *start, uint64_t *end)
{
	*start = atomic_load(&t->hdr->hist_start);
	*end = atomic_load(&t->hdr->hist_end);
	return t->history_cap && *end >= *start && *end - *start <= t->history_cap;
}

bool zc_history_contains(struct zc_topic *t, uint64_t desc)
{
	uint64_t start, end;
	if (!window(t, &start, &end))
		return false;
	for (uint64_t p = start; p < end; p++)
		if (atomic_load(&t->history[p % t->history_cap]) == desc)
			return true;
	return false;
}

void zc_history_trim(struct zc_topic *t, uint32_t depth)
{
	struct zc_topic_hdr *h = t->hdr;
	uint64_t start, end;
	if (!window(t, &start, &end)) {
		atomic_store(&h->hist_start, atomic_load(&h->hist_end)); /* forget the window */
		return;
	}
	while (end - start > depth) {
		uint64_t d = atomic_load(&t->history[start % t->history_cap]);
		ZC_STORE(h->intent.evict_desc, d);
		ZC_STORE(h->intent.evict_pending, 1);
		atomic_store(&h->hist_start, ++start);
		ZC_CRASH("history:after-evict-advance");
		zc_release_desc_bit(t, d, ZC_HIST_BIT);
		ZC_STORE(h->intent.evict_pending, 0);
	}
}

void zc_history_append(struct zc_topic *t, uint64_t desc, uint32_t depth)
{
	struct zc_topic_hdr *h = t->hdr;
	/* Evict first: with depth == capacity the new entry's cell is the oldest entry's. */
	zc_history_trim(t, depth - 1);
	uint64_t end = atomic_load(&h->hist_end);
	atomic_store(&t->history[end % t->history_cap], desc);
	atomic_store(&h->hist_end, end + 1);
	ZC_CRASH("publish:after-history");
	zc_history_trim(t, depth);
}

/* Late join: the history bit is set on every entry in the window, so none can be reclaimed while we
 * add our bit (bits are only added to a loaned slot or, under the lock, to one with the history
 * bit). */
uint32_t zc_history_deliver(struct zc_topic *t, uint32_t k, const struct zc_ring *ring,
			    uint32_t want)
{
	uint64_t start, end;
	uint32_t queued = 0;
	if (!window(t, &start, &end))
		return 0;
	if (want > ring->depth)
		want = ring->depth;
	if (end - start > want)
		start = end - want;
	uint32_t bit = ZC_SUB_BIT(k);
	for (uint64_t pos = start; pos < end; pos++) {
		uint64_t d = atomic_load(&t->history[pos % t->history_cap]);
		struct zc_pool_map *m;
		if (zc_pool_get(t, ZC_DESC_POOL(d), &m) != 0)
			continue;
		uint32_t i = ZC_DESC_SLOT(d);
		if (i < m->slot_count) {
			struct zc_slot_hdr *sl = zc_slot(m, i);
			uint64_t w = atomic_load(&sl->state);
			if (ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED &&
			    (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d) &&
			    (atomic_load(&sl->bits[0]) & (1ull << ZC_HIST_BIT))) {
				atomic_fetch_or(&sl->bits[bit / 64], 1ull << (bit % 64));
				ZC_CRASH("join:history");
				zc_ring_push(ring, d);
				atomic_fetch_add(&t->subs[k].delivered, 1);
				queued++;
			}
		}
		zc_pool_put(m);
	}
	return queued;
}
