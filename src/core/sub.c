/* Subscriber: join (with history), leave, wait on the notify word, release a hold. Take is take.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"
#include "doorbell.h"

void zcast_sub_opts_init(zcast_sub_opts *o)
{
	if (!o)
		return; /* nothing to fill (open takes NULL options as the defaults) */
	memset(o, 0, sizeof *o);
	o->policy = ZCAST_POLICY_FULL;
	o->queue_depth = 16;
}

static void sub_free(zcast_sub *s)
{
	zc_deaths_unwatch(&s->t);
	zc_pool_put(atomic_exchange(&s->map_hint, NULL)); /* before detach unmaps the topic */
	free(atomic_exchange(&s->spare, NULL));
	zc_topic_detach(&s->t);
	free(s);
}

/* Finds or creates the group record named `name`. Under the lock. */
static int join_group(struct zc_topic *t, const char *name, uint32_t *out)
{
	uint32_t free_g = UINT32_MAX;
	for (uint32_t g = 0; g < t->max_groups; g++) {
		struct zc_group_rec *gr = &t->groups[g];
		if (atomic_load(&gr->members) == 0) {
			if (free_g == UINT32_MAX)
				free_g = g;
			continue;
		}
		if (strncmp(gr->name, name, ZC_GROUP_NAME_MAX) == 0) {
			atomic_fetch_add(&gr->members, 1);
			*out = g;
			return 0;
		}
	}
	if (free_g == UINT32_MAX)
		return zc_err(ZCAST_ELIMIT, "topic %s: no free group record", t->name);
	struct zc_group_rec *gr = &t->groups[free_g];
	memset(gr->name, 0, sizeof gr->name);
	strncpy(gr->name, name, ZC_GROUP_NAME_MAX - 1);
	gr->next = 0;
	atomic_store(&gr->members, 1);
	*out = free_g;
	return 0;
}

static int check_opts(const zcast_sub_opts *o)
{
	if (o->policy < ZCAST_POLICY_FULL || o->policy > ZCAST_POLICY_BALANCE_RR)
		return zc_err(ZCAST_EINVAL, "unknown policy %d", o->policy);
	bool rr = o->policy == ZCAST_POLICY_BALANCE_RR;
	if (rr && (!o->group || zcast_domain_name_valid(o->group) != 0 ||
		   strlen(o->group) >= ZC_GROUP_NAME_MAX))
		return zc_err(ZCAST_EINVAL, "BALANCE_RR needs a group name [A-Za-z0-9_-]{1,31}");
	if (!rr && o->group)
		return zc_err(ZCAST_EINVAL, "a group name needs the BALANCE_RR policy");
	if (o->queue_depth == 0 || o->queue_depth > ZC_MAX_DEPTH_LIMIT)
		return zc_err(ZCAST_EINVAL, "queue_depth %u out of range (1 .. %u)", o->queue_depth,
			      ZC_MAX_DEPTH_LIMIT);
	/* History is queued at join, so it must fit the queue: capping it silently would hand the
	 * caller fewer messages than asked for with no way to tell. */
	if (o->history > o->queue_depth)
		return zc_err(ZCAST_EINVAL,
			      "history %u exceeds queue_depth %u: the queue holds the history at join "
			      "(raise queue_depth to %u or ask for less history)",
			      o->history, o->queue_depth, o->history);
	if (o->sleep_slice_ns < 0)
		return zc_err(ZCAST_EINVAL, "sleep_slice_ns must be >= 0");
	return 0;
}

int zcast_sub_open(const char *topic, const zcast_sub_opts *opts, zcast_sub **out)
{
	zcast_sub_opts def;
	if (!opts) {
		zcast_sub_opts_init(&def);
		opts = &def;
	}
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	*out = NULL;
	const char *domain = zc_domain_or_default(opts->domain);
	int r = zc_check_names(topic, domain);
	if (r < 0 || (r = check_opts(opts)) < 0)
		return r;
	zcast_sub *s = calloc(1, sizeof *s);
	if (!s)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	atomic_init(&s->refs, 1);
	r = zc_topic_attach(&s->t, &zc_topic_maps, domain, topic, &opts->topic, true);
	if (r < 0) {
		zc_topic_detach(&s->t);
		free(s);
		return r;
	}
	struct zc_topic *t = &s->t;
	if (opts->queue_depth > t->max_depth) {
		r = zc_err(ZCAST_ELIMIT,
			   "topic %s has max_queue_depth %u, you asked for queue_depth %u", topic,
			   t->max_depth, opts->queue_depth);
		goto fail;
	}
	if (opts->history > t->history_cap) {
		r = zc_err(ZCAST_ELIMIT, "topic %s has history capacity %u, you asked for %u",
			   topic, t->history_cap, opts->history);
		goto fail;
	}
	if ((r = zc_topic_claim(t, ZC_KIND_SUB, &s->index)) < 0)
		goto fail;
	ZC_CRASH("join:after-claim");
	s->rec = &t->subs[s->index];
	s->depth = opts->queue_depth;
	s->ring = zc_sub_ring(t, s->index, s->depth);
	s->max_held = opts->max_held;
	s->spin_ns = opts->spin_ns;
	s->slice_ns = opts->sleep_slice_ns;
	s->policy = (uint32_t)opts->policy;
	if ((r = zc_topic_lock(t)) < 0)
		goto fail_record;
	struct zc_topic_hdr *h = t->hdr;
	if ((r = zc_topic_check_type(t, opts->type_name, opts->type_hash)) < 0)
		goto fail_locked;
	if (opts->topic.retain)
		atomic_store(&h->retain, 1);
	struct zc_sub_rec *rec = s->rec;
	rec->group = ZC_NO_SUB;
	rec->policy = s->policy; /* before the group: a recount sees the member as what it is */
	if (s->policy == ZCAST_POLICY_BALANCE_RR &&
	    (r = join_group(t, opts->group, &rec->group)) < 0)
		goto fail_locked;
	s->id = atomic_fetch_add(&h->next_id, 1);
	ZC_WRITE_ONCE(rec->depth, s->depth);
	ZC_WRITE_ONCE(rec->id, s->id);
	ZC_WRITE_ONCE(rec->pid, getpid());
	ZC_WRITE_ONCE(rec->probed_head, UINT64_MAX);
	zc_ring_reset(&s->ring);
	atomic_store(&rec->sleepers, 0);
	atomic_store(&rec->woken, 0); /* epoch 0 has no sleepers: the first announce makes 1 */
	atomic_store(&rec->bell, 0); /* a wait set sets it when we are attached */
	atomic_store(&rec->held, 0);
	atomic_store(&rec->delivered, 0);
	atomic_store(&rec->dropped, 0);
	atomic_store(&rec->rejected, 0);
	if (atomic_load(&h->sub_hi) <= s->index)
		atomic_store(&h->sub_hi, s->index + 1);
	if (opts->history)
		s->history = zc_history_deliver(t, s->index, &s->ring, opts->history);
	/* SYNC: rec-active: ring and depth before ACTIVE; partner core/publish.c select_targets */
	atomic_store_explicit(&rec->state, ZC_REC_ACTIVE, memory_order_release);
	zc_topic_graph_changed(t);
	/* A new member of a BALANCE_RR group is queue room for it: publishers that found every
	 * member full sleep on `space`, not on the graph word (a service client's send, its room
	 * entry). */
	if (s->policy == ZCAST_POLICY_BALANCE_RR)
		zc_wake_space(h);
	zc_topic_unlock(t);
	zc_deaths_watch(t); /* a publisher that dies owing us a wake is reclaimed promptly */
	ZC_PAUSE("sub:opened"); /* test builds: live messages arrive before the open returns */
	*out = s;
	return 0;

fail_locked:
	zc_topic_unlock(t);
fail_record:
	atomic_store(&t->subs[s->index].state, ZC_REC_FREE);
fail:
	sub_free(s);
	return r;
}

/* Under the lock: pops what is queued and releases its bits. */
static void drain_ring(zcast_sub *s)
{
	uint64_t head, d;
	while (zc_ring_peek(&s->ring, &head, &d) == 1)
		if (zc_ring_pop(&s->ring, head))
			zc_release_desc_bit(&s->t, d, ZC_SUB_BIT(s->index));
}

/* Waits for a slow live holder as the close before it (pub.c, pub_leave). */
static void sub_leave(zcast_sub *s)
{
	struct zc_topic *t = &s->t;
	if (zc_topic_lock_for_close(t) == 0) {
		/* Nothing is held any more and close emptied the queue (nothing is pushed to a DRAINING
		 * record): our bits are gone, no pool needs a walk. A bit a release could not clear
		 * (its pool unmappable) is a FREE record's from now on: the next reclaim's stale mask
		 * clears it. */
		drain_ring(s);
		ZC_CRASH("leave:after-sweep");
		zc_ring_reset(&s->ring);
		atomic_store(&s->rec->sleepers, 0);
		atomic_store(&s->rec->held, 0);
		struct zc_sub_rec *r = s->rec;
		uint32_t g = r->group;
		if (g < t->max_groups && atomic_load(&t->groups[g].members) > 0)
			atomic_fetch_sub(&t->groups[g].members, 1);
		__atomic_store_n(&r->group, ZC_NO_SUB, __ATOMIC_RELAXED); /* room.c reads it unlocked */
		atomic_store(&r->state, ZC_REC_FREE);
		zc_topic_graph_changed(t);
		zc_wake_space(t->hdr); /* freed slots and queue room: waiting publishers re-check */
		zc_topic_unlock(t);
	}
	sub_free(s);
}

ZC_HOT void zc_sub_unref(zcast_sub *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		sub_leave(s);
}

/* Under the topic lock: no longer a target nor matched (even while it still holds messages); a
 * member of a handover group gives its queue to the group's other live members, as it would if it
 * died (proto/rr_handover.c). */
static void retire_locked(zcast_sub *s)
{
	struct zc_topic *t = &s->t;
	atomic_store(&s->rec->state, ZC_REC_DRAINING);
	zc_topic_graph_changed(t);
	if (s->policy == ZCAST_POLICY_BALANCE_RR && zc_rr_handover(t, s->index))
		zc_wake_all(t); /* the members that got our queue */
}

void zc_sub_retire(zcast_sub *s)
{
	if (zc_inherited(&s->t))
		return; /* a forked child's copy of its parent's handle: not ours to retire */
	if (zc_topic_lock_for_close(&s->t) == 0) {
		retire_locked(s);
		zc_topic_unlock(&s->t);
	}
}

int zcast_sub_close(zcast_sub *s)
{
	if (!s)
		return ZCAST_EINVAL;
	struct zc_topic *t = &s->t;
	const struct zc_sub_hooks *hk = atomic_exchange(&s->hooks, NULL);
	if (hk)
		hk->closing(s); /* the layer above lets go of the handle first */
	atomic_store(&s->closing, 1);
	if (zc_inherited(t)) { /* a forked child lets go of its parent's handle: nothing shared */
		sub_free(s);
		return 0;
	}
	/* No longer a target; queued messages are handed over or released now, held ones when
	 * dropped. Waits for a slow live holder (pub.c, pub_leave). */
	if (zc_topic_lock_for_close(t) == 0) {
		retire_locked(s);
		ZC_CRASH("close:after-draining");
		drain_ring(s);
		zc_wake_space(t->hdr); /* a publisher waiting for our room waits no more */
		zc_topic_unlock(t);
	}
	zc_sub_unref(s);
	return 0;
}

uint64_t zcast_sub_id(const zcast_sub *s)
{
	return s ? s->id : 0;
}

ZC_HOT void zc_sub_release(zcast_sub *s, zcast_msg *m)
{
	if (zc_inherited(&s->t)) { /* the slot is the parent's to release, not ours to touch */
		free(m);
		return;
	}
	zc_slot_release_bit(m->map, m->slot, ZC_SUB_BIT(s->index), m->gen);
	zc_pool_put(m->map);
	zcast_msg *none =
	    NULL; /* keep the struct for the next take (our reference keeps s alive) */
	if (!atomic_compare_exchange_strong_explicit(&s->spare, &none, m, memory_order_release,
						     memory_order_relaxed))
		free(m);
	/* SYNC: seq_cst against zcast_wait's announce then zc_sub_ready (one of us sees the other). */
	uint32_t held = atomic_fetch_sub_explicit(&s->held, 1, memory_order_seq_cst);
	atomic_fetch_sub_explicit(&s->rec->held, 1, memory_order_relaxed);
	zc_wake_space(s->t.hdr);
	/* Below max_held again with messages queued: a wait set that slept because we were at the
	 * limit is ready now. */
	if (s->max_held && held == s->max_held && zc_sub_has_queued(s))
		zc_bell_ring_ref(atomic_load(&s->rec->bell), s->t.mode);
	if (s->max_held && held == s->max_held && zc_sub_has_queued(s) &&
	    ZC_SLEEPERS(atomic_load_explicit(&s->rec->sleepers, memory_order_seq_cst))) {
		_Atomic uint32_t *w =
		    s->policy == ZCAST_POLICY_BALANCE_RR ? &s->rec->wake : &s->t.hdr->notify;
		atomic_fetch_add_explicit(w, 1, memory_order_seq_cst);
		zc_futex_wake(w, INT_MAX);
	}
	zc_sub_unref(s);
}

ZC_HOT bool zc_sub_has_queued(zcast_sub *s)
{
	return zc_ring_used(&s->ring) != 0;
}

int zcast_sub_queued(zcast_sub *s)
{
	if (!s)
		return ZCAST_EINVAL;
	for (;;) {
		uint64_t head = atomic_load(&s->rec->head);
		uint64_t n = zc_ring_used(&s->ring);
		if (n <= s->depth)
			return (int)n;
		if (atomic_load(&s->rec->head) == head) /* else a DROP_OLD drop raced us: re-read */
			return ZCAST_ECORRUPT;
	}
}

ZC_HOT bool zc_sub_ready(zcast_sub *s)
{
	/* SYNC: seq_cst after the caller's announce, against zc_sub_release's decrement. */
	return zc_sub_has_queued(s) &&
	       !(s->max_held &&
		 atomic_load_explicit(&s->held, memory_order_seq_cst) >= s->max_held);
}

/* Reads the word to sleep on, then announces (seq_cst, in this order): one more sleeper and a new
 * epoch in one add. A publisher that skips its wake because the epoch it reads is marked woken read
 * it after this announce, so the marking publish bumps the word after our read (layout.h,
 * zc_sub_rec.woken). The waker's line is not ours to write. Returns the value read. */
ZC_HOT static uint32_t zc_sub_announce(zcast_sub *s, _Atomic uint32_t *word)
{
	uint32_t v = atomic_load_explicit(word, memory_order_seq_cst);
	/* SYNC: sub-sleep; partner core/publish.c wake_after_push */
	atomic_fetch_add_explicit(&s->rec->sleepers, ZC_ANNOUNCE, memory_order_seq_cst);
	return v;
}

ZC_HOT bool zc_sub_arm(zcast_sub *s, _Atomic uint32_t **word, uint32_t *val)
{
	/* Read the word, announce, re-check; the caller then sleeps on the value read first: a
	 * publish after the re-check changes the word, so the sleep returns at once (no lost
	 * wake-up). */
	*word = s->policy == ZCAST_POLICY_BALANCE_RR ? &s->rec->wake : &s->t.hdr->notify;
	*val = zc_sub_announce(s, *word);
	if (!zc_sub_ready(s))
		return true;
	zc_sub_disarm(s);
	return false;
}

ZC_HOT void zc_sub_disarm(zcast_sub *s)
{
	/* Most disarms follow a wake-up (zcast_wait, wait sets): the lines the check and the take
	 * read next are asked for before this locked decrement stalls us. */
	zc_ring_prefetch(&s->ring);
	__builtin_prefetch(atomic_load_explicit(&s->next_lines[0], memory_order_relaxed));
	__builtin_prefetch(atomic_load_explicit(&s->next_lines[1], memory_order_relaxed));
	atomic_fetch_sub_explicit(&s->rec->sleepers, 1, memory_order_seq_cst);
}

ZC_HOT int zcast_wait(zcast_sub *s, int64_t timeout_ns)
{
	if (!s)
		return ZCAST_EINVAL;
	if (zc_inherited(&s->t))
		return zc_err(ZCAST_ESTALE, "subscriber of %s was opened before fork()", s->t.name);
	if (zc_sub_ready(s))
		return 0;
	/* The clock is read only for a deadline or a spin here (about 50 ns a read); every sleep
	 * reads it for its guard slice, beside a syscall. */
	int64_t now = timeout_ns >= 0 || s->spin_ns ? zc_now_ns() : 0;
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(now, timeout_ns);
	if (s->spin_ns) {
		int64_t until = zc_after(now, s->spin_ns > INT64_MAX ? INT64_MAX : (int64_t)s->spin_ns);
		if (deadline >= 0 && deadline < until)
			until = deadline; /* the spin is part of the wait: it never outlasts the timeout */
		while (zc_now_ns() < until) {
			if (zc_sub_ready(s))
				return 0;
			zc_cpu_relax();
		}
	}
	for (;;) {
		zc_deaths_rescan(&s->t); /* a publisher that dies owing us a wake is seen */
		_Atomic uint32_t *word =
		    s->policy == ZCAST_POLICY_BALANCE_RR ? &s->rec->wake : &s->t.hdr->notify;
		uint32_t v = zc_sub_announce(s, word);
		if (zc_sub_ready(s)) {
			zc_sub_disarm(s);
			return 0;
		}
		int r = zc_futex_wait(word, v, zc_sub_sleep_until(s, deadline, zc_now_ns()));
		if (r == ZCAST_ETIMEDOUT)
			zc_sub_guard_check(s); /* still announced: is the announcement intact? */
		zc_sub_disarm(s);
		if (zc_sub_ready(s))
			return 0;
		if (deadline >= 0 && zc_now_ns() >= deadline)
			return ZCAST_ETIMEDOUT;
	}
}

int zcast_sub_stat_get(zcast_sub *s, zcast_sub_stat *st)
{
	if (!s || !st)
		return ZCAST_EINVAL;
	struct zc_sub_rec *r = s->rec;
	st->delivered = atomic_load(&r->delivered);
	st->dropped = atomic_load(&r->dropped);
	st->rejected = atomic_load(&r->rejected);
	int q = zcast_sub_queued(s);
	st->queued = q < 0 ? 0 : (uint32_t)q;
	st->held = atomic_load(&s->held);
	st->member_id = s->id;
	st->history = s->history;
	return 0;
}
