/* The topic lock with repair: when a lock holder died, the next locker finishes or rolls back what
 * the holder's intent record says it was doing, reclaims dead members and performs a wake the
 * holder owed. Every intent field is read once into a local and range checked: a member that
 * scribbles on the intent can make repair wrong for its own messages, never make it index outside
 * the segment. */
#include "proto_internal.h"

#define LOCK_TIMEOUT_NS 2000000000ll

/* A target keeps its bit only if the descriptor reached its ring: the ring's tail moved past the
 * tail recorded before the push, by the publish with this sequence number. */
static void rollback_targets(struct zc_topic *t, struct zc_slot_hdr *s, uint64_t seq)
{
	for (uint32_t k = 0; k < t->max_subs; k++) {
		uint32_t bit = ZC_SUB_BIT(k);
		if (!(atomic_load(&s->bits[bit / 64]) & (1ull << (bit % 64))))
			continue;
		struct zc_sub_rec *r = &t->subs[k];
		uint64_t push_seq = r->push_seq, push_tail = r->push_tail;
		struct zc_ring ring = zc_sub_ring(t, k, 1);
		bool pushed = push_seq == seq && zc_ring_pushed_since(&ring, push_tail);
		if (!pushed)
			atomic_fetch_and(&s->bits[bit / 64], ~(1ull << (bit % 64)));
	}
}

static void recover_publish(struct zc_topic *t, uint64_t d, uint64_t seq)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, ZC_DESC_POOL(d), &m) != 0)
		return;
	uint32_t i = ZC_DESC_SLOT(d);
	uint64_t w = i < m->slot_count ? atomic_load(&zc_slot(m, i)->state) : 0;
	if (i < m->slot_count && (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d) &&
	    ZC_STATE_ST(w) != ZC_SLOT_FREE) {
		struct zc_slot_hdr *s = zc_slot(m, i);
		rollback_targets(t, s, seq);
		if (!zc_history_contains(t, d))
			atomic_fetch_and(&s->bits[0], ~(1ull << ZC_HIST_BIT));
		uint64_t gen = ZC_STATE_GEN(w);
		if (ZC_STATE_ST(w) == ZC_SLOT_LOANED) {
			if (zc_slot_bits_zero(m, i))
				zc_slot_free(m, i, ZC_SLOT_LOANED, gen);
			else
				atomic_store(&s->state, ZC_STATE(ZC_SLOT_PUBLISHED, gen));
		} else {
			zc_slot_try_free(m, i, gen);
		}
	}
	zc_pool_put(m);
}

/* Did the publish with this sequence reach anybody: a subscriber's ring (its tail moved past the one
 * recorded before the push, by this publish; whether taken since or not) or the history? Asked of
 * every record, not only the slot's bits: a subscriber may have taken and released it already. */
static bool publish_reached(struct zc_topic *t, uint64_t d, uint64_t seq)
{
	for (uint32_t k = 0; k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint64_t push_seq = r->push_seq, push_tail = r->push_tail;
		struct zc_ring ring = zc_sub_ring(t, k, 1);
		if (push_seq == seq && zc_ring_pushed_since(&ring, push_tail))
			return true;
	}
	return zc_history_contains(t, d);
}

/* Finishes or rolls back what a dead lock holder was doing (its intent record). */
static void recover_intent(struct zc_topic *t)
{
	/* SYNC: intent; partner core/publish.c begin_publish */
	struct zc_intent *in = &t->hdr->intent;
	uint32_t drop_sub = ZC_LOAD(in->drop_sub), op = ZC_READ_ONCE(in->op),
		 evict_pending = ZC_LOAD(in->evict_pending);
	uint64_t drop_head = ZC_LOAD(in->drop_head), drop_desc = ZC_LOAD(in->drop_desc),
		 evict_desc = ZC_LOAD(in->evict_desc);
	uint64_t desc = ZC_LOAD(in->desc), seq = ZC_LOAD(in->seq);
	uint32_t mark = ZC_LOAD(in->mark);
	if (drop_sub < t->max_subs) {
		struct zc_ring ring = zc_sub_ring(t, drop_sub, 1);
		if (zc_ring_dropped_since(&ring, drop_head))
			zc_release_desc_bit(t, drop_desc, ZC_SUB_BIT(drop_sub));
	}
	ZC_STORE(in->drop_sub, ZC_NO_SUB);
	if (evict_pending && !zc_history_contains(t, evict_desc))
		zc_release_desc_bit(t, evict_desc, ZC_HIST_BIT);
	ZC_STORE(in->evict_pending, 0);
	if (op == ZC_OP_PUBLISH) {
		if (mark && publish_reached(t, desc, seq))
			atomic_store(&t->hdr->last_mark, mark);
		recover_publish(t, desc, seq);
	}
	ZC_WRITE_ONCE(in->op, ZC_OP_NONE);
}

void zc_repair_alone(struct zc_topic *t)
{
	/* Exclusive on byte 0: nobody else is attached, so nobody can hold the lock legitimately.
	 */
	atomic_store(&t->hdr->lock.word,
		     ZC_LOCK_MAKE(ZC_LOCK_EPOCH(atomic_load(&t->hdr->lock.word)), 0));
	recover_intent(t);
	t->reclaimed_at_attach = zc_reclaim(t);
	atomic_store(&t->hdr->wake_owed, 0); /* nobody is attached: nobody sleeps */
}

/* A wake marked owed is paid by its publisher right after its unlock. A locker pays it only when it
 * is stale: the same mark it found at its previous acquisition, which its publisher had a whole
 * critical section of ours and more to pay. Paying a live publisher's mark at first sight woke
 * every sleeper and rang every doorbell under the lock in 4.2 % of acquisitions with two
 * publishers. A dead publisher's mark is also paid by its reclaim (the death watcher's), which
 * wakes everybody whatever the mark says (a later mark may have replaced its). Costs one load of
 * the mark and a compare with a process-local copy: no syscall, no shared write. */
ZC_HOT static void pay_if_stale(struct zc_topic *t)
{
	uint64_t owed = atomic_load_explicit(&t->hdr->wake_owed, memory_order_relaxed);
	if (!owed)
		return;
	/* The process's copy (one per mapping, shared by its handles; under the topic lock). */
	uint64_t *seen = t->owed_seen ? t->owed_seen : &t->owed_seen_own;
	if (owed == *seen)
		zc_wake_owed(t); /* a publisher died (or stalls) between its unlock and its wake */
	*seen = owed;
}

/* timeout_ns < 0: none. stop: NULL, or ends the wait (zc_topic_lock_until). */
ZC_HOT static int lock_within(struct zc_topic *t, int64_t timeout_ns, const struct zc_wword *stop)
{
	int r = zc_lock_acquire(t, timeout_ns, stop);
	if (r == ZC_LOCK_OWNER_DEAD) {
		recover_intent(t);
		zc_reclaim(t);
		r = 0;
	}
	if (r == 0)
		pay_if_stale(t);
	return r;
}

ZC_HOT int zc_topic_lock(struct zc_topic *t)
{
	return lock_within(t, LOCK_TIMEOUT_NS, NULL);
}

ZC_HOT int zc_topic_lock_unless(struct zc_topic *t, const struct zc_wword *stop)
{
	return lock_within(t, LOCK_TIMEOUT_NS, stop);
}

/* How long a close waits for a live holder. zc_topic_lock's 2 s made a close skip its work when a
 * descheduled holder kept the lock that long (load 20-50), and the record stayed until a reclaim
 * found the member gone (test close_lock_held). Unbounded, a word naming a live member that never
 * moves (a scribble, perhaps naming another handle of this very process) would hang the close for
 * ever; after this long the close gives up as before. Each try sleeps on the lock word, woken by
 * the holder's release or death: this bounds a scribble, it is not how a close is woken. */
#define CLOSE_PATIENCE_NS 30000000000ll

int zc_topic_lock_for_close(struct zc_topic *t)
{
	return zc_topic_lock_until(t, zc_now_ns() + CLOSE_PATIENCE_NS, NULL, NULL, NULL);
}

/* The one retry rule of the lock's callers: its 2 s timeout (a live holder that kept it, or kept
 * winning it, that long: one descheduled on a loaded machine) does not end a wait that has time. */
int zc_topic_lock_retry(struct zc_topic *t, int64_t deadline, const struct zc_wword *stop,
			bool (*again)(void *), void *arg)
{
	int r = ZCAST_ETIMEDOUT;
	while (r == ZCAST_ETIMEDOUT && deadline != 0 && zc_now_ns() < deadline) {
		if (stop && atomic_load(stop->word) != stop->val) {
			/* Called off just as the try timed out (a stop wakes the try it falls in).
			 * Tests hold a wait here: one that got here after its close outlived it
			 * (publish_wait_close_prompt). */
			ZC_PAUSE("lock:stopped-after-try");
			return zc_err(ZCAST_ESTALE,
				      "topic %s: the wait for its lock was called off", t->name);
		}
		if (again && !again(arg))
			break;
		r = lock_within(t, LOCK_TIMEOUT_NS, stop);
	}
	return r;
}

ZC_HOT void zc_topic_unlock(struct zc_topic *t)
{
	zc_lock_release(t);
}
