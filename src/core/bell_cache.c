/* A publisher's doorbell cache (core_internal.h): one entry per subscriber record, no lock and no
 * syscall while the records' doorbell references stay the same. */
#include <stdlib.h>

#include "core_internal.h"

#define RETRY_NS 10000000 /* a doorbell that could not be mapped is tried again after 10 ms */

struct bell_slot {
	uint64_t key;
	struct zc_bell *b; /* with a reference; NULL: not mapped (retry at retry_ns) */
	int64_t retry_ns;
};

struct zc_bell_cache {
	uint32_t n, n_wake;
	struct bell_slot *slot; /* per subscriber record */
	struct zc_bell **wake;	/* asleep, to wake after the unlock (slots hold the references) */
	uint32_t *claim;	/* per wake: our claim of it (zc_bell_must_wake), or 0 */
};

static struct zc_bell_cache *cache_of(zcast_pub *p)
{
	if (p->bells)
		return p->bells;
	uint32_t n = p->t.max_subs;
	struct zc_bell_cache *c = calloc(1, sizeof *c);
	if (c) {
		c->n = n;
		c->slot = calloc(n, sizeof *c->slot);
		c->wake = calloc(n, sizeof *c->wake);
		c->claim = calloc(n, sizeof *c->claim);
		if (!c->slot || !c->wake || !c->claim) {
			free(c->slot);
			free(c->wake);
			free(c->claim);
			free(c);
			c = NULL;
		}
	}
	return p->bells = c;
}

/* The doorbell of subscriber k's reference, from the cache when it still holds it. */
static struct zc_bell *cached(struct zc_bell_cache *c, zcast_pub *p, uint32_t k, uint64_t key)
{
	struct bell_slot *s = &c->slot[k];
	if (s->b && s->key == key && !zc_bell_closed(s->b))
		return s->b;
	if (!s->b && s->key == key && zc_now_ns() < s->retry_ns)
		return NULL;
	zc_bell_put(s->b);
	s->key = key;
	s->b = zc_bell_get(key, p->t.mode);
	if (!s->b)
		s->retry_ns = zc_now_ns() + RETRY_NS;
	return s->b;
}

void zc_bell_push(zcast_pub *p, uint32_t k, uint64_t ref)
{
	uint32_t bit = ZC_BELL_REF_BIT(ref);
	if (bit >= ZC_BELL_BITS)
		return; /* a scribbled reference: rings nothing */
	struct zc_bell_cache *c = cache_of(p);
	if (!c || k >= c->n) {
		zc_bell_ring_ref(ref, p->t.mode); /* no memory for the cache: the slow path */
		return;
	}
	struct zc_bell *b = cached(c, p, k, ZC_BELL_REF_KEY(ref));
	if (!b || !zc_bell_set(b, bit))
		return;
	for (uint32_t i = 0; i < c->n_wake; i++)
		if (c->wake[i] == b)
			return; /* several subscribers of one wait set: one wake */
	uint32_t claim;
	if (!zc_bell_must_wake(b, &claim))
		return; /* this sleep's claimer has woken it */
	ZC_CRASH("publish:after-bell-claim"); /* others must not wait for a dead claimer */
	zc_bell_bump(b); /* under the lock: a sleeper that read the word before sleeps no more */
	c->claim[c->n_wake] = claim;
	c->wake[c->n_wake++] = b;
}

ZC_HOT uint32_t zc_bell_pending(const zcast_pub *p)
{
	return p->bells ? p->bells->n_wake : 0;
}

void zc_bell_wake_pending(zcast_pub *p)
{
	struct zc_bell_cache *c = p->bells;
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_wake; i++) {
		zc_bell_wake(c->wake[i]);
		if (c->claim[i])
			zc_bell_delivered(c->wake[i], c->claim[i]);
	}
	c->n_wake = 0;
}

void zc_bell_cache_free(zcast_pub *p)
{
	struct zc_bell_cache *c = p->bells;
	if (!c)
		return;
	for (uint32_t k = 0; k < c->n; k++)
		zc_bell_put(c->slot[k].b);
	free(c->slot);
	free(c->wake);
	free(c->claim);
	free(c);
	p->bells = NULL;
}
