/* The process's table of mapped doorbells (doorbell.h): one mapping per doorbell, shared by the
 * process's ringers and its own wait sets, dropped when the doorbell is closed; a fork leaves the
 * child an empty table; an exiting process unlinks the doorbells of its own wait sets. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "doorbell.h"

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zc_bell *table; /* mapped doorbells of this process; the table holds a reference */
static unsigned table_gen;    /* zc_fork_generation the table belongs to */

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

void zc_bell_table_fork_handlers(void)
{
	pthread_once(&fork_once, install_fork_handlers);
}

static void lock_table(void)
{
	zc_bell_table_fork_handlers();
	pthread_mutex_lock(&table_mu);
}

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
			zc_bell_name(name, sizeof name, b->key);
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
static struct zc_bell *table_add(struct zc_bell *b, bool owned)
{
	if (owned)
		pthread_once(&at_exit_once, install_at_exit);
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

void zc_bell_table_remove(struct zc_bell *b)
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

struct zc_bell *zc_bell_table_add(struct zc_bell *b)
{
	return table_add(b, b->owned);
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
	zc_bell_name(name, sizeof name, key);
	int fd = zc_fd_open(name, O_RDWR, 0);
	if (fd < 0)
		return NULL;
	struct zc_bell_hdr *h = zc_bell_map_checked(fd, name, mode);
	zc_fd_close(fd); /* the mapping is all we need: we hold no lock on a doorbell we ring */
	if (!h)
		return NULL;
	/* SYNC: bell-magic: the magic before the header; partner proto/doorbell.c zc_bell_create */
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
	return table_add(b, false);
}
