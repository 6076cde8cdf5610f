/* Doorbells (doorbell.h, docs/WAITSETS.md "The doorbell"): creation and removal by the owner,
 * and ringing by publishers. The process's table of mapped doorbells is bell_table.c, the cleanup of
 * doorbells whose owner was killed bell_sweep.c, a publisher's cache core/bell_cache.c.
 *
 * Liveness: the owner holds an exclusive OFD lock on byte 0 of its doorbell file for as long as it
 * lives. A cleaner removes a file only while it holds that lock itself (so the owner is gone), and
 * marks it closed first, so that every process that still maps it lets go and looks the name up
 * again. An owner that finds its fresh file unlinked after locking (a cleaner came between its
 * create and its lock) simply takes the next serial. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "doorbell.h"

static _Atomic uint32_t next_serial;

void zc_bell_name(char *out, size_t n, uint64_t key)
{
	snprintf(out, n, "/" ZC_BELL_PREFIX "%u.%u", (unsigned)(key >> 16), (unsigned)(key & 0xffffu));
}

struct zc_bell_hdr *zc_bell_map_checked(int fd, const char *name, unsigned mode)
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

/* Doorbells of killed processes, once per process: a sweep opens every zcast-bell.* file of the
 * host, too slow for every wait set's first subscriber. Later ones are removed by the reclaim of
 * their subscribers and by zcast_doorbell_gc; a name of this pid still taken from an earlier life
 * is reaped by the create loop. */
static _Atomic bool swept;
/* Not pthread_once: the sweep is slow, and a fork while another thread runs it would leave the
 * child a once "in progress" for ever where the once is not fork-aware (TSan's: seen as a child
 * hung in its first zc_bell_create, test fork_helpers). Nobody needs to wait for the sweep: the
 * first caller runs it, the others go on. */
static void first_sweep(void)
{
	if (!atomic_exchange(&swept, true))
		zc_bell_sweep();
}

int zc_bell_create(struct zc_bell_own *o)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	first_sweep();
	uint32_t pid = (uint32_t)getpid();
	for (int tries = 0; tries < 64; tries++) {
		uint64_t key =
		    ((uint64_t)pid << 16) | (atomic_fetch_add(&next_serial, 1) & 0xffffu);
		zc_bell_name(o->name, sizeof o->name, key);
		int fd = zc_shm_create(o->name, ZC_BELL_SIZE, 0600, false);
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
		/* SYNC: bell-magic; partner proto/bell_table.c zc_bell_get */
		atomic_store_explicit(&h->magic, ZC_BELL_MAGIC, memory_order_release);
		atomic_init(&b->refs, 1);
		b->key = key;
		b->hdr = h;
		b->owned = true;
		o->b = zc_bell_table_add(b); /* our own publishers ring it without reopening it */
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
	zc_bell_table_remove(o->b);
	zc_bell_put(o->b);
	zc_fd_close(o->fd); /* drops the liveness lock last */
	o->b = NULL;
}
