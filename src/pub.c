/* Publisher: join, loan from the own pool, publish under the topic lock. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void zcast_topic_opts_init(zcast_topic_opts *o)
{
	memset(o, 0, sizeof *o);
}

void zcast_pub_opts_init(zcast_pub_opts *o)
{
	memset(o, 0, sizeof *o);
	o->slot_size = 64 * 1024;
	o->slot_count = 32;
}

static void pub_free(zcast_pub *p)
{
	zc_pool_put(p->pool);
	zc_topic_detach(&p->t);
	free(p->targets);
	free(p->rr_wake);
	free(p);
}

int zcast_pub_open(const char *topic, const zcast_pub_opts *opts, zcast_pub **out)
{
	zcast_pub_opts def;
	if (!opts) {
		zcast_pub_opts_init(&def);
		opts = &def;
	}
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	*out = NULL;
	const char *domain = zc_domain_or_default(opts->domain);
	int r = zc_check_names(topic, domain);
	if (r < 0)
		return r;
	if (opts->slot_size == 0 || opts->slot_size > (1ull << 40))
		return zc_err(ZCAST_EINVAL, "slot_size %zu out of range (1 .. 1 TiB)", opts->slot_size);
	if (opts->slot_count == 0 || opts->slot_count > ZC_MAX_SLOTS_LIMIT)
		return zc_err(ZCAST_EINVAL, "slot_count %u out of range (1 .. %u)", opts->slot_count,
			      ZC_MAX_SLOTS_LIMIT);
	zcast_pub *p = calloc(1, sizeof *p);
	if (!p)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	atomic_init(&p->refs, 1);
	r = zc_topic_attach(&p->t, domain, topic, &opts->topic, true);
	if (r < 0) {
		free(p);
		return r;
	}
	struct zc_topic *t = &p->t;
	if (opts->history_depth > t->history_cap) {
		r = zc_err(ZCAST_ELIMIT, "topic %s has history capacity %u, you asked for depth %u", topic,
			   t->history_cap, opts->history_depth);
		goto fail;
	}
	p->targets = calloc(t->max_subs, sizeof *p->targets);
	p->rr_wake = calloc(t->max_subs, sizeof *p->rr_wake);
	if (!p->targets || !p->rr_wake) {
		r = zc_err(ZCAST_ENOMEM, "out of memory");
		goto fail;
	}
	if ((r = zc_topic_claim(t, ZC_KIND_PUB, &p->index)) < 0)
		goto fail;
	p->id = atomic_fetch_add(&t->hdr->next_id, 1);
	t->pubs[p->index].id = p->id; /* names the pool before it exists: cleanup finds it */
	/* The pool is built and prefaulted before taking the lock: it may take milliseconds. */
	if ((r = zc_pool_create(t, UINT32_MAX, p->id, opts->slot_count, opts->slot_size, &p->pool)) < 0)
		goto fail_record;
	ZC_CRASH("join:after-pool-create");
	if ((r = zc_topic_lock(t)) < 0)
		goto fail_pool;
	struct zc_topic_hdr *h = t->hdr;
	if ((r = zc_topic_check_type(t, opts->type_name, opts->type_hash)) < 0)
		goto fail_locked;
	if (opts->topic.retain)
		atomic_store(&h->retain, 1);
	zc_topic_cleanup(t);
	uint32_t pi = 0;
	while (pi < t->max_pools && atomic_load(&t->pools[pi].state) != ZC_POOL_UNUSED)
		pi++;
	if (pi == t->max_pools) {
		r = zc_err(ZCAST_ELIMIT, "topic %s: all %u pool records are in use", topic, t->max_pools);
		goto fail_locked;
	}
	struct zc_pool_rec *pr = &t->pools[pi];
	pr->owner = p->index;
	pr->id = p->id;
	pr->slot_size = p->pool->slot_size;
	pr->slot_count = p->pool->slot_count;
	atomic_store_explicit(&pr->state, ZC_POOL_ACTIVE, memory_order_release);
	if (atomic_load(&h->pool_hi) <= pi)
		atomic_store(&h->pool_hi, pi + 1);
	ZC_CRASH("join:after-pool");
	struct zc_pub_rec *rec = &t->pubs[p->index];
	rec->pool = pi;
	rec->id = p->id;
	rec->pid = getpid();
	rec->history_depth = opts->history_depth;
	if (atomic_load(&h->hist_depth) < opts->history_depth)
		atomic_store(&h->hist_depth, opts->history_depth);
	atomic_store_explicit(&rec->state, ZC_REC_ACTIVE, memory_order_release);
	zc_topic_graph_changed(t);
	zc_topic_unlock(t);

	p->pool_index = pi;
	p->pool->index = pi;
	p->history_depth = opts->history_depth;
	pthread_mutex_lock(&t->maps_mu);
	atomic_fetch_add(&p->pool->refs, 1);
	t->maps[pi] = p->pool; /* the lock holder finds our own slots through the cache */
	pthread_mutex_unlock(&t->maps_mu);
	*out = p;
	return 0;

fail_locked:
	zc_topic_unlock(t);
fail_pool:
	zc_pool_unlink(t, p->id);
fail_record:
	atomic_store(&t->pubs[p->index].state, ZC_REC_FREE);
fail:
	pub_free(p);
	return r;
}

/* Leaves for real: once the handle is closed and the last loan is gone. */
static void pub_leave(zcast_pub *p)
{
	struct zc_topic *t = &p->t;
	if (zc_topic_lock(t) == 0) {
		struct zc_pool_rec *pr = &t->pools[p->pool_index];
		atomic_store(&pr->state, ZC_POOL_ORPHAN); /* history and holders keep it alive */
		ZC_CRASH("leave:after-orphan");
		atomic_store(&t->pubs[p->index].state, ZC_REC_FREE);
		ZC_CRASH("leave:after-free");
		zc_topic_graph_changed(t);
		zc_topic_cleanup(t); /* unlinks the pool now if no slot is held */
		zc_topic_unlock(t);
	}
	pub_free(p);
}

void zc_pub_unref(zcast_pub *p)
{
	if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
		pub_leave(p);
}

int zcast_pub_close(zcast_pub *p)
{
	if (!p)
		return ZCAST_EINVAL;
	atomic_store(&p->closed, 1);
	zc_pub_unref(p);
	return 0;
}

uint64_t zcast_pub_id(const zcast_pub *p)
{
	return p ? p->id : 0;
}

/* ---- loan ---- */

static int try_loan(zcast_pub *p, size_t size, zcast_msg **out)
{
	struct zc_pool_map *m = p->pool;
	uint32_t n = m->slot_count;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = p->cursor + k < n ? p->cursor + k : p->cursor + k - n;
		struct zc_slot_hdr *s = zc_slot(m, i);
		uint64_t w = atomic_load_explicit(&s->state, memory_order_acquire);
		if (ZC_STATE_ST(w) != ZC_SLOT_FREE)
			continue;
		/* The state word is the only truth: one CAS makes the slot ours. */
		if (!atomic_compare_exchange_strong_explicit(&s->state, &w,
							     ZC_STATE(ZC_SLOT_LOANED, ZC_STATE_GEN(w)),
							     memory_order_acq_rel, memory_order_relaxed))
			continue;
		ZC_CRASH("loan:after-cas");
		zcast_msg *msg = malloc(sizeof *msg);
		if (!msg) {
			zc_slot_free(m, i, ZC_SLOT_LOANED, ZC_STATE_GEN(w));
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		/* The next loan tries this slot first: once released it is the one still in the caches
		 * (and TLBs) of publisher and subscribers, where a rotation would walk the whole pool
		 * through memory (8 MiB touched: about 2x). While it is held the scan moves on. */
		p->cursor = i;
		atomic_init(&msg->refs, 1);
		atomic_init(&msg->kind, ZC_MSG_LOAN);
		msg->slot = i;
		msg->gen = ZC_STATE_GEN(w);
		msg->data = m->payload + (uint64_t)i * m->slot_size;
		msg->size = size;
		msg->map = m;
		msg->pub = p;
		msg->sub = NULL;
#ifdef ZCAST_POISON
		memset(msg->data, 0xdd, m->slot_size); /* a premature reuse shows as a bad checksum */
#endif
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
		*out = msg;
		return 0;
	}
	return ZCAST_ENOSLOT;
}

static int loan_impl(zcast_pub *p, size_t size, int64_t deadline, zcast_msg **out)
{
	if (!p || !out)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	*out = NULL;
	if (size > p->pool->slot_size)
		return zc_err(ZCAST_EINVAL, "loan of %zu bytes exceeds the slot size %llu of %s", size,
			      (unsigned long long)p->pool->slot_size, p->t.name);
	struct zc_pool_hdr *ph = zc_pool_hdr(p->pool);
	bool collected = false;
	for (;;) {
		uint32_t v = atomic_load_explicit(&ph->freed, memory_order_seq_cst);
		int r = try_loan(p, size, out);
		if (r != ZCAST_ENOSLOT)
			return r;
		if (!collected) { /* an empty pool may mean a dead holder: collect once, then retry */
			collected = true;
			if (zc_topic_lock(&p->t) == 0) {
				zc_topic_cleanup(&p->t);
				zc_topic_unlock(&p->t);
			}
			continue;
		}
		if (deadline == 0)
			return zc_err(ZCAST_ENOSLOT, "pool of %s: all %u slots are in use", p->t.name,
				      p->pool->slot_count);
		atomic_fetch_add_explicit(&ph->waiters, 1, memory_order_seq_cst);
		r = try_loan(p, size, out);
		if (r == ZCAST_ENOSLOT)
			r = zc_futex_wait(&ph->freed, v, deadline);
		atomic_fetch_sub_explicit(&ph->waiters, 1, memory_order_seq_cst);
		if (*out)
			return 0;
		if (r == ZCAST_ETIMEDOUT || zc_now_ns() >= deadline)
			return zc_err(ZCAST_ETIMEDOUT, "no free slot in the pool of %s in time", p->t.name);
	}
}

int zcast_loan(zcast_pub *p, size_t size, zcast_msg **out)
{
	return loan_impl(p, size, 0, out);
}

int zcast_loan_wait(zcast_pub *p, size_t size, int64_t timeout_ns, zcast_msg **out)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : zc_now_ns() + timeout_ns;
	return loan_impl(p, size, deadline ? deadline : 1, out);
}

void zc_pub_return_loan(zcast_pub *p, zcast_msg *m)
{
	zc_slot_free(m->map, m->slot, ZC_SLOT_LOANED, m->gen);
	zc_pub_unref(p);
}

/* ---- publish ---- */

static uint32_t ring_used(struct zc_sub_rec *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	return (uint32_t)(tail - ZC_HEAD_POS(head));
}

static bool sub_depth_ok(struct zc_topic *t, struct zc_sub_rec *r)
{
	return r->depth >= 1 && r->depth <= t->max_depth;
}

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

/* Chooses targets; returns their count, or ZCAST_EAGAIN. Under the lock. `count`: charge full
 * queues a rejection (only once per publish attempt). */
static int select_targets(zcast_pub *p, bool count, bool *probe_dead)
{
	struct zc_topic *t = &p->t;
	uint32_t hi = atomic_load(&t->hdr->sub_hi);
	if (hi > t->max_subs)
		hi = t->max_subs;
	int n = 0;
	bool fail = false, any_rr = false;
	for (uint32_t k = 0; k < hi; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		if (atomic_load_explicit(&r->state, memory_order_acquire) != ZC_REC_ACTIVE ||
		    !sub_depth_ok(t, r))
			continue;
		if (r->policy == ZCAST_POLICY_BALANCE_RR) {
			any_rr = true;
			continue;
		}
		if (r->policy == ZCAST_POLICY_FULL && ring_used(r) >= r->depth) {
			if (count)
				atomic_fetch_add_explicit(&r->rejected, 1, memory_order_relaxed);
			if (full_ring_owner_dead(t, k))
				*probe_dead = true;
			fail = true;
			continue;
		}
		p->targets[n++] = k;
	}
	if (any_rr) {
		for (uint32_t g = 0; g < t->max_groups; g++) {
			struct zc_group_rec *gr = &t->groups[g];
			if (atomic_load(&gr->members) == 0)
				continue;
			uint32_t start = gr->next < hi ? gr->next : 0, chosen = UINT32_MAX;
			for (uint32_t j = 0; j < hi && chosen == UINT32_MAX; j++) {
				uint32_t k = start + j < hi ? start + j : start + j - hi;
				struct zc_sub_rec *r = &t->subs[k];
				if (atomic_load(&r->state) == ZC_REC_ACTIVE &&
				    r->policy == ZCAST_POLICY_BALANCE_RR && r->group == g &&
				    sub_depth_ok(t, r) && ring_used(r) < r->depth)
					chosen = k;
			}
			if (chosen == UINT32_MAX) {
				bool any_active = false; /* closed (draining) members are no targets */
				for (uint32_t k = 0; k < hi; k++) {
					struct zc_sub_rec *r = &t->subs[k];
					if (atomic_load(&r->state) == ZC_REC_ACTIVE && r->group == g &&
					    r->policy == ZCAST_POLICY_BALANCE_RR) {
						any_active = true;
						if (count)
							atomic_fetch_add(&r->rejected, 1);
						if (full_ring_owner_dead(t, k))
							*probe_dead = true;
					}
				}
				if (any_active)
					fail = true;
				continue;
			}
			p->targets[n++] = chosen;
		}
	}
	return fail ? ZCAST_EAGAIN : n;
}

/* Makes room in a DROP_OLD ring by dropping its oldest entry. Under the lock. */
static void drop_oldest(struct zc_topic *t, uint32_t k)
{
	struct zc_sub_rec *r = &t->subs[k];
	_Atomic uint64_t *ring = zc_ring(t, k);
	struct zc_intent *in = &t->hdr->intent;
	for (;;) {
		uint64_t head = atomic_load(&r->head);
		uint64_t pos = ZC_HEAD_POS(head);
		if (atomic_load(&r->tail) - pos < r->depth)
			return; /* the consumer made room meanwhile */
		uint64_t old = atomic_load(&ring[pos % r->depth]);
		in->drop_desc = old;
		in->drop_head = head;
		in->drop_sub = k;
		/* The head CAS decides: the consumer took it, or we dropped it — never both. */
		if (!atomic_compare_exchange_strong(&r->head, &head,
						    ZC_HEAD_MAKE(pos + 1, ZC_HEAD_DROPS(head) + 1u))) {
			in->drop_sub = ZC_NO_SUB;
			continue;
		}
		ZC_CRASH("publish:after-drop-cas");
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		struct zc_pool_map *m;
		if (zc_pool_get(t, ZC_DESC_POOL(old), &m) == 0) {
			uint32_t i = ZC_DESC_SLOT(old);
			if (i < m->slot_count) {
				uint64_t w = atomic_load(&zc_slot(m, i)->state);
				if ((uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(old))
					zc_slot_release_bit(m, i, ZC_SUB_BIT(k), ZC_STATE_GEN(w));
			}
			zc_pool_put(m);
		}
		in->drop_sub = ZC_NO_SUB;
		return;
	}
}

static int publish_locked(zcast_pub *p, zcast_msg *msg, uint32_t *wake_topic, uint32_t *n_rr)
{
	struct zc_topic *t = &p->t;
	struct zc_topic_hdr *h = t->hdr;
	bool probe_dead = false;
	int n = select_targets(p, true, &probe_dead);
	if (n == ZCAST_EAGAIN && probe_dead) {
		zc_topic_cleanup(t);
		probe_dead = false;
		n = select_targets(p, false, &probe_dead);
	}
	if (n < 0)
		return zc_err(ZCAST_EAGAIN, "topic %s: a subscriber queue is full", t->name);

	struct zc_pool_map *m = p->pool;
	struct zc_slot_hdr *s = zc_slot(m, msg->slot);
	uint64_t desc = ZC_DESC(p->pool_index, msg->slot, msg->gen);
	uint64_t seq = atomic_load(&h->last_seq) + 1;
	uint32_t hist_depth = atomic_load(&h->hist_depth);
	if (hist_depth > t->history_cap)
		hist_depth = t->history_cap;

	/* Intent first: a crash from here on is finished or rolled back by the next locker. */
	h->intent.desc = desc;
	h->intent.op = ZC_OP_PUBLISH;
	ZC_CRASH("publish:after-intent");
	atomic_store(&h->last_seq, seq);
	s->seq = seq;
	s->time_ns = zc_now_ns();
	s->size = msg->size;
	s->publisher_id = p->id;
	/* Holder bits before the descriptor is visible: a queued message is already a reference. */
	for (int j = 0; j < n; j++) {
		uint32_t bit = ZC_SUB_BIT(p->targets[j]);
		atomic_fetch_or_explicit(&s->bits[bit / 64], 1ull << (bit % 64), memory_order_relaxed);
	}
	if (hist_depth)
		atomic_fetch_or_explicit(&s->bits[0], 1ull << ZC_HIST_BIT, memory_order_relaxed);
	ZC_CRASH("publish:after-bits");
	atomic_store_explicit(&s->state, ZC_STATE(ZC_SLOT_PUBLISHED, msg->gen), memory_order_release);
	ZC_CRASH("publish:after-state");

	for (int j = 0; j < n; j++) {
		uint32_t k = p->targets[j];
		struct zc_sub_rec *r = &t->subs[k];
		if (r->policy == ZCAST_POLICY_DROP_OLD)
			drop_oldest(t, k);
		uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		atomic_store_explicit(&zc_ring(t, k)[tail % r->depth], desc, memory_order_relaxed);
		ZC_CRASH("publish:after-entry");
		/* seq_cst: pairs with the subscriber's announce-then-recheck (no lost wake-up). */
		atomic_store_explicit(&r->tail, tail + 1, memory_order_seq_cst);
		ZC_CRASH("publish:after-push");
		atomic_fetch_add_explicit(&r->delivered, 1, memory_order_relaxed);
		if (r->policy == ZCAST_POLICY_BALANCE_RR && r->group < t->max_groups)
			t->groups[r->group].next = k + 1; /* round robin: the next member is tried first */
		if (atomic_load_explicit(&r->sleeping, memory_order_seq_cst)) {
			if (r->policy == ZCAST_POLICY_BALANCE_RR) {
				atomic_fetch_add(&r->wake, 1);
				p->rr_wake[(*n_rr)++] = k; /* woken after unlock: one message, one worker */
			} else {
				*wake_topic = 1;
			}
		}
	}
	if (hist_depth) {
		/* Evict first: with depth == capacity the new entry's cell is the oldest entry's. */
		zc_history_trim(t, hist_depth - 1);
		uint64_t end = atomic_load(&h->hist_end);
		atomic_store(&t->history[end % t->history_cap], desc);
		atomic_store(&h->hist_end, end + 1);
		ZC_CRASH("publish:after-history");
		zc_history_trim(t, hist_depth);
	}
	if (n == 0 && !hist_depth)
		zc_slot_try_free(m, msg->slot, msg->gen); /* nobody listens: the slot comes back */
	h->intent.op = ZC_OP_NONE;
	return 0;
}

static int publish_once(zcast_pub *p, zcast_msg *msg)
{
	struct zc_topic_hdr *h = p->t.hdr;
	uint32_t wake_topic = 0, n_rr = 0;
	int r = zc_topic_lock(&p->t);
	if (r < 0)
		return r;
	r = publish_locked(p, msg, &wake_topic, &n_rr);
	zc_topic_unlock(&p->t);
	ZC_CRASH("publish:before-wake"); /* published, nobody woken: sleepers re-check per slice */
	for (uint32_t i = 0; i < n_rr; i++)
		zc_futex_wake(&p->t.subs[p->rr_wake[i]].wake, 1);
	if (r == 0 && wake_topic) {
		/* One wake for every sleeping broadcast subscriber of the topic. */
		atomic_fetch_add_explicit(&h->notify, 1, memory_order_seq_cst);
		zc_futex_wake(&h->notify, INT_MAX);
	}
	return r;
}

static int publish_impl(zcast_pub *p, zcast_msg *msg, int64_t deadline)
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
		return zc_err(ZCAST_ESTALE, "publisher of %s is closed: the loan can only be dropped",
			      p->t.name);
	struct zc_topic_hdr *h = p->t.hdr;
	int r = publish_once(p, msg);
	while (r == ZCAST_EAGAIN && deadline != 0) {
		/* Announce, read the word, retry, then sleep: a take after the retry sees us. */
		atomic_fetch_add_explicit(&h->space_waiters, 1, memory_order_seq_cst);
		uint32_t v = atomic_load_explicit(&h->space, memory_order_seq_cst);
		r = publish_once(p, msg);
		int w = r == ZCAST_EAGAIN ? zc_futex_wait(&h->space, v, deadline) : 0;
		atomic_fetch_sub_explicit(&h->space_waiters, 1, memory_order_seq_cst);
		if (r == ZCAST_EAGAIN && (w == ZCAST_ETIMEDOUT || zc_now_ns() >= deadline))
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: no queue room in time", p->t.name);
		if (r == ZCAST_EAGAIN)
			r = publish_once(p, msg);
	}
	if (r == 0) {
		/* Ownership passed to the topic: every other local handle is now stale. */
		atomic_store(&msg->kind, ZC_MSG_CONSUMED);
		zcast_msg_drop(msg);
	}
	return r;
}

int zcast_publish(zcast_pub *p, zcast_msg *msg)
{
	return publish_impl(p, msg, 0);
}

int zcast_publish_wait(zcast_pub *p, zcast_msg *msg, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : zc_now_ns() + timeout_ns;
	return publish_impl(p, msg, deadline ? deadline : 1);
}
