/* One mapping per topic per process: every publisher, subscriber and tool handle of a process that
 * attaches to the same control segment (same file: device and inode) shares one mapping of it, the
 * limits read from its header when it was first mapped, and one cache of pool mappings.
 *
 * A process with 50 subscriptions of one topic then maps the topic and each publisher's pool once,
 * not 50 times. Membership stays per handle: each handle keeps its own descriptor (its OFD locks)
 * and its own member record, so a handle's crash semantics do not change.
 *
 * The header is read once per mapping: a second handle takes the limits checked for the first, so a
 * member that rewrites the header in between cannot make two handles of one process disagree on
 * the sizes of the arrays they share. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core_internal.h"

static pthread_mutex_t list_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zc_topic_map *list;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child inherits the list with the lock in a known state; its entries are the parent's
 * (absent in the child: MADV_DONTFORK) and never match there, since their fork generation differs. */
static void prepare(void)
{
	pthread_mutex_lock(&list_mu);
}
static void release(void)
{
	pthread_mutex_unlock(&list_mu);
}
static void install_atfork(void)
{
	pthread_atfork(prepare, release, release);
}

static bool same_file(const struct zc_topic_map *m, uint64_t dev, uint64_t ino, size_t size,
		      unsigned gen)
{
	return m->dev == dev && m->ino == ino && m->size == size && m->fork_gen == gen;
}

struct zc_topic_map *zc_topic_map_find(uint64_t dev, uint64_t ino, size_t size)
{
	pthread_once(&atfork_once, install_atfork);
	unsigned gen = atomic_load(&zc_fork_generation);
	pthread_mutex_lock(&list_mu);
	struct zc_topic_map *m = list;
	while (m && !same_file(m, dev, ino, size, gen))
		m = m->next;
	if (m)
		m->refs++;
	pthread_mutex_unlock(&list_mu);
	return m;
}

int zc_topic_map_add(const struct zc_topic *shape, uint64_t dev, uint64_t ino, size_t size,
		     struct zc_topic_map **out)
{
	pthread_once(&atfork_once, install_atfork);
	struct zc_topic_map *fresh = calloc(1, sizeof *fresh);
	struct zc_pool_map **maps = calloc(shape->max_pools, sizeof *maps);
	if (!fresh || !maps) {
		free(fresh);
		free(maps);
		munmap(shape->hdr, size);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	fresh->dev = dev;
	fresh->ino = ino;
	fresh->size = size;
	fresh->fork_gen = atomic_load(&zc_fork_generation);
	fresh->refs = 1;
	fresh->shape = *shape;
	fresh->shape.maps = maps;
	pthread_mutex_init(&fresh->maps_mu, NULL);
	pthread_mutex_lock(&list_mu);
	struct zc_topic_map *m = list;
	while (m && !same_file(m, dev, ino, size, fresh->fork_gen))
		m = m->next;
	if (m) { /* another thread of ours mapped it meanwhile: use that one */
		m->refs++;
	} else {
		fresh->next = list;
		list = fresh;
	}
	pthread_mutex_unlock(&list_mu);
	if (m) {
		munmap(shape->hdr, size);
		pthread_mutex_destroy(&fresh->maps_mu);
		free(maps);
		free(fresh);
		fresh = m;
	}
	*out = fresh;
	return 0;
}

void zc_topic_map_use(struct zc_topic *t, struct zc_topic_map *m)
{
	const struct zc_topic *s = &m->shape;
	t->shared = m;
	t->owed_seen = &m->shape.owed_seen_own;
	t->hdr = s->hdr;
	t->map_size = m->size;
	t->max_pubs = s->max_pubs;
	t->max_subs = s->max_subs;
	t->max_depth = s->max_depth;
	t->ring_cells = s->ring_cells;
	t->history_cap = s->history_cap;
	t->max_pools = s->max_pools;
	t->max_groups = s->max_groups;
	t->n_members = s->n_members;
	t->bitmap_words = s->bitmap_words;
	t->topic_hash = s->topic_hash;
	t->pubs = s->pubs;
	t->subs = s->subs;
	t->tools = s->tools;
	t->pools = s->pools;
	t->groups = s->groups;
	t->rings = s->rings;
	t->history = s->history;
	t->maps = s->maps;
	t->maps_mu = &m->maps_mu;
}

void zc_topic_map_put(struct zc_topic_map *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&list_mu);
	bool last = --m->refs == 0;
	if (last) {
		struct zc_topic_map **p = &list;
		while (*p && *p != m)
			p = &(*p)->next;
		if (*p)
			*p = m->next;
	}
	pthread_mutex_unlock(&list_mu);
	if (!last)
		return;
	/* In a forked child the parent's mappings are absent (MADV_DONTFORK): unmapping that range
	 * could hit whatever the child mapped there since, so nothing is unmapped and the pool map
	 * records (which inherited handles may still point to) are left as they are. */
	bool mapped = m->fork_gen == atomic_load(&zc_fork_generation);
	for (uint32_t p = 0; p < m->shape.max_pools; p++)
		if (mapped)
			zc_pool_put(m->shape.maps[p]);
	free(m->shape.maps);
	if (mapped)
		munmap(m->shape.hdr, m->size);
	pthread_mutex_destroy(&m->maps_mu);
	free(m);
}

void zc_topic_map_forget_pool(struct zc_topic_map *m, struct zc_pool_map *pool)
{
	if (!m || !pool || pool->index >= m->shape.max_pools)
		return;
	pthread_mutex_lock(&m->maps_mu);
	bool ours = m->shape.maps[pool->index] == pool;
	if (ours)
		m->shape.maps[pool->index] = NULL;
	pthread_mutex_unlock(&m->maps_mu);
	if (ours)
		zc_pool_put(pool);
}

static bool use_existing(struct zc_topic *t, uint64_t dev, uint64_t ino, size_t size)
{
	struct zc_topic_map *m = zc_topic_map_find(dev, ino, size);
	if (m)
		zc_topic_map_use(t, m);
	return m != NULL;
}

static int share(struct zc_topic *t, const struct zc_topic *shape, uint64_t dev, uint64_t ino,
		 size_t size)
{
	struct zc_topic_map *m;
	int r = zc_topic_map_add(shape, dev, ino, size, &m);
	if (r < 0)
		return r;
	zc_topic_map_use(t, m);
	return 0;
}

static void put(struct zc_topic *t)
{
	zc_topic_map_put(t->shared);
}

const struct zc_segment_cache zc_topic_maps = {use_existing, share, put};
