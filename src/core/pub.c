/* Publisher: join (creating its own pool) and leave. Loan is loan.c, publish is publish.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"
#include "doorbell.h"

void zcast_pub_opts_init(zcast_pub_opts *o)
{
	if (!o)
		return; /* nothing to fill (open takes NULL options as the defaults) */
	memset(o, 0, sizeof *o);
	o->slot_size = 64 * 1024;
	o->slot_count = 32;
}

static void pub_free(zcast_pub *p)
{
	zc_deaths_unwatch(&p->t);
	if (!zc_inherited(&p->t)) /* our writable map leaves the process's cache with us */
		zc_topic_map_forget_pool(p->t.shared, p->pool);
	zc_pool_put(p->pool);
	zc_topic_detach(&p->t);
	free(p->targets);
	free(p->depths);
	free(p->rr_wake);
	free(p->seen);
	free(atomic_load(&p->spare));
	zc_bell_cache_free(p);
	free(p);
}

/* History keeps the topic's last D messages, any publisher's: a pool must keep a slot beyond them
 * or its publisher can never loan again. Under the lock. */
static int check_history_fits(zcast_pub *p, uint32_t depth, uint32_t slots)
{
	struct zc_topic *t = &p->t;
	uint32_t d = atomic_load(&t->hdr->hist_depth);
	if (d > t->history_cap)
		d = t->history_cap;
	if (depth > d)
		d = depth;
	if (d >= slots)
		return zc_err(ZCAST_ELIMIT,
			      "topic %s keeps %u messages of history but this publisher "
			      "has %u slots: slot_count must exceed the history depth",
			      t->name, d, slots);
	uint32_t hi = atomic_load(&t->hdr->pool_hi);
	for (uint32_t i = 0; i < hi && i < t->max_pools; i++) {
		uint32_t n = t->pools[i].slot_count;
		if (atomic_load(&t->pools[i].state) == ZC_POOL_ACTIVE && depth >= n)
			return zc_err(ZCAST_ELIMIT,
				      "history_depth %u would wedge a publisher of %s that "
				      "has %u slots: at most %u",
				      depth, t->name, n, n - 1);
	}
	return 0;
}

static int check_opts(const zcast_pub_opts *o)
{
	if (o->slot_size == 0 || o->slot_size > (1ull << 40))
		return zc_err(ZCAST_EINVAL, "slot_size %zu out of range (1 .. 1 TiB)",
			      o->slot_size);
	if (o->slot_count == 0 || o->slot_count > ZC_MAX_SLOTS_LIMIT)
		return zc_err(ZCAST_EINVAL, "slot_count %u out of range (1 .. %u)", o->slot_count,
			      ZC_MAX_SLOTS_LIMIT);
	if (o->history_depth >= o->slot_count)
		return zc_err(ZCAST_ELIMIT,
			      "history_depth %u needs more than %u slots: slot_count must "
			      "exceed the history depth",
			      o->history_depth, o->slot_count);
	return 0;
}

/* Under the lock: records the pool and makes the publisher a target-maker. */
static int join_locked(zcast_pub *p, const zcast_pub_opts *opts)
{
	struct zc_topic *t = &p->t;
	struct zc_topic_hdr *h = t->hdr;
	int r;
	if ((r = zc_topic_check_type(t, opts->type_name, opts->type_hash)) < 0 ||
	    (r = check_history_fits(p, opts->history_depth, p->pool->slot_count)) < 0)
		return r;
	if (opts->topic.retain)
		atomic_store(&h->retain, 1);
	uint32_t pi = 0;
	while (pi < t->max_pools && atomic_load(&t->pools[pi].state) != ZC_POOL_UNUSED)
		pi++;
	if (pi == t->max_pools) {
		zc_reclaim(t); /* orphaned pools of dead publishers may come free */
		pi = 0;
		while (pi < t->max_pools && atomic_load(&t->pools[pi].state) != ZC_POOL_UNUSED)
			pi++;
		if (pi == t->max_pools)
			return zc_err(ZCAST_ELIMIT, "topic %s: all %u pool records are in use",
				      t->name, t->max_pools);
	}
	struct zc_pool_rec *pr = &t->pools[pi];
	ZC_WRITE_ONCE(pr->owner, p->index);
	ZC_WRITE_ONCE(pr->id, p->id);
	ZC_WRITE_ONCE(pr->slot_size, p->pool->slot_size);
	ZC_WRITE_ONCE(pr->slot_count, p->pool->slot_count);
	ZC_WRITE_ONCE(pr->ino, p->pool->ino);
	atomic_store_explicit(&pr->state, ZC_POOL_ACTIVE, memory_order_release);
	if (atomic_load(&h->pool_hi) <= pi)
		atomic_store(&h->pool_hi, pi + 1);
	ZC_CRASH("join:after-pool");
	struct zc_pub_rec *rec = &t->pubs[p->index];
	ZC_WRITE_ONCE(rec->pool, pi);
	ZC_WRITE_ONCE(rec->id, p->id);
	ZC_WRITE_ONCE(rec->pid, getpid());
	ZC_WRITE_ONCE(rec->history_depth, opts->history_depth);
	atomic_store(&rec->space_armed, 0);
	if (atomic_load(&h->hist_depth) < opts->history_depth)
		atomic_store(&h->hist_depth, opts->history_depth);
	atomic_store_explicit(&rec->state, ZC_REC_ACTIVE, memory_order_release);
	zc_topic_graph_changed(t);
	p->pool_index = pi;
	return 0;
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
	if (r < 0 || (r = check_opts(opts)) < 0)
		return r;
	zcast_pub *p = calloc(1, sizeof *p);
	if (!p)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	atomic_init(&p->refs, 1);
	struct zc_topic *t = &p->t;
	if ((r = zc_topic_attach(t, &zc_topic_maps, domain, topic, &opts->topic, true)) < 0)
		goto fail;
	if (opts->history_depth > t->history_cap) {
		r = zc_err(ZCAST_ELIMIT, "topic %s has history capacity %u, you asked for depth %u",
			   topic, t->history_cap, opts->history_depth);
		goto fail;
	}
	p->targets = calloc(t->max_subs, sizeof *p->targets);
	p->depths = calloc(t->max_subs, sizeof *p->depths);
	p->rr_wake = calloc(t->max_subs, 3 * sizeof *p->rr_wake); /* also RR candidates */
	p->seen = calloc(t->max_subs, sizeof *p->seen);
	if (!p->targets || !p->depths || !p->rr_wake || !p->seen) {
		r = zc_err(ZCAST_ENOMEM, "out of memory");
		goto fail;
	}
	if ((r = zc_topic_claim(t, ZC_KIND_PUB, &p->index)) < 0)
		goto fail;
	p->id = atomic_fetch_add(&t->hdr->next_id, 1);
	ZC_WRITE_ONCE(t->pubs[p->index].id, p->id); /* names the pool before it exists: reclaim finds it */
	/* The pool is built and prefaulted before taking the lock: it may take milliseconds. */
	if ((r = zc_pool_create(t, UINT32_MAX, p->id, opts->slot_count, opts->slot_size,
				&p->pool)) < 0)
		goto fail_record;
	ZC_CRASH("join:after-pool-create");
	if ((r = zc_topic_lock(t)) < 0)
		goto fail_pool;
	r = join_locked(p, opts);
	zc_topic_unlock(t);
	if (r < 0)
		goto fail_pool;
	p->pool->index = p->pool_index;
	p->history_depth = opts->history_depth;
	pthread_mutex_lock(t->maps_mu);
	atomic_fetch_add(&p->pool->refs, 1);
	struct zc_pool_map *old = t->maps[p->pool_index]; /* a previous owner's, mapped by a reclaim */
	t->maps[p->pool_index] = p->pool; /* the lock holder finds our own slots through the cache */
	pthread_mutex_unlock(t->maps_mu);
	zc_pool_put(old);
	zc_deaths_watch(t); /* holders that die are reclaimed promptly: their slots come back */
	*out = p;
	return 0;

fail_pool:
	zc_pool_unlink(t, p->id);
fail_record:
	atomic_store(&t->pubs[p->index].state, ZC_REC_FREE);
fail:
	pub_free(p);
	return r;
}

/* Leaves for real: once the handle is closed and the last loan is gone. Waits for a slow live
 * holder (zc_topic_lock_for_close); only a lock word stuck for 30 s leaves the record to a later
 * reclaim, which finds its member gone (test close_lock_held). */
static void pub_leave(zcast_pub *p)
{
	struct zc_topic *t = &p->t;
	if (zc_topic_lock_for_close(t) == 0) {
		struct zc_pool_rec *pr = &t->pools[p->pool_index];
		atomic_store(&pr->state, ZC_POOL_ORPHAN); /* history and holders keep it alive */
		ZC_CRASH("leave:after-orphan");
		atomic_store(&t->pubs[p->index].state, ZC_REC_FREE);
		ZC_CRASH("leave:after-free");
		zc_topic_graph_changed(t);
		zc_reclaim_pool(t, p->pool_index, NULL); /* our own pool only: no probe of others */
		zc_topic_unlock(t);
	}
	pub_free(p);
}

ZC_HOT void zc_pub_unref(zcast_pub *p)
{
	if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
		pub_leave(p);
}

int zcast_pub_close(zcast_pub *p)
{
	if (!p)
		return ZCAST_EINVAL;
	/* SYNC: lock-stop: the store, then the wake; partner proto/lock_word.c stopped(), whose
	 * futex_waitv compares the word as it sleeps. Ends a zcast_publish_wait waiting for the
	 * topic lock at once, not at the end of its 2 s try (test publish_wait_close_prompt). */
	atomic_store(&p->closed, 1);
	zc_futex_wake_private(&p->closed, INT_MAX);
	if (zc_inherited(&p->t)) { /* a forked child lets go of its parent's handle: nothing shared */
		pub_free(p);
		return 0;
	}
	zc_pub_unref(p);
	return 0;
}

uint64_t zcast_pub_id(const zcast_pub *p)
{
	return p ? p->id : 0;
}

/* Under the topic lock: a dead holder's publish is finished or rolled back first, its mark with it
 * (proto/topic_lock.c). */
int zcast_pub_last_mark(zcast_pub *p, uint32_t *mark)
{
	if (!p || !mark)
		return ZCAST_EINVAL;
	if (atomic_load(&p->closed) || zc_inherited(&p->t))
		return zc_err(ZCAST_ESTALE, "publisher is closed or inherited across fork");
	int r = zc_topic_lock(&p->t);
	if (r < 0)
		return r;
	*mark = atomic_load(&p->t.hdr->last_mark);
	zc_topic_unlock(&p->t);
	return 0;
}
