/* Doorbells (doorbell.h, docs/WAITSETS.md "The doorbell"): creation and removal by the owner,
 * mapping and ringing by publishers, and the cleanup of doorbells whose owner was killed.
 *
 * Liveness: the owner holds an exclusive OFD lock on byte 0 of its doorbell file for as long as it
 * lives. A cleaner removes a file only while it holds that lock itself (so the owner is gone), and
 * marks it closed first, so that every process that still maps it lets go and looks the name up
 * again. An owner that finds its fresh file unlinked after locking (a cleaner came between its
 * create and its lock) simply takes the next serial. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "doorbell.h"

#define BELL_PREFIX "zcast-bell."
#define RETRY_NS 10000000 /* a doorbell that could not be mapped is tried again after 10 ms */

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zc_bell *table; /* mapped doorbells of this process; the table holds a reference */
static unsigned table_gen;    /* zc_fork_generation the table belongs to */
static _Atomic uint32_t next_serial;

/* A fork while another thread holds table_mu (a publisher ringing, a join) must not leave the
 * child a locked mutex: the lock is held across fork, and the child starts with an empty table
 * (the parent's mappings are MADV_DONTFORK, absent in the child). */
static void fork_prepare(void)
{
	pthread_mutex_lock(&table_mu);
}
static void fork_parent(void)
{
	pthread_mutex_unlock(&table_mu);
}
static void fork_child(void)
{
	table = NULL; /* the parent's entries: their mappings are absent here (not freed: local) */
	pthread_mutex_unlock(&table_mu); /* the forking thread took it in prepare: it is us */
}
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void lock_table(void)
{
	pthread_once(&fork_once, install_fork_handlers);
	pthread_mutex_lock(&table_mu);
}

static void bell_name(char *out, size_t n, uint64_t key)
{
	snprintf(out, n, "/" BELL_PREFIX "%u.%u", (unsigned)(key >> 16), (unsigned)(key & 0xffffu));
}

void zc_bell_put(struct zc_bell *b)
{
	if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) {
		munmap(b->hdr, ZC_BELL_SIZE);
		free(b);
	}
}

/* Under table_mu: the live entry for key (closed ones leave the table), or NULL. */
static struct zc_bell *table_find(uint64_t key)
{
	unsigned gen = atomic_load(&zc_fork_generation);
	if (gen != table_gen) { /* a forked child: the parent's mappings are absent here */
		table = NULL;
		table_gen = gen;
	}
	for (struct zc_bell **pp = &table; *pp;) {
		struct zc_bell *b = *pp;
		if (zc_bell_closed(b)) {
			*pp = b->next;
			zc_bell_put(b);
			continue;
		}
		if (b->key == key)
			return b;
		pp = &b->next;
	}
	return NULL;
}

/* Adds b (with the caller's reference) to the table unless key is there already; returns the entry
 * to use, with a reference for the caller. */
static struct zc_bell *table_add(struct zc_bell *b)
{
	lock_table();
	struct zc_bell *old = table_find(b->key);
	if (old) {
		atomic_fetch_add(&old->refs, 1);
		pthread_mutex_unlock(&table_mu);
		zc_bell_put(b);
		return old;
	}
	atomic_fetch_add(&b->refs, 1);
	b->next = table;
	table = b;
	pthread_mutex_unlock(&table_mu);
	return b;
}

static void table_remove(struct zc_bell *b)
{
	lock_table();
	for (struct zc_bell **pp = &table; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			zc_bell_put(b);
			break;
		}
	}
	pthread_mutex_unlock(&table_mu);
}

/* Maps an existing doorbell file after the trust checks. NULL (error recorded) when untrusted. */
static struct zc_bell_hdr *map_checked(int fd, const char *name, unsigned mode)
{
	struct stat st;
	if (zc_shm_check(fd, name, mode, &st) < 0)
		return NULL;
	if (st.st_size != (off_t)ZC_BELL_SIZE) {
		zc_err(ZCAST_ECORRUPT, "%s: a doorbell has %u bytes, this file %lld", name,
		       ZC_BELL_SIZE, (long long)st.st_size);
		return NULL;
	}
	return zc_map(fd, ZC_BELL_SIZE, 0, true, false);
}

struct zc_bell *zc_bell_get(uint64_t key, unsigned mode)
{
	lock_table();
	struct zc_bell *b = table_find(key);
	if (b)
		atomic_fetch_add(&b->refs, 1);
	pthread_mutex_unlock(&table_mu);
	if (b)
		return b;
	char name[64];
	bell_name(name, sizeof name, key);
	int fd = zc_fd_open(name, O_RDWR, 0);
	if (fd < 0)
		return NULL;
	struct zc_bell_hdr *h = map_checked(fd, name, mode);
	zc_fd_close(fd); /* the mapping is all we need: we hold no lock on a doorbell we ring */
	if (!h)
		return NULL;
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != ZC_BELL_MAGIC ||
	    ZC_READ_ONCE(h->layout_version) != ZC_LAYOUT_VERSION || atomic_load(&h->closed)) {
		munmap(h, ZC_BELL_SIZE);
		return NULL;
	}
	b = calloc(1, sizeof *b);
	if (!b) {
		munmap(h, ZC_BELL_SIZE);
		return NULL;
	}
	atomic_init(&b->refs, 1);
	b->key = key;
	b->hdr = h;
	return table_add(b);
}

void zc_bell_wake(struct zc_bell *b)
{
	zc_futex_wake(&b->hdr->word, INT_MAX);
}

void zc_bell_batch_ring(struct zc_bell_batch *bb, uint64_t ref, unsigned mode)
{
	uint32_t bit = ZC_BELL_REF_BIT(ref);
	if (!ref || bit >= ZC_BELL_BITS)
		return;
	struct zc_bell *b = zc_bell_get(ZC_BELL_REF_KEY(ref), mode);
	if (!b)
		return;
	if (zc_bell_set(b, bit)) {
		for (uint32_t i = 0; i < bb->n; i++) {
			if (bb->b[i] == b) { /* bumped already: one wake per doorbell */
				zc_bell_put(b);
				return;
			}
		}
		zc_bell_bump(b);
		if (bb->n == ZC_BELL_BATCH)
			zc_bell_batch_wake(bb);
		bb->b[bb->n++] = b; /* keeps the reference until woken */
		return;
	}
	zc_bell_put(b);
}

ZC_HOT void zc_bell_batch_wake(struct zc_bell_batch *bb)
{
	for (uint32_t i = 0; i < bb->n; i++) {
		zc_bell_wake(bb->b[i]);
		zc_bell_put(bb->b[i]);
	}
	bb->n = 0;
}

void zc_bell_ring_ref(uint64_t ref, unsigned mode)
{
	struct zc_bell_batch bb = {0};
	zc_bell_batch_ring(&bb, ref, mode);
	zc_bell_batch_wake(&bb);
}

/* ---- the owner ---- */

/* A process that exits without destroying its wait sets takes their files along (a killed one
 * leaves them to the cleanups below). */
static void unlink_owned_at_exit(void)
{
	lock_table();
	if (table_gen == atomic_load(&zc_fork_generation)) {
		for (struct zc_bell *b = table; b; b = b->next) {
			if (!b->owned)
				continue;
			char name[64];
			bell_name(name, sizeof name, b->key);
			atomic_store(&b->hdr->closed, 1);
			shm_unlink(name);
		}
	}
	pthread_mutex_unlock(&table_mu);
}

static pthread_once_t at_exit_once = PTHREAD_ONCE_INIT;
static void install_at_exit(void)
{
	atexit(unlink_owned_at_exit);
}

/* Doorbells of killed processes, once per process: a sweep opens every zcast-bell.* file of the
 * host, too slow for every wait set's first subscriber. Later ones are removed by the reclaim of their subscribers and by
 * zcast_doorbell_gc; a name of this pid still taken from an earlier life is reaped by the create
 * loop. */
static pthread_once_t sweep_once = PTHREAD_ONCE_INIT;
static void first_sweep(void)
{
	zc_bell_sweep();
}

int zc_bell_create(struct zc_bell_own *o)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	pthread_once(&sweep_once, first_sweep);
	uint32_t pid = (uint32_t)getpid();
	for (int tries = 0; tries < 64; tries++) {
		uint64_t key =
		    ((uint64_t)pid << 16) | (atomic_fetch_add(&next_serial, 1) & 0xffffu);
		bell_name(o->name, sizeof o->name, key);
		int fd = zc_shm_create(o->name, ZC_BELL_SIZE, 0600);
		if (fd == ZCAST_EAGAIN) {
			zc_bell_reap(key
				     << 16); /* a dead owner's leftover: gone for the next round */
			continue;
		}
		if (fd < 0)
			return fd;
		struct stat st;
		if (zc_ofd_lock(fd, 0, true) < 0 || fstat(fd, &st) != 0 || st.st_nlink == 0) {
			zc_fd_close(fd); /* a cleaner got between our create and our lock */
			continue;
		}
		struct zc_bell_hdr *h = zc_map(fd, ZC_BELL_SIZE, 0, true, true);
		struct zc_bell *b = h ? calloc(1, sizeof *b) : NULL;
		if (!b) {
			if (h)
				munmap(h, ZC_BELL_SIZE);
			shm_unlink(o->name);
			zc_fd_close(fd);
			return zc_err(ZCAST_ENOMEM, "cannot map the doorbell %s", o->name);
		}
		h->layout_version = ZC_LAYOUT_VERSION;
		atomic_store_explicit(&h->magic, ZC_BELL_MAGIC, memory_order_release);
		atomic_init(&b->refs, 1);
		b->key = key;
		b->hdr = h;
		b->owned = true;
		pthread_once(&at_exit_once, install_at_exit);
		o->b = table_add(b); /* our own publishers ring it without reopening it */
		o->fd = fd;
		o->fork_gen = atomic_load(&zc_fork_generation);
		return 0;
	}
	return zc_err(ZCAST_EBUSY, "no free doorbell name for pid %u", (unsigned)pid);
}

void zc_bell_destroy(struct zc_bell_own *o)
{
	if (!o->b)
		return;
	if (o->fork_gen != atomic_load(&zc_fork_generation)) {
		/* A forked child: the mapping is absent (MADV_DONTFORK) and the file is the
		 * parent's. The few bytes of the struct are left behind with the parent's table. */
		o->b = NULL;
		return;
	}
	atomic_store(&o->b->hdr->closed, 1); /* before the unlink: mappers let go */
	shm_unlink(o->name);
	table_remove(o->b);
	zc_bell_put(o->b);
	zc_fd_close(o->fd); /* drops the liveness lock last */
	o->b = NULL;
}

/* ---- cleanup ---- */

/* Removes the doorbell file `name` if nobody holds its liveness lock. */
static bool reap_name(const char *name)
{
	int fd = zc_fd_open(name, O_RDWR, 0);
	if (fd < 0)
		return false;
	bool gone = false;
	struct stat st;
	/* Holding the lock ourselves, nobody else unlinks it: the name still names this file. */
	if (zc_ofd_lock(fd, 0, true) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
		struct zc_bell_hdr *h = map_checked(fd, name, 0600);
		if (h) {
			atomic_store(&h->closed, 1);
			munmap(h, ZC_BELL_SIZE);
		}
		gone = shm_unlink(name) == 0;
	}
	zc_fd_close(fd);
	return gone;
}

void zc_bell_reap(uint64_t ref)
{
	if (!ref)
		return;
	char name[64];
	bell_name(name, sizeof name, ZC_BELL_REF_KEY(ref));
	reap_name(name);
}

int zc_bell_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return zc_errno(ZCAST_ESYS, "opendir /dev/shm");
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, BELL_PREFIX, sizeof BELL_PREFIX - 1) != 0 ||
		    strlen(e->d_name) > 60)
			continue;
		char name[64];
		snprintf(name, sizeof name, "/%s", e->d_name);
		n += reap_name(name);
	}
	closedir(d);
	return n;
}

/* ---- a publisher's cache ---- */

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
