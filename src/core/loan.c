/* Loan: a free slot of the publisher's own pool, claimed by one CAS on its state word. */
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#define RECLAIM_INTERVAL_NS 10000000 /* an empty pool looks for dead holders at most every 10 ms   \
				      */

ZC_HOT static int try_loan(zcast_pub *p, size_t size, zcast_msg **out)
{
	struct zc_pool_map *m = p->pool;
	uint32_t n = m->slot_count;
	/* The slot tried first is most likely ours: its payload's first line (which the caller writes
	 * next, and a subscriber's core read last) is asked for beside the state word's CAS. */
	zc_prefetch_write(m->payload + (uint64_t)p->cursor * m->slot_size);
	zc_pub_prefetch(p);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = p->cursor + k < n ? p->cursor + k : p->cursor + k - n;
		struct zc_slot_hdr *s = zc_slot(m, i);
		/* SYNC: slot-free; partner proto/slot_release.c zc_slot_free. seq_cst: store buffering
		 * with loan_impl's announce (a plain load on x86, LDAR on AArch64). */
		uint64_t w = atomic_load_explicit(&s->state, memory_order_seq_cst);
		if (ZC_STATE_ST(w) != ZC_SLOT_FREE)
			continue;
		/* The state word is the only truth: one CAS makes the slot ours. */
		if (!atomic_compare_exchange_strong_explicit(
			&s->state, &w, ZC_STATE(ZC_SLOT_LOANED, ZC_STATE_GEN(w)),
			memory_order_acq_rel, memory_order_relaxed))
			continue;
		ZC_CRASH("loan:after-cas");
		ZC_TSAN_ACQUIRE(&s->state); /* after every holder's reads (see internal.h) */
		zcast_msg *msg = atomic_exchange_explicit(&p->spare, NULL, memory_order_acquire);
		if (!msg)
			msg = malloc(sizeof *msg);
		if (!msg) {
			zc_slot_free(m, i, ZC_SLOT_LOANED, ZC_STATE_GEN(w));
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		/* The next loan tries this slot first: once released it is the one still in the
		 * caches (and TLBs) of publisher and subscribers, where a rotation would walk the
		 * whole pool through memory (8 MiB touched: about 2x). While it is held the scan
		 * moves on. */
		p->cursor = i;
		atomic_init(&msg->refs, 1);
		atomic_init(&msg->kind, ZC_MSG_LOAN);
		msg->stamp = (zcast_msg_stamp){0, 0};
		msg->slot = i;
		msg->gen = ZC_STATE_GEN(w);
		msg->data = m->payload + (uint64_t)i * m->slot_size;
		msg->size = size;
		msg->map = m;
		msg->pub = p;
		msg->sub = NULL;
		msg->compacted = false;
		msg->mark = 0;
#ifdef ZCAST_POISON
		memset(msg->data, 0xdd,
		       m->slot_size); /* a premature reuse shows as a bad checksum */
#endif
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
		*out = msg;
		return 0;
	}
	return ZCAST_ENOSLOT;
}

/* An empty pool may mean a dead holder: reclaim, at most once per interval. */
static void reclaim_rate_limited(zcast_pub *p)
{
	int64_t now = zc_now_ns();
	if (now - p->reclaimed_ns < RECLAIM_INTERVAL_NS)
		return;
	p->reclaimed_ns = now;
	if (zc_topic_lock(&p->t) == 0) {
		zc_reclaim(&p->t);
		zc_topic_unlock(&p->t);
	}
}

/* An empty pool whose slots DROP_OLD queues hold: they drop their oldest entries of it, as a full
 * DROP_OLD ring would (drop_old.c). True when one went. Costs a lock only when the pool is empty.
 * A wait keeps trying for the lock until its deadline: no take frees those slots, so a wait that
 * skipped this because a live holder kept the lock past its timeout slept on for nothing (test
 * loan_wait_lock_held). */
static bool unpin(zcast_pub *p, int64_t deadline)
{
	if (zc_topic_lock_until(&p->t, deadline, NULL, NULL, NULL) != 0)
		return false;
	int n = zc_unpin_pool(&p->t, p->pool_index);
	zc_topic_unlock(&p->t);
	return n > 0;
}

ZC_HOT static int loan_impl(zcast_pub *p, size_t size, int64_t deadline, zcast_msg **out)
{
	if (!p || !out)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	*out = NULL;
	if (atomic_load(&p->closed) || zc_inherited(&p->t))
		return zc_err(ZCAST_ESTALE, "publisher of %s is closed (or opened before fork())",
			      p->t.name);
	if (size > p->pool->slot_size)
		return zc_err(ZCAST_EINVAL, "loan of %zu bytes exceeds the slot size %llu of %s",
			      size, (unsigned long long)p->pool->slot_size, p->t.name);
	struct zc_pool_hdr *ph = zc_pool_hdr(p->pool);
	int r = try_loan(p, size, out);
	while (r == ZCAST_ENOSLOT && unpin(p, deadline))
		r = try_loan(p, size, out);
	if (r != ZCAST_ENOSLOT)
		return r;
	reclaim_rate_limited(p);
	for (;;) {
		/* Announce, read the word, retry, then sleep: a free after the retry wakes us.
		 * Frees by reclaim of a dead holder (death watcher, gc) wake us the same way. */
		/* SYNC: pool-freed; partner proto/slot_release.c zc_slot_free (all seq_cst) */
		atomic_fetch_add_explicit(&ph->waiters, 1, memory_order_seq_cst);
		uint32_t v = atomic_load_explicit(&ph->freed, memory_order_seq_cst);
		r = try_loan(p, size, out);
		if (r == ZCAST_ENOSLOT && deadline != 0) {
			zc_deaths_rescan(&p->t); /* the holders' deaths must reach us */
			r = zc_futex_wait(&ph->freed, v, deadline);
		}
		atomic_fetch_sub_explicit(&ph->waiters, 1, memory_order_seq_cst);
		if (*out)
			return 0;
		if (r != ZCAST_ENOSLOT && r < 0 && r != ZCAST_ETIMEDOUT && r != ZCAST_EAGAIN)
			return r;
		if (deadline == 0)
			return zc_err(ZCAST_ENOSLOT, "pool of %s: all %u slots are in use",
				      p->t.name, p->pool->slot_count);
		if (r == ZCAST_ETIMEDOUT || zc_now_ns() >= deadline)
			return zc_err(ZCAST_ETIMEDOUT, "no free slot in the pool of %s in time",
				      p->t.name);
	}
}

ZC_HOT int zcast_loan(zcast_pub *p, size_t size, zcast_msg **out)
{
	return loan_impl(p, size, 0, out);
}

int zcast_loan_wait(zcast_pub *p, size_t size, int64_t timeout_ns, zcast_msg **out)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : zc_after(zc_now_ns(), timeout_ns);
	return loan_impl(p, size, deadline ? deadline : 1, out);
}

void zc_pub_return_loan(zcast_pub *p, zcast_msg *m)
{
	if (zc_inherited(&p->t)) {
		free(m); /* the parent's slot: not ours to touch */
		return;
	}
	zc_slot_free(m->map, m->slot, ZC_SLOT_LOANED, m->gen);
	zc_pub_release_msg(p, m);
}

ZC_HOT void zc_pub_release_msg(zcast_pub *p, zcast_msg *m)
{
	zcast_msg *none = NULL; /* kept for the next loan (our reference keeps p alive) */
	if (!atomic_compare_exchange_strong_explicit(&p->spare, &none, m, memory_order_release,
						     memory_order_relaxed))
		free(m);
	zc_pub_unref(p);
}
