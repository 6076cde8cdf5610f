/* Pool segments: one per publisher, slot headers then page-aligned payload.
 * Any process of the topic maps a pool's headers on demand (reclaim and history need nothing else);
 * a subscriber maps the payload read-only on its first take from the pool, outside the topic lock
 * and without prefaulting what it may never read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include "proto_internal.h"

struct pool_geometry {
	uint64_t slot_size, stride, payload_off, size;
};

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static struct pool_geometry geometry(uint32_t slots, uint64_t slot_size, uint32_t bitmap_words)
{
	struct pool_geometry g;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	g.slot_size = round_up(slot_size ? slot_size : 1, ZC_CACHELINE);
	g.stride = round_up(sizeof(struct zc_slot_hdr) + 8ull * bitmap_words, ZC_CACHELINE);
	g.payload_off = round_up(sizeof(struct zc_pool_hdr) + (uint64_t)slots * g.stride, page);
	g.size = g.payload_off + (uint64_t)slots * g.slot_size;
	return g;
}

static struct zc_pool_map *new_map(uint32_t index, uint64_t id, uint32_t slots, uint32_t bw,
				   struct pool_geometry g, bool writable)
{
	struct zc_pool_map *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	atomic_init(&m->refs, 1);
	m->index = index;
	m->id = id;
	m->writable = writable;
	m->slot_count = slots;
	m->bitmap_words = bw;
	m->slot_size = g.slot_size;
	m->slot_stride = g.stride;
	m->payload_off = g.payload_off;
	m->size = g.size;
	return m;
}

int zc_pool_create(struct zc_topic *t, uint32_t index, uint64_t id, uint32_t slots,
		   uint64_t slot_size, struct zc_pool_map **out)
{
	char name[96];
	struct pool_geometry g = geometry(slots, slot_size, t->bitmap_words);
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, id);
	int fd = zc_shm_create(name, g.size, t->mode, false);
	if (fd == ZCAST_EAGAIN) { /* a leftover of an earlier topic instance with the same id */
		shm_unlink(name);
		fd = zc_shm_create(name, g.size, t->mode, false);
	}
	if (fd < 0)
		return fd == ZCAST_EAGAIN ? zc_err(ZCAST_ESYS, "pool %s exists", name) : fd;
	struct stat st;
	int r = fstat(fd, &st) == 0 ? 0 : zc_errno(ZCAST_ESYS, "fstat pool");
	/* Every segment of a topic carries the topic's group: members of that group read each
	 * other's pools whichever is their own primary group. */
	if (r == 0 && (t->mode & 0060u) && st.st_gid != t->gid &&
	    fchown(fd, (uid_t)-1, t->gid) != 0)
		r = zc_err(ZCAST_EPERM,
			   "cannot give pool %s the topic's group %u: this process is not "
			   "in that group",
			   name, (unsigned)t->gid);
	uint8_t *base = r == 0 ? zc_map(fd, g.size, 0, true, true) : NULL;
	if (r == 0 && !base)
		r = zc_errno(ZCAST_ENOMEM, "mmap pool");
	zc_fd_close(fd);
	if (r < 0) {
		shm_unlink(name);
		return r;
	}
	struct zc_pool_hdr *h = (struct zc_pool_hdr *)base;
	h->layout_version = ZC_LAYOUT_VERSION;
	h->slot_count = slots;
	h->slot_size = g.slot_size;
	h->slot_stride = g.stride;
	h->payload_off = g.payload_off;
	h->segment_size = g.size;
	h->pool_id = id;
	h->bitmap_words = t->bitmap_words;
	/* Slots are (FREE, gen 0) with empty bitmaps: posix_fallocate zero-filled them. */
	atomic_store_explicit(&h->magic, ZC_POOL_MAGIC, memory_order_release);

	struct zc_pool_map *m = new_map(index, id, slots, t->bitmap_words, g, true);
	if (!m) {
		munmap(base, g.size);
		shm_unlink(name);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	m->base = base;
	m->payload = base + g.payload_off;
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	snprintf(m->shm_name, sizeof m->shm_name, "%s", name);
	*out = m;
	return 0;
}

/* Whether a mapped pool header is the one its record describes. */
static bool header_matches(const struct zc_pool_hdr *h, const struct zc_pool_rec *rec_copy,
			   struct pool_geometry g, uint32_t bitmap_words)
{
	return atomic_load_explicit(&h->magic, memory_order_acquire) == ZC_POOL_MAGIC &&
	       h->layout_version == ZC_LAYOUT_VERSION && h->pool_id == rec_copy->id &&
	       h->slot_count == rec_copy->slot_count && h->slot_size == g.slot_size &&
	       h->slot_stride == g.stride && h->payload_off == g.payload_off &&
	       h->bitmap_words == bitmap_words;
}

/* Looks at the header alone, mapped without prefaulting, before the slot headers are prefaulted:
 * a planted record naming a huge sparse file costs one page, not the whole file. */
static int precheck_header(int fd, const struct zc_pool_rec *rec_copy, struct pool_geometry g,
			   uint32_t bitmap_words, const char *name)
{
	struct zc_pool_hdr *h = zc_map(fd, sizeof *h, 0, false, false);
	if (!h)
		return zc_errno(ZCAST_ENOMEM, "mmap pool header");
	bool ok = header_matches(h, rec_copy, g, bitmap_words);
	munmap(h, sizeof *h);
	return ok ? 0 : zc_err(ZCAST_ECORRUPT, "pool %s header does not match its record", name);
}

/* Maps an existing pool's header and slot headers (read-write: holder bits). */
static int map_existing(struct zc_topic *t, uint32_t index, const struct zc_pool_rec *rec_copy,
			struct zc_pool_map **out)
{
	char name[96];
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, rec_copy->id);
	if (rec_copy->slot_count == 0 || rec_copy->slot_count > ZC_MAX_SLOTS_LIMIT ||
	    rec_copy->slot_size == 0 || rec_copy->slot_size > (1ull << 40))
		return zc_err(ZCAST_ECORRUPT, "pool record %u of %s is corrupted", index, t->name);
	struct pool_geometry g =
	    geometry(rec_copy->slot_count, rec_copy->slot_size, t->bitmap_words);
	int fd = zc_fd_open(name, O_RDWR, 0);
	if (fd == ZCAST_ENOENT)
		return zc_err(ZCAST_ECORRUPT, "pool %s of %s is missing", name, t->name);
	if (zc_open_denied(fd))
		return zc_err(ZCAST_EPERM,
			      "cannot open pool %s of %s: permission denied (the topic's "
			      "members need a shared group and topic.mode 0660)",
			      name, t->name);
	if (fd < 0)
		return fd;
	struct stat st;
	int r = zc_shm_check(fd, name, t->mode, &st);
	if (r == 0 && (uint64_t)st.st_size != g.size)
		r = zc_err(ZCAST_ECORRUPT, "pool %s has the wrong size", name);
	if (r == 0 && rec_copy->ino && (uint64_t)st.st_ino != rec_copy->ino)
		r = zc_err(ZCAST_ECORRUPT, "pool %s is not the file its record names", name);
	if (r == 0)
		r = precheck_header(fd, rec_copy, g, t->bitmap_words, name);
	uint8_t *base = r == 0 ? zc_map(fd, g.payload_off, 0, true, true) : NULL;
	if (r == 0 && !base)
		r = zc_errno(ZCAST_ENOMEM, "mmap pool");
	zc_fd_close(fd);
	if (r < 0)
		return r;
	struct zc_pool_hdr *h = (struct zc_pool_hdr *)base;
	if (!header_matches(h, rec_copy, g, t->bitmap_words)) { /* again: it may have changed */
		munmap(base, g.payload_off);
		return zc_err(ZCAST_ECORRUPT, "pool %s header does not match its record", name);
	}
	struct zc_pool_map *m =
	    new_map(index, rec_copy->id, rec_copy->slot_count, t->bitmap_words, g, false);
	if (!m) {
		munmap(base, g.payload_off);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	m->base = base;
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	snprintf(m->shm_name, sizeof m->shm_name, "%s", name);
	*out = m;
	return 0;
}

ZC_HOT int zc_pool_payload(struct zc_pool_map *m, struct zc_topic *t, uint8_t **out)
{
	if ((*out = zc_pool_payload_mapped(m)))
		return 0;
	int fd = zc_fd_open(m->shm_name, O_RDONLY, 0);
	if (fd == ZCAST_ENOENT)
		return zc_err(ZCAST_ECORRUPT, "pool %s of %s is gone", m->shm_name, t->name);
	if (fd < 0)
		return fd;
	struct stat st;
	/* The same file as the headers we mapped, not one put in its place since. */
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != m->dev || (uint64_t)st.st_ino != m->ino ||
	    (uint64_t)st.st_size != m->size) {
		zc_fd_close(fd);
		return zc_err(ZCAST_ECORRUPT, "pool %s of %s was replaced", m->shm_name, t->name);
	}
	uint8_t *p = zc_map(fd, m->size - m->payload_off, (off_t)m->payload_off, false, false);
	zc_fd_close(fd);
	if (!p)
		return zc_errno(ZCAST_ENOMEM, "mmap pool payload");
	uint8_t *none = NULL;
	/* SYNC: payload-map; partner proto/proto_internal.h zc_pool_payload_mapped */
	if (!atomic_compare_exchange_strong(&m->payload_ro, &none, p)) {
		munmap(p, m->size - m->payload_off); /* another taker mapped it first */
		p = none;
	}
	*out = p;
	return 0;
}

/* Whether map m is the pool a record names now. Ids are not enough: a member can rewind next_id, and
 * a new publisher then gets the id (and the file name) of one that left, in a new file. The inode
 * the creator recorded tells the files apart (0: a record written without one). */
static bool same_pool(const struct zc_pool_map *m, uint64_t id, uint64_t ino)
{
	return m->id == id && (ino == 0 || m->ino == ino);
}

int zc_pool_get(struct zc_topic *t, uint32_t index, struct zc_pool_map **out)
{
	if (index >= t->max_pools)
		return zc_err(ZCAST_ECORRUPT, "pool index %u out of range in %s", index, t->name);
	struct zc_pool_rec *rec = &t->pools[index];
	if (atomic_load_explicit(&rec->state, memory_order_acquire) == ZC_POOL_UNUSED)
		return zc_err(ZCAST_ECORRUPT, "descriptor names unused pool %u in %s", index,
			      t->name);
	struct zc_pool_rec copy = {
	    .id = ZC_READ_ONCE(rec->id), .slot_count = ZC_READ_ONCE(rec->slot_count),
	    .slot_size = ZC_READ_ONCE(rec->slot_size), .ino = ZC_READ_ONCE(rec->ino)};
	pthread_mutex_lock(t->maps_mu);
	struct zc_pool_map *m = t->maps[index];
	if (!m || !same_pool(m, copy.id, copy.ino)) {
		struct zc_pool_map *fresh = NULL;
		int r = map_existing(t, index, &copy, &fresh);
		if (r < 0) {
			pthread_mutex_unlock(t->maps_mu);
			return r;
		}
		if (m)
			zc_pool_put(m);
		t->maps[index] = m = fresh;
	}
	atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(t->maps_mu);
	*out = m;
	return 0;
}

static void hint_put(struct zc_pool_map *_Atomic *hint, struct zc_pool_map *m)
{
	zc_pool_put(atomic_exchange_explicit(hint, m, memory_order_acq_rel));
}

ZC_HOT int zc_pool_get_hinted(struct zc_topic *t, struct zc_pool_map *_Atomic *hint, uint32_t index,
			      struct zc_pool_map **out)
{
	struct zc_pool_map *m = atomic_exchange_explicit(hint, NULL, memory_order_acq_rel);
	/* Still that pool: same record in use, same id and file. */
	if (m && m->index == index && index < t->max_pools &&
	    atomic_load_explicit(&t->pools[index].state, memory_order_acquire) != ZC_POOL_UNUSED &&
	    same_pool(m, ZC_READ_ONCE(t->pools[index].id), ZC_READ_ONCE(t->pools[index].ino))) {
		atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
		hint_put(hint, m);
		*out = m;
		return 0;
	}
	zc_pool_put(m);
	int r = zc_pool_get(t, index, out);
	if (r == 0) {
		atomic_fetch_add_explicit(&(*out)->refs, 1, memory_order_relaxed);
		hint_put(hint, *out);
	}
	return r;
}

ZC_HOT void zc_pool_put(struct zc_pool_map *m)
{
	if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (m->writable) {
		munmap(m->base, m->size);
	} else {
		munmap(m->base, m->payload_off);
		uint8_t *p = atomic_load(&m->payload_ro);
		if (p)
			munmap(p, m->size - m->payload_off);
	}
	free(m);
}

void zc_pool_unlink(struct zc_topic *t, uint64_t id)
{
	char name[96];
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, id);
	shm_unlink(name);
}
