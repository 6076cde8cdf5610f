/* A failing multi-process test says what the topic looked like: member records, lock word, intent,
 * and every slot that is not free with its holder bits — read raw from shared memory (the layout
 * contract, src/layout.h), so a hang or a leak can be told apart from another. */
#ifndef ZT_DUMP_H
#define ZT_DUMP_H

#include "zt_seg.h"

static inline const char *zt_alive(int32_t pid)
{
	return pid > 0 && kill(pid, 0) == 0 ? "alive" : "dead";
}

static inline void zt_dump_pool(const struct zc_topic_hdr *h, uint32_t p,
				const struct zc_pool_rec *rec)
{
	char path[400];
	snprintf(path, sizeof path, "/dev/shm/zcast.%s.@%016llx.%016llx", zt_domain(),
		 (unsigned long long)h->topic_hash, (unsigned long long)rec->id);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "    pool record %u (state %u): file %s missing\n", p,
			atomic_load(&rec->state), path);
		if (fd >= 0)
			close(fd);
		return;
	}
	const uint8_t *b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return;
	const struct zc_pool_hdr *ph = (const struct zc_pool_hdr *)b;
	fprintf(stderr, "    pool record %u: state %u owner %u, %u slots\n", p,
		atomic_load(&rec->state), rec->owner, ph->slot_count);
	for (uint32_t i = 0; i < ph->slot_count &&
			     sizeof *ph + (i + 1ull) * ph->slot_stride <= (uint64_t)st.st_size;
	     i++) {
		const struct zc_slot_hdr *s =
		    (const struct zc_slot_hdr *)(b + sizeof *ph + i * ph->slot_stride);
		uint64_t w = atomic_load((_Atomic uint64_t *)&s->state);
		if (ZC_STATE_ST(w) == ZC_SLOT_FREE)
			continue;
		fprintf(stderr, "      slot %u: %s gen %llu seq %llu, holders:", i,
			ZC_STATE_ST(w) == ZC_SLOT_LOANED ? "LOANED" : "PUBLISHED",
			(unsigned long long)ZC_STATE_GEN(w), (unsigned long long)s->seq);
		for (uint32_t k = 0; k < ph->bitmap_words; k++) {
			uint64_t bits = atomic_load((_Atomic uint64_t *)&s->bits[k]);
			for (uint32_t bit = 0; bit < 64; bit++)
				if (bits & (1ull << bit)) {
					uint32_t n = k * 64 + bit;
					if (n == ZC_HIST_BIT)
						fprintf(stderr, " history");
					else
						fprintf(stderr, " sub%u", n - 1);
				}
		}
		fprintf(stderr, "\n");
	}
	munmap((void *)b, (size_t)st.st_size);
}

/* The doorbell a subscriber record names: does its file exist, what do its words say, is the
 * record's bit set. Tells a ring that never came from a wake that was not delivered. */
static inline void zt_dump_bell(uint64_t ref)
{
	char path[128];
	zt_bell_path(path, sizeof path, ref);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "      doorbell %s (bit %u): missing\n", path, ZC_BELL_REF_BIT(ref));
		return;
	}
	struct zc_bell_hdr *bh = mmap(NULL, ZC_BELL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	int locked = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
	if (bh == MAP_FAILED)
		return;
	uint32_t bit = ZC_BELL_REF_BIT(ref);
	uint64_t w = bit < ZC_BELL_BITS ? atomic_load(&bh->bits[bit / 64]) : 0;
	fprintf(stderr,
		"      doorbell %s: owner lock %s, closed %u, word %u, sleeping %u, woken %u, "
		"bit %u %s\n",
		path, locked ? "held" : "FREE", atomic_load(&bh->closed), atomic_load(&bh->word),
		atomic_load(&bh->sleeping), atomic_load(&bh->woken), bit,
		(w >> (bit % 64)) & 1 ? "set" : "clear");
	munmap(bh, ZC_BELL_SIZE);
}

/* Prints what the control segment of `topic` and its pools hold. */
static inline void zt_dump_topic(const char *topic)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "  %s: no control segment\n", topic);
		return;
	}
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(topic, &size);
	uint8_t *b = (uint8_t *)h;
	uint32_t lock = atomic_load(&h->lock.word), owner = (lock & ~ZC_LOCK_WAITERS) - 1;
	fprintf(stderr, "  %s: lock word 0x%x", topic, lock);
	if (lock && owner < h->max_pubs)
		fprintf(stderr, " (pub record %u)", owner);
	else if (lock && owner < h->max_pubs + h->max_subs)
		fprintf(stderr, " (sub record %u)", owner - h->max_pubs);
	else if (lock)
		fprintf(stderr, " (tool record %u)", owner - h->max_pubs - h->max_subs);
	fprintf(stderr,
		", intent op %u, space waiters %u, notify %u, wake owed %llu, history [%llu, %llu)\n",
		h->intent.op, atomic_load(&h->space_waiters), atomic_load(&h->notify),
		(unsigned long long)atomic_load(&h->wake_owed), (unsigned long long)atomic_load(&h->hist_start),
		(unsigned long long)atomic_load(&h->hist_end));
	const struct zc_pub_rec *pubs = (const struct zc_pub_rec *)(b + h->off_pubs);
	for (uint32_t k = 0; k < h->max_pubs; k++)
		if (atomic_load(&pubs[k].state) != ZC_REC_FREE)
			fprintf(stderr, "    pub record %u: state %u pool %u pid %d (%s)\n", k,
				atomic_load(&pubs[k].state), pubs[k].pool, pubs[k].pid,
				zt_alive(pubs[k].pid));
	const struct zc_sub_rec *subs = (const struct zc_sub_rec *)(b + h->off_subs);
	for (uint32_t k = 0; k < h->max_subs; k++) {
		const struct zc_sub_rec *r = &subs[k];
		if (atomic_load(&r->state) == ZC_REC_FREE)
			continue;
		uint64_t head = ZC_HEAD_POS(atomic_load(&r->head)), tail = atomic_load(&r->tail);
		fprintf(stderr,
			"    sub record %u: state %u policy %u depth %u queued %llu held %u pid %d "
			"(%s), sleepers %llu epoch %llu woken %llu\n",
			k, atomic_load(&r->state), r->policy, r->depth,
			(unsigned long long)(tail - head), atomic_load(&r->held), r->pid,
			zt_alive(r->pid), (unsigned long long)ZC_SLEEPERS(atomic_load(&r->sleepers)),
			(unsigned long long)ZC_SLEEP_EPOCH(atomic_load(&r->sleepers)),
			(unsigned long long)atomic_load(&r->woken));
		uint64_t bell = atomic_load(&r->bell);
		if (bell)
			zt_dump_bell(bell);
	}
	const struct zc_pool_rec *pools = (const struct zc_pool_rec *)(b + h->off_pools);
	for (uint32_t p = 0; p < h->max_pools; p++)
		if (atomic_load(&pools[p].state) != ZC_POOL_UNUSED)
			zt_dump_pool(h, p, &pools[p]);
	munmap(h, size);
}

#endif
