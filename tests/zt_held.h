/* Checks a message the test holds against the shared memory of its slot, read raw (not through
 * the library): the process-local handle can only repeat what it was told at take, the slot's state
 * word, holder bitmap and header say whether the slot is really still ours. */
#ifndef ZT_HELD_H
#define ZT_HELD_H

#include <sys/stat.h>

#include "zt_seg.h"

/* The pool segment of this test's domain with inode `ino`, mapped read-only (cached per process:
 * a held message keeps its pool file alive, so a mapping found once stays the right one). */
static inline const uint8_t *zt_pool_by_ino(uint64_t ino, size_t *size)
{
	static struct {
		uint64_t ino;
		const uint8_t *p;
		size_t size;
	} cache[16];
	static unsigned next;
	for (unsigned i = 0; i < 16; i++)
		if (cache[i].p && cache[i].ino == ino) {
			*size = cache[i].size;
			return cache[i].p;
		}
	char prefix[64], path[400];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.@", zt_domain());
	const uint8_t *p = NULL;
	size_t len = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && !p && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)n) != 0 || e->d_ino != ino)
			continue;
		snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_ino == ino &&
		    (size_t)st.st_size >= sizeof(struct zc_pool_hdr)) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
			if (m != MAP_FAILED) {
				p = m;
				len = (size_t)st.st_size;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	if (!p)
		return NULL;
	unsigned k = next++ % 16;
	if (cache[k].p)
		munmap((void *)cache[k].p, cache[k].size);
	cache[k].ino = ino;
	cache[k].p = p;
	cache[k].size = len;
	*size = len;
	return p;
}

/* The member record index of the subscriber with member id `id` on `topic` (-1 if none). */
static inline int zt_sub_index(const char *topic, uint64_t id)
{
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(topic, &size);
	int found = -1;
	uint32_t n = h->max_subs;
	uint64_t off = h->off_subs;
	if (off + (uint64_t)n * sizeof(struct zc_sub_rec) <= size) {
		struct zc_sub_rec *subs = (struct zc_sub_rec *)((uint8_t *)h + off);
		for (uint32_t i = 0; i < n && found < 0; i++)
			if (subs[i].id == id && atomic_load(&subs[i].state) != ZC_REC_FREE)
				found = (int)i;
	}
	munmap(h, size);
	return found;
}

/* What a holder expects of its message: taken by subscriber record `sub`, topic sequence `seq`,
 * payload sequence `pseq` (zt_fill). */
struct zt_expect {
	uint32_t sub;
	uint64_t seq, pseq;
};

/* 1 if `m` is intact and its slot is still ours: state PUBLISHED with the handle's generation, our
 * holder bit set, header size and sequence unchanged, payload checksum and sequence intact. Else 0
 * with the reason in why. */
static inline int zt_held_ok(zcast_msg *m, const struct zt_expect *x, char *why, size_t n)
{
	zcast_msg_info info;
	if (zcast_msg_info_get(m, &info) != 0) {
		snprintf(why, n, "zcast_msg_info_get failed: %s", zcast_last_error());
		return 0;
	}
	size_t size;
	const uint8_t *pool = zt_pool_by_ino(info.pool_ino, &size);
	if (!pool) {
		snprintf(why, n, "pool (inode %llu) of a held message is gone",
			 (unsigned long long)info.pool_ino);
		return 0;
	}
	const struct zc_pool_hdr *ph = (const struct zc_pool_hdr *)pool;
	uint64_t off = sizeof *ph + (uint64_t)info.slot * ph->slot_stride;
	if (info.slot >= ph->slot_count || off + ph->slot_stride > size) {
		snprintf(why, n, "slot %u outside its pool of %u slots", info.slot, ph->slot_count);
		return 0;
	}
	const struct zc_slot_hdr *s = (const struct zc_slot_hdr *)(pool + off);
	uint64_t w = atomic_load((_Atomic uint64_t *)&s->state);
	uint32_t bit = ZC_SUB_BIT(x->sub);
	uint64_t bits = atomic_load((_Atomic uint64_t *)&s->bits[bit / 64]);
	uint64_t pseq = 0;
	if (ZC_STATE_ST(w) != ZC_SLOT_PUBLISHED || (uint32_t)ZC_STATE_GEN(w) != info.generation)
		snprintf(why, n,
			 "slot %u state word 0x%llx: want PUBLISHED, generation %u (sequence %llu)",
			 info.slot, (unsigned long long)w, info.generation,
			 (unsigned long long)x->seq);
	else if (!(bits & (1ull << (bit % 64))))
		snprintf(why, n, "slot %u (sequence %llu): holder bit %u of subscriber %u is clear",
			 info.slot, (unsigned long long)x->seq, bit, x->sub);
	else if (s->seq != x->seq || s->size != zcast_msg_size(m))
		snprintf(why, n, "slot %u header changed: sequence %llu -> %llu, size %zu -> %llu",
			 info.slot, (unsigned long long)x->seq, (unsigned long long)s->seq,
			 zcast_msg_size(m), (unsigned long long)s->size);
	else if (!zt_verify(zcast_msg_data(m), zcast_msg_size(m), &pseq, NULL) || pseq != x->pseq)
		snprintf(why, n, "payload of slot %u (sequence %llu) changed while held", info.slot,
			 (unsigned long long)x->seq);
	else
		return 1;
	return 0;
}

#endif
