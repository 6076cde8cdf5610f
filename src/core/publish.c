/* Publish: under the topic lock, choose the targets, set their holder bits, push one descriptor per
 * target, append to history; wake the sleepers after unlocking (the wake is owed until done).
 *
 * Subscriber records are written by their owners and by anyone who scribbles: each record's state,
 * policy, group and depth are read once here, checked, and only the copies are used, so a hostile
 * value can make its own subscriber miss messages but never move a store outside its ring. */
#include <limits.h>
#include <stdlib.h>

#include "core_internal.h"
#include "doorbell.h"

#define REPROBE_NS 10000000 /* a ring stuck at one head is probed again after 10 ms */

/* A full ring: is its owner dead? Probed once per head position, and again only if the head stays
 * put for REPROBE_NS: an overloaded topic does not probe on every rejected publish, and an owner
 * that dies after a probe is still found. */
static bool full_ring_owner_dead(struct zc_topic *t, uint32_t k)
{
	struct zc_sub_rec *r = &t->subs[k];
	uint64_t head = atomic_load(&r->head);
	int64_t now = zc_now_ns();
	if (r->probed_head == head && now - r->probed_ns < REPROBE_NS)
		return false;
	r->probed_head = head;
	r->probed_ns = now;
	return !zc_member_alive(t, zc_member_of_sub(t, k));
}

/* Does subscriber k's ring (a view of depth `ring->depth`) have room for one more entry? Decided
 * from the head this publisher saw last when that proves it (see struct zc_seen_head); the head
 * itself is read only when the ring looks full. Under the lock: only lock holders move the tail. */
ZC_HOT static bool ring_has_room(zcast_pub *p, uint32_t k, const struct zc_ring *ring)
{
	struct zc_seen_head *seen = &p->seen[k];
	uint64_t id = ZC_READ_ONCE(p->t.subs[k].id), tail = zc_ring_tail(ring);
	if (seen->id == id && ((tail - seen->head) & ZC_POS_MASK) < ring->depth)
		return true;
	/* SYNC: seq_cst, after zc_space_arm's announce, against a take's pop then its read of
	 * space_waiters (ring.c, zc_ring_pop). A plain load on x86. */
	uint64_t head = ZC_HEAD_POS(atomic_load_explicit(ring->head, memory_order_seq_cst));
	seen->id = id;
	seen->head = head;
	return ((tail - head) & ZC_POS_MASK) < ring->depth;
}

struct candidate {
	uint32_t k, group, depth;
};

/* A full queue refuses this publish: count it (once per attempt) and look for a dead owner. */
static void refused(struct zc_topic *t, uint32_t k, bool count, bool *probe_dead)
{
	if (count)
		atomic_fetch_add_explicit(&t->subs[k].rejected, 1, memory_order_relaxed);
	if (full_ring_owner_dead(t, k))
		*probe_dead = true;
}

/* One member of group g with room, round robin from the group's cursor; UINT32_MAX if none. Sets
 * *any when the group has a member at all. */
static uint32_t choose_member(zcast_pub *p, const struct candidate *c, uint32_t n, uint32_t g,
			      uint32_t *depth, bool *any)
{
	struct zc_topic *t = &p->t;
	uint32_t next = ZC_READ_ONCE(t->groups[g].next), best = UINT32_MAX, first = UINT32_MAX;
	for (uint32_t j = 0; j < n; j++) {
		if (c[j].group != g)
			continue;
		*any = true;
		struct zc_ring ring = zc_sub_ring(t, c[j].k, c[j].depth);
		if (!ring_has_room(p, c[j].k, &ring))
			continue;
		if (c[j].k >= next && (best == UINT32_MAX || c[j].k < c[best].k))
			best = j;
		if (first == UINT32_MAX || c[j].k < c[first].k)
			first = j;
	}
	if (best == UINT32_MAX)
		best = first; /* wrap around */
	if (best == UINT32_MAX)
		return UINT32_MAX;
	*depth = c[best].depth;
	return c[best].k;
}

/* Chooses targets (p->targets, p->depths); returns their count, or ZCAST_EAGAIN. Under the lock. */
ZC_HOT static int select_targets(zcast_pub *p, bool count, bool *probe_dead)
{
	struct zc_topic *t = &p->t;
	uint32_t hi = atomic_load(&t->hdr->sub_hi);
	if (hi > t->max_subs)
		hi = t->max_subs;
	struct candidate *rr = (struct candidate *)p->rr_wake; /* scratch, max_subs entries */
	uint32_t n = 0, n_rr = 0;
	bool fail = false;
	for (uint32_t k = 0; k < hi; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		/* SYNC: rec-active: ACTIVE before the ring; partner core/sub.c zcast_sub_open */
		if (atomic_load_explicit(&r->state, memory_order_acquire) != ZC_REC_ACTIVE)
			continue;
		uint32_t policy = ZC_READ_ONCE(r->policy), group = ZC_READ_ONCE(r->group);
		uint32_t depth = zc_valid_depth(t, ZC_READ_ONCE(r->depth));
		if (!depth)
			continue; /* scribbled on: not a target */
		if (policy == ZCAST_POLICY_BALANCE_RR) {
			if (group < t->max_groups)
				rr[n_rr++] = (struct candidate){k, group, depth};
			continue;
		}
		struct zc_ring ring = zc_sub_ring(t, k, depth);
		if (policy != ZCAST_POLICY_DROP_OLD && !ring_has_room(p, k, &ring)) {
			refused(t, k, count, probe_dead);
			fail = true;
			continue;
		}
		p->targets[n] = k;
		p->depths[n++] = depth | (policy == ZCAST_POLICY_DROP_OLD ? 0x80000000u : 0);
	}
	for (uint32_t g = 0; g < t->max_groups && n_rr; g++) {
		if (atomic_load(&t->groups[g].members) == 0)
			continue;
		bool any = false;
		uint32_t depth = 0, k = choose_member(p, rr, n_rr, g, &depth, &any);
		if (k != UINT32_MAX) {
			t->groups[g].next = k + 1; /* round robin: the next member is tried first */
			p->targets[n] = k;
			p->depths[n++] = depth | 0x40000000u;
		} else if (any) {
			for (uint32_t j = 0; j < n_rr; j++)
				if (rr[j].group == g)
					refused(t, rr[j].k, count, probe_dead);
			fail = true;
		}
	}
	return fail ? ZCAST_EAGAIN : (int)n;
}

#define DEPTH_OF(x) ((x)&0x3fffffffu)
#define IS_DROP_OLD(x) (((x)&0x80000000u) != 0)
#define IS_RR(x) (((x)&0x40000000u) != 0)

/* Makes room in a DROP_OLD ring by dropping its oldest entry (drop_old.c). */
static void drop_oldest(struct zc_topic *t, uint32_t k, const struct zc_ring *ring)
{
	uint64_t head, old;
	while (zc_ring_used(ring) >= ring->depth && zc_ring_peek(ring, &head, &old) == 1)
		if (zc_drop_head(t, k, ring, head, old))
			return;
}

/* The lines the next publish touches that other cores wrote last: the topic lock, `notify`, and
 * for the targets of the last publish (most likely the next ones) the record's first line
 * (`sleepers`, read), its waker's line (`woken`), the tail's line and the next cell. Asked for at
 * once, at the loan and again at the publish, their transfers overlap one another, the loan's CAS
 * and the caller's writing, instead of following one another behind each seq_cst store. Hints
 * only: a target that changed costs a useless prefetch; indexes are ours, checked, or masked. */
ZC_HOT static void prefetch_push(const zcast_pub *p, uint32_t k)
{
	const struct zc_topic *t = &p->t;
	uint64_t next_tail = atomic_load_explicit(&p->seen[k].next_tail, memory_order_relaxed);
	struct zc_sub_rec *r = &t->subs[k];
	__builtin_prefetch(r);
	zc_prefetch_write(&r->woken);
	zc_prefetch_write(&r->tail);
	zc_prefetch_write(&t->rings[(uint64_t)k * t->ring_cells + (next_tail & (t->ring_cells - 1u))]);
}

ZC_HOT void zc_pub_prefetch(zcast_pub *p)
{
	struct zc_topic *t = &p->t;
	zc_prefetch_write(&t->hdr->lock);
	zc_prefetch_write(&t->hdr->notify);
	uint32_t n = atomic_load_explicit(&p->hint_n, memory_order_relaxed);
	for (uint32_t j = 0; j < n && j < ZC_PREFETCH_TARGETS; j++) {
		uint32_t k = atomic_load_explicit(&p->hint_sub[j], memory_order_relaxed);
		if (k < t->max_subs)
			prefetch_push(p, k);
	}
}

/* The subscribers this message goes to (p->targets, p->depths); when a full queue's owner may be
 * dead, reclaims once and selects again. */
static int select_or_reclaim(zcast_pub *p)
{
	bool probe_dead = false;
	int n = select_targets(p, true, &probe_dead);
	if (n == ZCAST_EAGAIN && probe_dead) {
		zc_reclaim(&p->t);
		probe_dead = false;
		n = select_targets(p, false, &probe_dead);
	}
	return n;
}

/* Intent first: a crash from here on is finished or rolled back by the next locker. Then the
 * sequence and the slot's stamp. */
static void begin_publish(zcast_pub *p, zcast_msg *msg, struct zc_slot_hdr *s, uint64_t desc,
			  uint64_t seq, int64_t now)
{
	struct zc_topic_hdr *h = p->t.hdr;
	ZC_STORE(h->intent.desc, desc);
	ZC_STORE(h->intent.seq, seq);
	ZC_STORE(h->intent.mark, msg->mark);
	/* SYNC: intent: the record before the op; partner proto/topic_lock.c recover_intent */
	atomic_store_explicit((_Atomic uint32_t *)&h->intent.op, ZC_OP_PUBLISH,
			      memory_order_release);
	ZC_CRASH("publish:after-intent");
	atomic_store_explicit(&h->last_seq, seq, memory_order_release); /* only lockers write it */
	ZC_WRITE_ONCE(s->seq, seq);
	ZC_WRITE_ONCE(s->time_ns, now);
	ZC_WRITE_ONCE(s->size, msg->size);
	ZC_WRITE_ONCE(s->publisher_id, p->id);
}

/* Holder bits before the descriptor is visible: a queued message is already a reference. The
 * slot is our loan, so nobody else adds or clears a bit now (slot_release.c): the words are stored
 * whole, no read-modify-write. Word 0 (history and subscribers 0..62) shares the state line. Then
 * the slot is PUBLISHED. */
static void mark_published(zcast_pub *p, zcast_msg *msg, struct zc_slot_hdr *s, int n,
			   uint32_t hist_depth)
{
	uint64_t w0 = hist_depth ? 1ull << ZC_HIST_BIT : 0;
	for (int j = 0; j < n; j++) {
		uint32_t bit = ZC_SUB_BIT(p->targets[j]);
		if (bit < 64)
			w0 |= 1ull << bit;
		else
			atomic_fetch_or_explicit(&s->bits[bit / 64], 1ull << (bit % 64),
						 memory_order_relaxed);
	}
	atomic_store_explicit(&s->bits[0], w0, memory_order_relaxed);
	ZC_CRASH("publish:after-bits");
	/* SYNC: slot-published: stamp and bits before the state; partner core/take.c zcast_take */
	atomic_store_explicit(&s->state, ZC_STATE(ZC_SLOT_PUBLISHED, msg->gen),
			      memory_order_release);
	ZC_CRASH("publish:after-state");
}

/* Pushes desc to subscriber k's ring (dropping its oldest first if it asked for that and is
 * full), recording tail and sequence for repair first. */
static void push_one(zcast_pub *p, uint32_t j, uint32_t k, uint32_t d, uint64_t desc, uint64_t seq)
{
	struct zc_topic *t = &p->t;
	struct zc_sub_rec *r = &t->subs[k];
	struct zc_ring ring = zc_sub_ring(t, k, DEPTH_OF(d));
	if (IS_DROP_OLD(d) && !ring_has_room(p, k, &ring))
		drop_oldest(t, k, &ring);
	/* Repair tells "was it pushed" from these: tail before the push, then our sequence. */
	uint64_t tail = zc_ring_tail(&ring);
	atomic_store_explicit(&r->push_tail, tail, memory_order_release);
	atomic_store_explicit(&r->push_seq, seq, memory_order_release);
	zc_ring_push_at(&ring, tail, desc);
	ZC_CRASH("publish:after-push");
	atomic_store_explicit(&p->seen[k].next_tail, tail + 1, memory_order_relaxed);
	if (j < ZC_PREFETCH_TARGETS)
		atomic_store_explicit(&p->hint_sub[j], k, memory_order_relaxed);
	/* Only lock holders write it: no read-modify-write needed. */
	atomic_store_explicit(&r->delivered,
			      atomic_load_explicit(&r->delivered, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* After the push to subscriber k: rings its wait set's doorbell, and marks the wake its sleepers
 * are owed (an RR member is woken alone after the unlock; a topic wake covers the others). */
static void wake_after_push(zcast_pub *p, uint32_t k, uint32_t d, bool *wake_topic,
			    uint32_t *n_rr)
{
	struct zc_sub_rec *r = &p->t.subs[k];
	/* Read once: a scribbled reference can only ring somebody's doorbell for nothing.
	 * seq_cst: after our tail store, against try_bell's CAS and the owner's look at the
	 * ring that follows it (one of us sees the other). */
	/* SYNC: bell-ref: the push before this read; partner wait/ws_entries.c try_bell */
	uint64_t bell = atomic_load_explicit(&r->bell, memory_order_seq_cst);
	if (bell)
		zc_bell_push(p, k, bell); /* a wait set: its bit, and its word if it sleeps */
	/* SYNC: sub-sleep; partner core/sub.c zc_sub_arm */
	uint64_t sleep = atomic_load_explicit(&r->sleepers, memory_order_seq_cst);
	if (!ZC_SLEEPERS(sleep))
		return;
	if (IS_RR(d)) {
		atomic_fetch_add(&r->wake, 1);
		p->rr_wake[(*n_rr)++] = k; /* woken after unlock: one message, one worker */
	} else if (atomic_load_explicit(&r->woken, memory_order_relaxed) != ZC_SLEEP_EPOCH(sleep)) {
		/* Our wake (or the owed one, if we die) reaches every thread that announced up to
		 * this epoch: the publishes after ours make no syscall for it until one announces
		 * again. Lock holders only. */
		atomic_store_explicit(&r->woken, ZC_SLEEP_EPOCH(sleep), memory_order_relaxed);
		*wake_topic = true;
	}
}

/* Is one of the n targets selected a BALANCE_RR member (p->needs_rr)? */
static bool reaches_rr(const zcast_pub *p, int n)
{
	for (int j = 0; j < n; j++)
		if (IS_RR(p->depths[j]))
			return true;
	return false;
}

/* Under the topic lock: selects the targets, writes the intent, stamps and publishes the slot,
 * pushes to every target and marks their wakes, appends to the history, clears the intent. */
static int publish_locked(zcast_pub *p, zcast_msg *msg, int64_t now, bool *wake_topic,
			  uint32_t *n_rr)
{
	struct zc_topic *t = &p->t;
	struct zc_topic_hdr *h = t->hdr;
	int n = select_or_reclaim(p);
	if (n < 0)
		return n;
	if (p->needs_rr && !reaches_rr(p, n))
		return ZCAST_ENOSERVER; /* before the intent: nothing to roll back, the loan is kept */
	struct zc_pool_map *m = p->pool;
	struct zc_slot_hdr *s = zc_slot(m, msg->slot);
	uint64_t desc = ZC_DESC(p->pool_index, msg->slot, msg->gen);
	uint64_t seq = atomic_load(&h->last_seq) + 1;
	uint32_t hist_depth = atomic_load(&h->hist_depth);
	if (hist_depth > t->history_cap)
		hist_depth = t->history_cap;

	begin_publish(p, msg, s, desc, seq, now);
	mark_published(p, msg, s, n, hist_depth);
	for (int j = 0; j < n; j++) {
		/* The loan asked for the first targets' lines; the rest are asked for this far ahead. */
		if (j + ZC_PREFETCH_TARGETS < n)
			prefetch_push(p, p->targets[j + ZC_PREFETCH_TARGETS]);
		push_one(p, (uint32_t)j, p->targets[j], p->depths[j], desc, seq);
		wake_after_push(p, p->targets[j], p->depths[j], wake_topic, n_rr);
	}
	atomic_store_explicit(&p->hint_n, (uint32_t)n, memory_order_relaxed);
	if (hist_depth)
		zc_history_append(t, desc, hist_depth);
	if (n == 0 && !hist_depth)
		zc_slot_try_free(m, msg->slot, msg->gen); /* nobody listens: the slot comes back */
	else if (msg->mark) /* it reached somebody (repair decides the same for a dead holder) */
		atomic_store_explicit(&h->last_mark, msg->mark, memory_order_relaxed);
	atomic_store_explicit((_Atomic uint32_t *)&h->intent.op, ZC_OP_NONE, memory_order_release);
	return 0;
}

/* A try for the topic lock: the loan's hints are asked for again (stale after a long fill) and
 * the publish time is read before the lock, not inside it; after a lock timeout, again, so the
 * stamp is never older than the try that got the lock. A close ends the wait through the stop
 * word (publish_once), in the middle of a try. */
struct lock_try {
	zcast_pub *p;
	int64_t now;
};

static bool lock_try_again(void *arg)
{
	struct lock_try *a = arg;
	zc_pub_prefetch(a->p);
	a->now = zc_now_ns();
	return true;
}

/* One publish, its lock timeouts retried while the caller's deadline has time left (before, an
 * infinite zcast_publish_wait returned ZCAST_ETIMEDOUT: test publish_wait_lock_held). */
ZC_HOT static int publish_once(zcast_pub *p, zcast_msg *msg, int64_t deadline)
{
	struct zc_topic_hdr *h = p->t.hdr;
	bool wake_topic = false;
	uint32_t n_rr = 0;
	zc_pub_prefetch(p);
	struct lock_try a = {p, zc_now_ns()};
	struct zc_wword closed = {&p->closed, 0, 1};
	int r = zc_topic_lock_until(&p->t, deadline, &closed, lock_try_again, &a);
	if (r == ZCAST_ESTALE)
		return zc_err(ZCAST_ESTALE,
			      "publisher of %s was closed while waiting for the topic lock",
			      p->t.name);
	if (r < 0)
		return r;
	r = publish_locked(p, msg, a.now, &wake_topic, &n_rr);
	uint32_t n_bells = zc_bell_pending(p);
	uint64_t owed = r == 0 && (wake_topic || n_rr || n_bells) ? zc_wake_owe(h) : 0;
	if (wake_topic) /* bumped under the lock: a sleeper that read the word before sleeps no more
			 */
		atomic_fetch_add_explicit(&h->notify, 1, memory_order_seq_cst);
	zc_topic_unlock(&p->t);
	ZC_CRASH("publish:before-wake"); /* the wake is owed: a locker finding it stale, or reclaim */
	ZC_PAUSE("publish:before-wake"); /* tests: a live publisher slow to wake (owed_wake_live) */
	for (uint32_t i = 0; i < n_rr; i++)
		zc_futex_wake(&p->t.subs[p->rr_wake[i]].wake, 1);
	if (wake_topic)
		zc_futex_wake(&h->notify,
			      INT_MAX); /* one wake for every sleeping broadcast subscriber */
	if (n_bells)
		zc_bell_wake_pending(p); /* one wake per sleeping wait set */
	if (owed)
		zc_wake_paid(h, owed);
	return r;
}

/* The subscriber whose full queue refused the last attempt, for the error message. */
static int refused_error(zcast_pub *p)
{
	struct zc_topic *t = &p->t;
	uint32_t hi = atomic_load(&t->hdr->sub_hi);
	for (uint32_t k = 0; k < hi && k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t depth = zc_valid_depth(t, ZC_READ_ONCE(r->depth)), policy = ZC_READ_ONCE(r->policy);
		if (atomic_load(&r->state) != ZC_REC_ACTIVE || !depth ||
		    policy == ZCAST_POLICY_DROP_OLD)
			continue;
		struct zc_ring ring = zc_sub_ring(t, k, depth);
		if (zc_ring_used(&ring) >= depth)
			return zc_err(ZCAST_EAGAIN,
				      "topic %s: the queue of subscriber %llu (pid %d, %s) is full "
				      "(%u of %u)",
				      t->name, (unsigned long long)r->id, (int)r->pid,
				      policy == ZCAST_POLICY_FULL ? "FULL" : "BALANCE_RR group",
				      depth, depth);
	}
	return zc_err(ZCAST_EAGAIN, "topic %s: a subscriber queue is full", t->name);
}

ZC_HOT static int publish_impl(zcast_pub *p, zcast_msg *msg, int64_t deadline)
{
	if (!p || !msg)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	if (atomic_load(&msg->kind) != ZC_MSG_LOAN || msg->pub != p) {
#ifdef ZCAST_DEBUG_CHECKS
		abort();
#endif
		return zc_err(ZCAST_ESTALE, "message is not an unpublished loan of this publisher");
	}
	if (atomic_load(&p->closed))
		return zc_err(ZCAST_ESTALE,
			      "publisher of %s is closed: the loan can only be dropped", p->t.name);
	struct zc_topic_hdr *h = p->t.hdr;
	int r = publish_once(p, msg, deadline);
	while (r == ZCAST_EAGAIN && deadline != 0) {
		/* Announce, read the word, retry, then sleep: a take, close or reclaim after the
		 * retry changes the word. */
		uint32_t v = zc_space_arm(&p->t, p->index);
		r = publish_once(p, msg, deadline);
		int w = r == ZCAST_EAGAIN ? zc_futex_wait(&h->space, v, deadline) : 0;
		zc_space_disarm(&p->t, p->index);
		if (r == ZCAST_EAGAIN && (w == ZCAST_ETIMEDOUT || zc_now_ns() >= deadline))
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: no queue room in time",
				      p->t.name);
		if (r == ZCAST_EAGAIN)
			r = publish_once(p, msg, deadline);
	}
	if (r == ZCAST_EAGAIN)
		return refused_error(p);
	if (r == 0) {
		/* Ownership passed to the topic: every other local handle is now stale. */
		atomic_store_explicit(&msg->kind, ZC_MSG_CONSUMED, memory_order_release);
		zcast_msg_drop(msg);
	}
	return r;
}

ZC_HOT int zcast_publish(zcast_pub *p, zcast_msg *msg)
{
	return publish_impl(p, msg, 0);
}

int zcast_publish_wait(zcast_pub *p, zcast_msg *msg, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : zc_after(zc_now_ns(), timeout_ns);
	return publish_impl(p, msg, deadline ? deadline : 1);
}
