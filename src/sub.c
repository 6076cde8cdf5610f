/* Subscriber: join (with history), take by one CAS on the ring head, wait on the notify word,
 * release by clearing the holder bit. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void zcast_sub_opts_init(zcast_sub_opts *o)
{
	memset(o, 0, sizeof *o);
	o->policy = ZCAST_POLICY_FULL;
	o->queue_depth = 16;
}

static void sub_free(zcast_sub *s)
{
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

/* Late join: under the lock, the last `want` history entries are queued oldest first.
 * Their history bit is set, so none can be reclaimed while we add our bit. */
static void deliver_history(zcast_sub *s, uint32_t want)
{
	struct zc_topic *t = &s->t;
	struct zc_topic_hdr *h = t->hdr;
	uint64_t start = atomic_load(&h->hist_start), end = atomic_load(&h->hist_end);
	if (end < start || end - start > t->history_cap)
		return;
	if (want > s->depth)
		want = s->depth;
	if (end - start > want)
		start = end - want;
	uint32_t bit = ZC_SUB_BIT(s->index);
	for (uint64_t pos = start; pos < end; pos++) {
		uint64_t d = atomic_load(&t->history[pos % t->history_cap]);
		struct zc_pool_map *m;
		if (zc_pool_get(t, ZC_DESC_POOL(d), &m) != 0)
			continue;
		uint32_t i = ZC_DESC_SLOT(d);
		if (i < m->slot_count) {
			struct zc_slot_hdr *sl = zc_slot(m, i);
			uint64_t w = atomic_load(&sl->state);
			if (ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED && (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d) &&
			    (atomic_load(&sl->bits[0]) & (1ull << ZC_HIST_BIT))) {
				atomic_fetch_or(&sl->bits[bit / 64], 1ull << (bit % 64));
				ZC_CRASH("join:history");
				uint64_t tail = atomic_load(&s->rec->tail);
				atomic_store(&s->ring[tail % s->depth], d);
				atomic_store(&s->rec->tail, tail + 1);
				atomic_fetch_add(&s->rec->delivered, 1);
			}
		}
		zc_pool_put(m);
	}
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
	if (r < 0)
		return r;
	if (opts->policy < ZCAST_POLICY_FULL || opts->policy > ZCAST_POLICY_BALANCE_RR)
		return zc_err(ZCAST_EINVAL, "unknown policy %d", opts->policy);
	bool rr = opts->policy == ZCAST_POLICY_BALANCE_RR;
	if (rr && (!opts->group || zcast_domain_name_valid(opts->group) != 0 ||
		   strlen(opts->group) >= ZC_GROUP_NAME_MAX))
		return zc_err(ZCAST_EINVAL, "BALANCE_RR needs a group name [A-Za-z0-9_-]{1,31}");
	if (!rr && opts->group)
		return zc_err(ZCAST_EINVAL, "a group name needs the BALANCE_RR policy");
	if (opts->queue_depth == 0 || opts->queue_depth > ZC_MAX_DEPTH_LIMIT)
		return zc_err(ZCAST_EINVAL, "queue_depth %u out of range (1 .. %u)", opts->queue_depth,
			      ZC_MAX_DEPTH_LIMIT);
	zcast_sub *s = calloc(1, sizeof *s);
	if (!s)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	atomic_init(&s->refs, 1);
	r = zc_topic_attach(&s->t, domain, topic, &opts->topic, true);
	if (r < 0) {
		free(s);
		return r;
	}
	struct zc_topic *t = &s->t;
	if (opts->queue_depth > t->max_depth) {
		r = zc_err(ZCAST_ELIMIT, "topic %s has max_queue_depth %u, you asked for queue_depth %u",
			   topic, t->max_depth, opts->queue_depth);
		goto fail;
	}
	if (opts->history > t->history_cap) {
		r = zc_err(ZCAST_ELIMIT, "topic %s has history capacity %u, you asked for %u", topic,
			   t->history_cap, opts->history);
		goto fail;
	}
	if ((r = zc_topic_claim(t, ZC_KIND_SUB, &s->index)) < 0)
		goto fail;
	ZC_CRASH("join:after-claim");
	s->rec = &t->subs[s->index];
	s->ring = zc_ring(t, s->index);
	s->depth = opts->queue_depth;
	s->max_held = opts->max_held;
	s->spin_ns = opts->spin_ns;
	s->policy = (uint32_t)opts->policy;
	if ((r = zc_topic_lock(t)) < 0)
		goto fail_record;
	struct zc_topic_hdr *h = t->hdr;
	if ((r = zc_topic_check_type(t, opts->type_name, opts->type_hash)) < 0)
		goto fail_locked;
	if (opts->topic.retain)
		atomic_store(&h->retain, 1);
	zc_topic_cleanup(t);
	struct zc_sub_rec *rec = s->rec;
	rec->group = ZC_NO_SUB;
	if (rr && (r = join_group(t, opts->group, &rec->group)) < 0)
		goto fail_locked;
	s->id = atomic_fetch_add(&h->next_id, 1);
	rec->policy = s->policy;
	rec->depth = s->depth;
	rec->id = s->id;
	rec->pid = getpid();
	rec->probed_head = UINT64_MAX;
	atomic_store(&rec->head, 0);
	atomic_store(&rec->tail, 0);
	atomic_store(&rec->sleeping, 0);
	atomic_store(&rec->held, 0);
	atomic_store(&rec->delivered, 0);
	atomic_store(&rec->dropped, 0);
	atomic_store(&rec->rejected, 0);
	if (atomic_load(&h->sub_hi) <= s->index)
		atomic_store(&h->sub_hi, s->index + 1);
	if (opts->history)
		deliver_history(s, opts->history);
	atomic_store_explicit(&rec->state, ZC_REC_ACTIVE, memory_order_release);
	zc_topic_graph_changed(t);
	zc_topic_unlock(t);
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

static void sub_leave(zcast_sub *s)
{
	struct zc_topic *t = &s->t;
	if (zc_topic_lock(t) == 0) {
		zc_sub_sweep(t, s->index); /* nothing is held any more: clear our bit everywhere */
		ZC_CRASH("leave:after-sweep");
		struct zc_sub_rec *r = s->rec;
		if (r->group < t->max_groups && atomic_load(&t->groups[r->group].members) > 0)
			atomic_fetch_sub(&t->groups[r->group].members, 1);
		r->group = ZC_NO_SUB;
		atomic_store(&r->state, ZC_REC_FREE);
		zc_topic_cleanup(t); /* a leave reclaims dead members too */
		zc_topic_unlock(t);
	}
	sub_free(s);
}

void zc_sub_unref(zcast_sub *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		sub_leave(s);
}

/* Pops one descriptor: the head CAS decides who owns it. Returns 1 with *desc, 0 when empty. */
static int pop(zcast_sub *s, uint64_t *desc)
{
	struct zc_sub_rec *r = s->rec;
	for (;;) {
		uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		uint64_t pos = ZC_HEAD_POS(head);
		if (pos == ZC_HEAD_POS(tail))
			return 0;
		if (ZC_HEAD_POS(tail - pos) > s->depth) {
			/* DROP_OLD: the producer may have dropped and pushed since we read the head. */
			if (atomic_load_explicit(&r->head, memory_order_acquire) != head)
				continue;
			return zc_err(ZCAST_ECORRUPT, "topic %s: ring of subscriber %u is corrupted",
				      s->t.name, s->index);
		}
		uint64_t d = atomic_load_explicit(&s->ring[pos % s->depth], memory_order_relaxed);
		if (atomic_compare_exchange_weak_explicit(&r->head, &head,
							  ZC_HEAD_MAKE(pos + 1, ZC_HEAD_DROPS(head)),
							  memory_order_acq_rel, memory_order_relaxed)) {
			*desc = d;
			return 1;
		}
	}
}

int zcast_sub_close(zcast_sub *s)
{
	if (!s)
		return ZCAST_EINVAL;
	struct zc_topic *t = &s->t;
	zc_subfd_detach(s); /* the descriptor helper lets go of the handle first */
	atomic_store(&s->closing, 1);
	if (zc_topic_lock(t) == 0) {
		/* No longer a target; queued messages are released now, held ones when dropped. */
		atomic_store(&s->rec->state, ZC_REC_DRAINING);
		zc_topic_graph_changed(t); /* no longer matched, even while it still holds messages */
		ZC_CRASH("close:after-draining");
		uint64_t d;
		while (pop(s, &d) == 1) {
			struct zc_pool_map *m;
			if (zc_pool_get(t, ZC_DESC_POOL(d), &m) == 0) {
				uint32_t i = ZC_DESC_SLOT(d);
				uint64_t w = i < m->slot_count ? atomic_load(&zc_slot(m, i)->state) : 0;
				if (i < m->slot_count && (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d))
					zc_slot_release_bit(m, i, ZC_SUB_BIT(s->index), ZC_STATE_GEN(w));
				zc_pool_put(m);
			}
		}
		zc_topic_unlock(t);
	}
	zc_sub_unref(s);
	return 0;
}

uint64_t zcast_sub_id(const zcast_sub *s)
{
	return s ? s->id : 0;
}

int zcast_take(zcast_sub *s, zcast_msg **out)
{
	if (!s || !out)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	*out = NULL;
	if (s->max_held && atomic_load_explicit(&s->held, memory_order_relaxed) >= s->max_held)
		return zc_err(ZCAST_ELIMIT, "subscriber holds max_held=%u messages", s->max_held);
	uint64_t d;
	int r = pop(s, &d);
	if (r == 0 && atomic_load_explicit(&s->fdw, memory_order_relaxed))
		zc_subfd_rearm(s); /* drained: the descriptor is cleared and watched again */
	if (r <= 0)
		return r == 0 ? ZCAST_EAGAIN : r;
	ZC_CRASH("take:after-pop");
	struct zc_topic_hdr *h = s->t.hdr;
	if (atomic_load_explicit(&h->space_waiters, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&h->space, 1, memory_order_seq_cst);
		zc_futex_wake(&h->space, INT_MAX);
	}
	/* Never trust the descriptor: pool, slot, generation, state and our bit must all agree. */
	struct zc_pool_map *m;
	if ((r = zc_pool_get_hinted(&s->t, &s->map_hint, ZC_DESC_POOL(d), &m)) < 0)
		return r;
	uint32_t i = ZC_DESC_SLOT(d), bit = ZC_SUB_BIT(s->index);
	struct zc_slot_hdr *sl = i < m->slot_count ? zc_slot(m, i) : NULL;
	uint64_t w = sl ? atomic_load_explicit(&sl->state, memory_order_acquire) : 0;
	if (!sl || ZC_STATE_ST(w) != ZC_SLOT_PUBLISHED || (uint32_t)ZC_STATE_GEN(w) != ZC_DESC_GEN(d) ||
	    !(atomic_load(&sl->bits[bit / 64]) & (1ull << (bit % 64))) || sl->size > m->slot_size) {
		zc_pool_put(m);
		return zc_err(ZCAST_ECORRUPT, "topic %s: queued descriptor %016llx is invalid",
			      s->t.name, (unsigned long long)d);
	}
	zcast_msg *msg = atomic_exchange_explicit(&s->spare, NULL, memory_order_acquire);
	if (!msg)
		msg = malloc(sizeof *msg);
	if (!msg) {
		zc_slot_release_bit(m, i, bit, ZC_STATE_GEN(w));
		zc_pool_put(m);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	atomic_init(&msg->refs, 1);
	atomic_init(&msg->kind, ZC_MSG_RECEIVED);
	msg->slot = i;
	msg->gen = ZC_STATE_GEN(w);
	msg->data = m->payload + (uint64_t)i * m->slot_size;
	msg->size = sl->size;
	msg->map = m;
	msg->pub = NULL;
	msg->sub = s;
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->held, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->rec->held, 1, memory_order_relaxed);
	*out = msg;
	return 0;
}

void zc_sub_release(zcast_sub *s, zcast_msg *m)
{
	zc_slot_release_bit(m->map, m->slot, ZC_SUB_BIT(s->index), m->gen);
	zc_pool_put(m->map);
	zcast_msg *none = NULL; /* keep the struct for the next take (our reference keeps s alive) */
	if (!atomic_compare_exchange_strong_explicit(&s->spare, &none, m, memory_order_release,
						     memory_order_relaxed))
		free(m);
	atomic_fetch_sub_explicit(&s->held, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&s->rec->held, 1, memory_order_relaxed);
	struct zc_topic_hdr *h = s->t.hdr;
	if (atomic_load_explicit(&h->space_waiters, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&h->space, 1, memory_order_seq_cst);
		zc_futex_wake(&h->space, INT_MAX);
	}
	zc_sub_unref(s);
}

bool zc_sub_has_queued(zcast_sub *s)
{
	uint64_t head = atomic_load_explicit(&s->rec->head, memory_order_seq_cst);
	uint64_t tail = atomic_load_explicit(&s->rec->tail, memory_order_seq_cst);
	return ZC_HEAD_POS(head) != ZC_HEAD_POS(tail);
}

int zcast_sub_queued(zcast_sub *s)
{
	if (!s)
		return ZCAST_EINVAL;
	for (;;) {
		uint64_t head = atomic_load(&s->rec->head), tail = atomic_load(&s->rec->tail);
		uint64_t n = ZC_HEAD_POS(tail - ZC_HEAD_POS(head));
		if (n <= s->depth)
			return (int)n;
		if (atomic_load(&s->rec->head) == head) /* else a DROP_OLD drop raced us: re-read */
			return ZCAST_ECORRUPT;
	}
}

bool zc_sub_arm(zcast_sub *s, _Atomic uint32_t **word, uint32_t *val)
{
	/* Read the word, announce, re-check; the caller then sleeps on the value read first: a
	 * publish after the re-check changes the word, so the sleep returns at once (no lost wake-up). */
	*word = s->policy == ZCAST_POLICY_BALANCE_RR ? &s->rec->wake : &s->t.hdr->notify;
	*val = atomic_load_explicit(*word, memory_order_seq_cst);
	atomic_fetch_add_explicit(&s->rec->sleeping, 1, memory_order_seq_cst);
	if (!zc_sub_has_queued(s))
		return true;
	zc_sub_disarm(s);
	return false;
}

void zc_sub_disarm(zcast_sub *s)
{
	atomic_fetch_sub_explicit(&s->rec->sleeping, 1, memory_order_seq_cst);
}

int zcast_wait(zcast_sub *s, int64_t timeout_ns)
{
	if (!s)
		return ZCAST_EINVAL;
	if (zc_sub_has_queued(s))
		return 0;
	int64_t now = zc_now_ns();
	int64_t deadline = timeout_ns < 0 ? -1 : now + timeout_ns;
	if (s->spin_ns) {
		int64_t until = now + (int64_t)s->spin_ns;
		while (zc_now_ns() < until) {
			if (zc_sub_has_queued(s))
				return 0;
			zc_cpu_relax();
		}
	}
	for (;;) {
		_Atomic uint32_t *word;
		uint32_t v;
		if (!zc_sub_arm(s, &word, &v))
			return 0;
		zc_futex_wait(word, v, zc_sub_sleep_until(deadline, zc_now_ns())); /* 0, timeout or EAGAIN */
		zc_sub_disarm(s);
		if (zc_sub_has_queued(s))
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
	return 0;
}
