/* Pool segments: one per publisher, slot headers then page-aligned payload.
 * Any process of the topic maps a pool on demand; subscribers map the payload read-only. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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
	char name[300];
	struct pool_geometry g = geometry(slots, slot_size, t->bitmap_words);
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, id);
	int fd = zc_shm_create(name, g.size, t->hdr->mode & 0777);
	if (fd == ZCAST_EAGAIN) { /* a leftover of an earlier topic instance with the same id */
		shm_unlink(name);
		fd = zc_shm_create(name, g.size, t->hdr->mode & 0777);
	}
	if (fd < 0)
		return fd == ZCAST_EAGAIN ? zc_err(ZCAST_ESYS, "pool %s exists", name) : fd;
	uint8_t *base = zc_map(fd, g.size, 0, true, true);
	struct stat st;
	if (!base || fstat(fd, &st) != 0) {
		int r = zc_errno(ZCAST_ENOMEM, "mmap pool");
		if (base)
			munmap(base, g.size);
		close(fd);
		shm_unlink(name);
		return r;
	}
	close(fd);
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
	*out = m;
	return 0;
}

/* Maps an existing pool: headers read-write (holder bits), payload read-only. */
static int map_existing(struct zc_topic *t, uint32_t index, const struct zc_pool_rec *rec_copy,
			struct zc_pool_map **out)
{
	char name[300];
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, rec_copy->id);
	if (rec_copy->slot_count == 0 || rec_copy->slot_count > ZC_MAX_SLOTS_LIMIT ||
	    rec_copy->slot_size == 0 || rec_copy->slot_size > (1ull << 40))
		return zc_err(ZCAST_ECORRUPT, "pool record %u of %s is corrupted", index, t->name);
	struct pool_geometry g = geometry(rec_copy->slot_count, rec_copy->slot_size, t->bitmap_words);
	int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == EACCES ? zc_err(ZCAST_EPERM, "cannot open pool %s: permission denied", name)
				       : zc_err(ZCAST_ECORRUPT, "pool %s of %s is missing", name, t->name);
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != g.size) {
		close(fd);
		return zc_err(ZCAST_ECORRUPT, "pool %s has the wrong size", name);
	}
	uint8_t *base = zc_map(fd, g.payload_off, 0, true, true);
	uint8_t *payload = base ? zc_map(fd, g.size - g.payload_off, (off_t)g.payload_off, false, true)
				: NULL;
	close(fd);
	if (!base || !payload) {
		if (base)
			munmap(base, g.payload_off);
		return zc_errno(ZCAST_ENOMEM, "mmap pool");
	}
	struct zc_pool_hdr *h = (struct zc_pool_hdr *)base;
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != ZC_POOL_MAGIC ||
	    h->layout_version != ZC_LAYOUT_VERSION || h->pool_id != rec_copy->id ||
	    h->slot_count != rec_copy->slot_count || h->slot_size != g.slot_size ||
	    h->slot_stride != g.stride || h->payload_off != g.payload_off ||
	    h->bitmap_words != t->bitmap_words) {
		munmap(base, g.payload_off);
		munmap(payload, g.size - g.payload_off);
		return zc_err(ZCAST_ECORRUPT, "pool %s header does not match its record", name);
	}
	struct zc_pool_map *m = new_map(index, rec_copy->id, rec_copy->slot_count, t->bitmap_words, g,
					false);
	if (!m) {
		munmap(base, g.payload_off);
		munmap(payload, g.size - g.payload_off);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	m->base = base;
	m->payload = payload;
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	*out = m;
	return 0;
}

int zc_pool_get(struct zc_topic *t, uint32_t index, struct zc_pool_map **out)
{
	if (index >= t->max_pools)
		return zc_err(ZCAST_ECORRUPT, "pool index %u out of range in %s", index, t->name);
	struct zc_pool_rec *rec = &t->pools[index];
	if (atomic_load_explicit(&rec->state, memory_order_acquire) == ZC_POOL_UNUSED)
		return zc_err(ZCAST_ECORRUPT, "descriptor names unused pool %u in %s", index, t->name);
	struct zc_pool_rec copy = {.id = rec->id, .slot_count = rec->slot_count,
				   .slot_size = rec->slot_size};
	pthread_mutex_lock(&t->maps_mu);
	struct zc_pool_map *m = t->maps[index];
	if (!m || m->id != copy.id) {
		struct zc_pool_map *fresh = NULL;
		int r = map_existing(t, index, &copy, &fresh);
		if (r < 0) {
			pthread_mutex_unlock(&t->maps_mu);
			return r;
		}
		if (m)
			zc_pool_put(m);
		t->maps[index] = m = fresh;
	}
	atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&t->maps_mu);
	*out = m;
	return 0;
}

static void hint_put(struct zc_pool_map *_Atomic *hint, struct zc_pool_map *m)
{
	zc_pool_put(atomic_exchange_explicit(hint, m, memory_order_acq_rel));
}

int zc_pool_get_hinted(struct zc_topic *t, struct zc_pool_map *_Atomic *hint, uint32_t index,
		       struct zc_pool_map **out)
{
	struct zc_pool_map *m = atomic_exchange_explicit(hint, NULL, memory_order_acq_rel);
	/* Still that pool: same record in use, same id (ids are never reused within a topic). */
	if (m && m->index == index && index < t->max_pools &&
	    atomic_load_explicit(&t->pools[index].state, memory_order_acquire) != ZC_POOL_UNUSED &&
	    t->pools[index].id == m->id) {
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

void zc_pool_put(struct zc_pool_map *m)
{
	if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (m->writable) {
		munmap(m->base, m->size);
	} else {
		munmap(m->base, m->payload_off);
		munmap(m->payload, m->size - m->payload_off);
	}
	free(m);
}

void zc_pool_unlink(struct zc_topic *t, uint64_t id)
{
	char name[300];
	zc_pool_shm_name(name, sizeof name, t->domain, t->topic_hash, id);
	shm_unlink(name);
}
