/* The control segment of a topic: attach (create / join / take over), member records, the topic
 * lock with repair, dead-member cleanup and leave (DESIGN 2.1, 2.2, 2.6).
 *
 * Membership is an OFD read lock on byte 0, held for as long as a handle is attached. Create, take
 * over and unlink hold it exclusively: a failed exclusive try means someone is still there. Each
 * member record k is owned through an exclusive OFD lock on byte 1 + k: the kernel drops it when the
 * owner dies, which is how liveness is told without PIDs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define ATTACH_TIMEOUT_NS 5000000000ll
#define LOCK_TIMEOUT_NS 2000000000ll

struct limits {
	uint32_t max_pubs, max_subs, max_depth, history_cap, max_pools, max_groups;
};

struct geometry {
	uint64_t off_pubs, off_subs, off_tools, off_pools, off_groups, off_rings, off_history, size;
};

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static struct geometry layout_of(const struct limits *l)
{
	struct geometry g;
	uint64_t off = round_up(sizeof(struct zc_topic_hdr), ZC_CACHELINE);
	g.off_pubs = off;
	off += (uint64_t)l->max_pubs * sizeof(struct zc_pub_rec);
	g.off_subs = off;
	off += (uint64_t)l->max_subs * sizeof(struct zc_sub_rec);
	g.off_tools = off;
	off += ZC_TOOL_RECORDS * sizeof(struct zc_tool_rec);
	g.off_pools = off;
	off += (uint64_t)l->max_pools * sizeof(struct zc_pool_rec);
	g.off_groups = off;
	off += (uint64_t)l->max_groups * sizeof(struct zc_group_rec);
	g.off_rings = off;
	off += round_up((uint64_t)l->max_subs * l->max_depth * 8, ZC_CACHELINE);
	g.off_history = off;
	off += round_up((uint64_t)l->history_cap * 8, ZC_CACHELINE);
	g.size = round_up(off, (uint64_t)sysconf(_SC_PAGESIZE));
	return g;
}

static bool limits_valid(const struct limits *l)
{
	return l->max_pubs >= 1 && l->max_pubs <= ZC_MAX_PUBS_LIMIT && l->max_subs >= 1 &&
	       l->max_subs <= ZC_MAX_SUBS_LIMIT && l->max_depth >= 1 &&
	       l->max_depth <= ZC_MAX_DEPTH_LIMIT && l->history_cap <= ZC_MAX_HISTORY_LIMIT &&
	       l->max_pools >= l->max_pubs && l->max_pools <= ZC_MAX_POOLS_LIMIT &&
	       l->max_groups == l->max_subs;
}

static struct limits limits_from_opts(const zcast_topic_opts *o)
{
	struct limits l;
	l.max_pubs = o->max_publishers ? o->max_publishers : 16;
	l.max_subs = o->max_subscribers ? o->max_subscribers : 64;
	l.max_depth = o->max_queue_depth ? o->max_queue_depth : 256;
	l.history_cap = o->history_capacity ? o->history_capacity : 64;
	l.max_pools = l.max_pubs * 2 > ZC_MAX_POOLS_LIMIT ? ZC_MAX_POOLS_LIMIT : l.max_pubs * 2;
	l.max_groups = l.max_subs;
	return l;
}

uint32_t zc_member_of_pub(const struct zc_topic *t, uint32_t i)
{
	(void)t;
	return i;
}
uint32_t zc_member_of_sub(const struct zc_topic *t, uint32_t i)
{
	return t->max_pubs + i;
}

static _Atomic uint32_t *member_state(struct zc_topic *t, uint32_t member)
{
	if (member < t->max_pubs)
		return &t->pubs[member].state;
	member -= t->max_pubs;
	if (member < t->max_subs)
		return &t->subs[member].state;
	return &t->tools[member - t->max_subs].state;
}

bool zc_member_alive(struct zc_topic *t, uint32_t member)
{
	if (t->is_member && member == t->member)
		return true; /* a probe through our own descriptor would read "free" */
	return zc_ofd_held(t->fd, 1 + (off_t)member);
}

/* Fills t's pointers and limits from a mapped header, checking every value against the file. */
static int adopt(struct zc_topic *t, struct zc_topic_hdr *h, uint64_t file_size)
{
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != ZC_TOPIC_MAGIC)
		return zc_err(ZCAST_ECORRUPT, "topic %s: segment is not initialised", t->name);
	if (h->layout_version != ZC_LAYOUT_VERSION)
		return zc_err(ZCAST_ELAYOUT, "topic %s: layout version %u, this library speaks %u", t->name,
			      h->layout_version, ZC_LAYOUT_VERSION);
	struct limits l = {h->max_pubs, h->max_subs, h->max_depth, h->history_cap, h->max_pools,
			   h->max_groups};
	if (!limits_valid(&l))
		return zc_err(ZCAST_ECORRUPT, "topic %s: limits in the header are out of range", t->name);
	struct geometry g = layout_of(&l);
	if (h->header_size != sizeof(struct zc_topic_hdr) || h->segment_size != g.size ||
	    file_size != g.size || h->off_pubs != g.off_pubs || h->off_subs != g.off_subs ||
	    h->off_tools != g.off_tools || h->off_pools != g.off_pools ||
	    h->off_groups != g.off_groups || h->off_rings != g.off_rings ||
	    h->off_history != g.off_history || h->bitmap_words != ZC_BITMAP_WORDS(l.max_subs) ||
	    h->n_members != l.max_pubs + l.max_subs + ZC_TOOL_RECORDS)
		return zc_err(ZCAST_ECORRUPT, "topic %s: header geometry is inconsistent", t->name);
	uint8_t *base = (uint8_t *)h;
	t->hdr = h;
	t->max_pubs = l.max_pubs;
	t->max_subs = l.max_subs;
	t->max_depth = l.max_depth;
	t->history_cap = l.history_cap;
	t->max_pools = l.max_pools;
	t->max_groups = l.max_groups;
	t->n_members = h->n_members;
	t->bitmap_words = h->bitmap_words;
	t->topic_hash = zc_hash(t->name);
	t->pubs = (struct zc_pub_rec *)(base + g.off_pubs);
	t->subs = (struct zc_sub_rec *)(base + g.off_subs);
	t->tools = (struct zc_tool_rec *)(base + g.off_tools);
	t->pools = (struct zc_pool_rec *)(base + g.off_pools);
	t->groups = (struct zc_group_rec *)(base + g.off_groups);
	t->rings = (_Atomic uint64_t *)(base + g.off_rings);
	t->history = (_Atomic uint64_t *)(base + g.off_history);
	free(t->maps);
	t->maps = calloc(t->max_pools, sizeof *t->maps);
	return t->maps ? 0 : zc_err(ZCAST_ENOMEM, "out of memory");
}

static int map_and_adopt(struct zc_topic *t, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return zc_errno(ZCAST_ESYS, "fstat");
	if ((uint64_t)st.st_size < sizeof(struct zc_topic_hdr))
		return zc_err(ZCAST_ECORRUPT, "topic %s: segment is too small", t->name);
	void *p = zc_map(fd, (size_t)st.st_size, 0, true, true);
	if (!p)
		return zc_errno(ZCAST_ENOMEM, "mmap topic");
	t->map_size = (size_t)st.st_size;
	int r = adopt(t, p, (uint64_t)st.st_size);
	if (r < 0) {
		munmap(p, t->map_size);
		t->hdr = NULL;
		free(t->maps);
		t->maps = NULL;
	}
	return r;
}

static bool still_linked(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_nlink > 0;
}

/* Removes pool segments of an earlier instance of this topic (their ids may come back). */
static void sweep_stale_pools(const char *domain, uint64_t topic_hash)
{
	char prefix[128];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.@%016llx.", domain,
			 (unsigned long long)topic_hash);
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)n) == 0) {
			char name[300];
			snprintf(name, sizeof name, "/%s", e->d_name);
			shm_unlink(name);
		}
	}
	closedir(d);
}

static int create_segment(struct zc_topic *t, const struct limits *l, const zcast_topic_opts *o)
{
	unsigned mode = o->mode ? o->mode : 0600;
	int fd = shm_open(t->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return ZCAST_EAGAIN;
		if (errno == EACCES)
			return zc_err(ZCAST_EPERM, "cannot create topic %s: permission denied", t->name);
		return zc_errno(ZCAST_ESYS, "shm_open");
	}
	(void)fchmod(fd, mode);
	/* Another opener may have found our empty file first; it then owns the rebuild. */
	if (zc_ofd_lock(fd, 0, true) != 0 || !still_linked(fd)) {
		close(fd);
		return ZCAST_EAGAIN;
	}
	struct geometry g = layout_of(l);
	int r = posix_fallocate(fd, 0, (off_t)g.size);
	if (r != 0) {
		shm_unlink(t->shm_name);
		close(fd);
		return zc_err(ZCAST_ENOMEM, "cannot allocate %llu bytes for topic %s: /dev/shm is full",
			      (unsigned long long)g.size, t->name);
	}
	struct zc_topic_hdr *h = zc_map(fd, g.size, 0, true, true);
	if (!h) {
		shm_unlink(t->shm_name);
		close(fd);
		return zc_errno(ZCAST_ENOMEM, "mmap topic");
	}
	h->layout_version = ZC_LAYOUT_VERSION;
	h->header_size = sizeof *h;
	h->segment_size = g.size;
	h->max_pubs = l->max_pubs;
	h->max_subs = l->max_subs;
	h->max_depth = l->max_depth;
	h->history_cap = l->history_cap;
	h->max_pools = l->max_pools;
	h->max_groups = l->max_groups;
	h->n_members = l->max_pubs + l->max_subs + ZC_TOOL_RECORDS;
	h->bitmap_words = ZC_BITMAP_WORDS(l->max_subs);
	h->mode = mode;
	atomic_store(&h->retain, o->retain ? 1u : 0u);
	h->off_pubs = g.off_pubs;
	h->off_subs = g.off_subs;
	h->off_tools = g.off_tools;
	h->off_pools = g.off_pools;
	h->off_groups = g.off_groups;
	h->off_rings = g.off_rings;
	h->off_history = g.off_history;
	h->topic_hash = zc_hash(t->name);
	snprintf(h->name, sizeof h->name, "%s", t->name);
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
		seed = (uint64_t)zc_now_ns();
	/* Ids start at a random point so pool names never meet leftovers of an earlier instance. */
	atomic_store(&h->next_id, (seed >> 16) | 1);
	sweep_stale_pools(t->domain, h->topic_hash);
	ZC_CRASH("create:before-magic");
	atomic_store_explicit(&h->magic, ZC_TOPIC_MAGIC, memory_order_release);
	t->map_size = g.size;
	r = adopt(t, h, g.size);
	if (r < 0) {
		munmap(h, g.size);
		close(fd);
		return r;
	}
	t->fd = fd;
	zc_ofd_lock(fd, 0, false); /* downgrade: atomic for OFD locks */
	return 0;
}

/* We hold byte 0 exclusively on a valid segment: every recorded member is dead. Repair and keep
 * the topic (and its history), DESIGN 2.1. */
static void repair_alone(struct zc_topic *t);

static int join_existing(struct zc_topic *t, int fd, int64_t deadline)
{
	if (zc_ofd_lock(fd, 0, true) == 0) {
		if (!still_linked(fd))
			return ZCAST_EAGAIN;
		int r = map_and_adopt(t, fd);
		if (r == 0) {
			t->fd = fd;
			repair_alone(t);
			zc_ofd_lock(fd, 0, false);
			return 0;
		}
		/* Nobody alive uses it and it is not ours to read: rebuild. */
		shm_unlink(t->shm_name);
		return ZCAST_EAGAIN;
	}
	while (zc_ofd_lock(fd, 0, false) != 0) {
		if (zc_now_ns() > deadline)
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: creator did not finish", t->name);
		usleep(500);
	}
	if (!still_linked(fd))
		return ZCAST_EAGAIN;
	int r = map_and_adopt(t, fd);
	if (r == 0) {
		t->fd = fd;
		return 0;
	}
	uint64_t magic = 1;
	if (r == ZCAST_ECORRUPT && zc_now_ns() < deadline &&
	    pread(fd, &magic, sizeof magic, 0) == (ssize_t)sizeof magic && magic == 0) {
		/* No magic yet: a creator died before finishing; retry, the exclusive path rebuilds
		 * it. Anything else that fails its checks under live members is refused at once. */
		zc_ofd_unlock(fd, 0);
		usleep(1000);
		return ZCAST_EAGAIN;
	}
	return r;
}

int zc_topic_attach(struct zc_topic *t, const char *domain, const char *topic,
		    const zcast_topic_opts *o, bool create)
{
	t->fd = -1;
	snprintf(t->domain, sizeof t->domain, "%s", domain);
	snprintf(t->name, sizeof t->name, "%s", topic);
	zc_topic_shm_name(t->shm_name, sizeof t->shm_name, domain, topic);
	pthread_mutex_init(&t->maps_mu, NULL);
	t->member = UINT32_MAX;

	struct limits want = limits_from_opts(o);
	if (!limits_valid(&want))
		return zc_err(ZCAST_EINVAL, "topic %s: limits out of range (subscribers 1..%u, "
					    "publishers 1..%u, queue depth 1..%u, history 0..%u)",
			      topic, ZC_MAX_SUBS_LIMIT, ZC_MAX_PUBS_LIMIT, ZC_MAX_DEPTH_LIMIT,
			      ZC_MAX_HISTORY_LIMIT);
	int64_t deadline = zc_now_ns() + ATTACH_TIMEOUT_NS;
	int r;
	for (;;) {
		int fd = shm_open(t->shm_name, O_RDWR | O_CLOEXEC, 0);
		if (fd < 0) {
			if (errno == EACCES)
				return zc_err(ZCAST_EPERM, "cannot open topic %s: permission denied", topic);
			if (errno != ENOENT)
				return zc_errno(ZCAST_ESYS, "shm_open");
			if (!create)
				return zc_err(ZCAST_ENOENT, "no topic %s in domain %s", topic, domain);
			r = create_segment(t, &want, o);
		} else {
			r = join_existing(t, fd, deadline);
			if (r != 0)
				close(fd);
		}
		if (r != ZCAST_EAGAIN)
			break;
		if (zc_now_ns() > deadline)
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: could not attach", topic);
	}
	if (r < 0)
		return r;
	zc_fd_register(t->fd);
	/* Limits the opener set explicitly must fit the existing topic. */
	struct {
		uint32_t asked, have;
		const char *what;
	} checks[] = {
		{o->max_publishers, t->max_pubs, "max_publishers"},
		{o->max_subscribers, t->max_subs, "max_subscribers"},
		{o->max_queue_depth, t->max_depth, "max_queue_depth"},
		{o->history_capacity, t->history_cap, "history_capacity"},
	};
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		if (checks[i].asked > checks[i].have) {
			r = zc_err(ZCAST_ELIMIT, "topic %s exists with %s %u, you asked for %u", topic,
				   checks[i].what, checks[i].have, checks[i].asked);
			zc_topic_detach(t);
			return r;
		}
	}
	return 0;
}

int zc_topic_peek(struct zc_topic *t, const char *domain, const char *topic)
{
	t->fd = -1;
	t->peek = true;
	snprintf(t->domain, sizeof t->domain, "%s", domain);
	snprintf(t->name, sizeof t->name, "%s", topic);
	zc_topic_shm_name(t->shm_name, sizeof t->shm_name, domain, topic);
	pthread_mutex_init(&t->maps_mu, NULL);
	t->member = UINT32_MAX;
	int fd = shm_open(t->shm_name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? zc_err(ZCAST_ENOENT, "no topic %s in domain %s", topic, domain)
		       : errno == EACCES ? zc_err(ZCAST_EPERM, "cannot open topic %s: permission denied", topic)
					 : zc_errno(ZCAST_ESYS, "shm_open");
	int r = map_and_adopt(t, fd);
	close(fd);
	return r;
}

static int claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index);

int zc_topic_gc_once(struct zc_topic *t)
{
	bool temp = !t->is_member;
	uint32_t idx;
	int r;
	if (temp && (r = claim(t, ZC_KIND_TOOL, &idx)) < 0)
		return r;
	if (temp)
		t->tools[idx].pid = getpid();
	r = zc_topic_lock(t);
	if (r == 0) {
		r = zc_topic_cleanup(t);
		zc_topic_unlock(t);
	}
	if (temp) {
		atomic_store(&t->tools[idx].state, ZC_REC_FREE);
		zc_ofd_unlock(t->fd, 1 + (off_t)t->member);
		t->member = UINT32_MAX;
		t->is_member = false;
	}
	return r;
}

int zc_topic_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index)
{
	int r = claim(t, kind, index);
	if (r == ZCAST_ELIMIT && kind != ZC_KIND_TOOL && zc_topic_gc_once(t) > 0)
		r = claim(t, kind, index); /* dead members held the records */
	return r;
}

static int claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index)
{
	uint32_t base = 0, count = t->max_pubs;
	if (kind == ZC_KIND_SUB) {
		base = t->max_pubs;
		count = t->max_subs;
	} else if (kind == ZC_KIND_TOOL) {
		base = t->max_pubs + t->max_subs;
		count = ZC_TOOL_RECORDS;
	}
	for (uint32_t k = 0; k < count; k++) {
		_Atomic uint32_t *st = member_state(t, base + k);
		if (atomic_load_explicit(st, memory_order_acquire) != ZC_REC_FREE)
			continue;
		/* Byte lock first: then a probe never sees a claimed record without a live owner. */
		if (zc_ofd_lock(t->fd, 1 + (off_t)(base + k), true) != 0)
			continue;
		uint32_t expect = ZC_REC_FREE;
		if (atomic_compare_exchange_strong(st, &expect, ZC_REC_CLAIMED)) {
			t->member = base + k;
			t->is_member = true;
			*index = k;
			return 0;
		}
		zc_ofd_unlock(t->fd, 1 + (off_t)(base + k));
	}
	return zc_err(ZCAST_ELIMIT, "topic %s has no free %s record (limit %u)", t->name,
		      kind == ZC_KIND_PUB ? "publisher" : kind == ZC_KIND_SUB ? "subscriber" : "tool",
		      count);
}

int zc_topic_check_type(struct zc_topic *t, const char *type_name, const uint8_t *type_hash)
{
	static const uint8_t zero[ZCAST_TYPE_HASH_SIZE];
	struct zc_topic_hdr *h = t->hdr;
	bool untyped = (!type_name || !*type_name) && memcmp(type_hash, zero, sizeof zero) == 0;
	if (untyped)
		return 0;
	if (!type_name)
		type_name = "";
	if (strlen(type_name) >= ZC_TYPE_NAME_MAX)
		return zc_err(ZCAST_EINVAL, "type name is longer than %d bytes", ZC_TYPE_NAME_MAX - 1);
	if (!atomic_load(&h->typed)) {
		snprintf(h->type_name, sizeof h->type_name, "%s", type_name);
		memcpy(h->type_hash, type_hash, sizeof h->type_hash);
		atomic_store(&h->typed, 1);
		return 0;
	}
	char have[ZC_TYPE_NAME_MAX];
	uint8_t have_hash[ZCAST_TYPE_HASH_SIZE];
	memcpy(have, h->type_name, sizeof have);
	memcpy(have_hash, h->type_hash, sizeof have_hash);
	have[sizeof have - 1] = 0;
	if (strcmp(have, type_name) != 0 || memcmp(have_hash, type_hash, sizeof have_hash) != 0) {
		char hs[ZCAST_TYPE_HASH_STR_SIZE], ws[ZCAST_TYPE_HASH_STR_SIZE];
		zcast_type_hash_str(have_hash, hs);
		zcast_type_hash_str(type_hash, ws);
		return zc_err(ZCAST_ETYPE, "topic %s exists with type %s (%s), you asked for %s (%s)",
			      t->name, have, hs, type_name, ws);
	}
	return 0;
}

/* ---- repair ---- */

static bool history_contains(struct zc_topic *t, uint64_t desc)
{
	uint64_t start = atomic_load(&t->hdr->hist_start), end = atomic_load(&t->hdr->hist_end);
	if (end < start || end - start > t->history_cap)
		return false;
	for (uint64_t p = start; p < end; p++)
		if (atomic_load(&t->history[p % t->history_cap]) == desc)
			return true;
	return false;
}

/* Clears `bit` on the slot a descriptor names, if the slot still carries that generation. */
static void release_desc_bit(struct zc_topic *t, uint64_t desc, uint32_t bit)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, ZC_DESC_POOL(desc), &m) != 0)
		return;
	uint32_t i = ZC_DESC_SLOT(desc);
	if (i < m->slot_count) {
		uint64_t w = atomic_load(&zc_slot(m, i)->state);
		if ((uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(desc) && ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED)
			zc_slot_release_bit(m, i, bit, ZC_STATE_GEN(w));
	}
	zc_pool_put(m);
}

/* Finishes or rolls back what a dead lock holder was doing (its intent record). */
static void recover_intent(struct zc_topic *t)
{
	struct zc_intent *in = &t->hdr->intent;
	if (in->drop_sub < t->max_subs) {
		/* Only the lock holder bumps a ring's drop count: if it moved, the drop happened. */
		uint64_t h = atomic_load(&t->subs[in->drop_sub].head);
		if (ZC_HEAD_DROPS(h) == ((ZC_HEAD_DROPS(in->drop_head) + 1) & 0xffffu))
			release_desc_bit(t, in->drop_desc, ZC_SUB_BIT(in->drop_sub));
	}
	in->drop_sub = ZC_NO_SUB;
	if (in->evict_pending && !history_contains(t, in->evict_desc))
		release_desc_bit(t, in->evict_desc, ZC_HIST_BIT);
	in->evict_pending = 0;
	if (in->op == ZC_OP_PUBLISH) {
		uint64_t d = in->desc;
		struct zc_pool_map *m;
		if (zc_pool_get(t, ZC_DESC_POOL(d), &m) == 0) {
			uint32_t i = ZC_DESC_SLOT(d);
			uint64_t w = i < m->slot_count ? atomic_load(&zc_slot(m, i)->state) : 0;
			if (i < m->slot_count && (uint32_t)ZC_STATE_GEN(w) == ZC_DESC_GEN(d) &&
			    ZC_STATE_ST(w) != ZC_SLOT_FREE) {
				struct zc_slot_hdr *s = zc_slot(m, i);
				/* A target keeps its bit only if the descriptor reached its ring: the
				 * last entry a ring got is the one this publish wrote, if any. */
				for (uint32_t k = 0; k < t->max_subs; k++) {
					uint32_t bit = ZC_SUB_BIT(k);
					if (!(atomic_load(&s->bits[bit / 64]) & (1ull << (bit % 64))))
						continue;
					struct zc_sub_rec *r = &t->subs[k];
					uint64_t tail = atomic_load(&r->tail);
					uint32_t depth = r->depth;
					bool pushed = tail > 0 && depth > 0 && depth <= t->max_depth &&
						      atomic_load(&zc_ring(t, k)[(tail - 1) % depth]) == d;
					if (!pushed)
						atomic_fetch_and(&s->bits[bit / 64], ~(1ull << (bit % 64)));
				}
				if (!history_contains(t, d))
					atomic_fetch_and(&s->bits[0], ~(1ull << ZC_HIST_BIT));
				uint64_t gen = ZC_STATE_GEN(w);
				if (ZC_STATE_ST(w) == ZC_SLOT_LOANED) {
					if (zc_slot_bits_zero(m, i))
						zc_slot_free(m, i, ZC_SLOT_LOANED, gen);
					else
						atomic_store(&s->state, ZC_STATE(ZC_SLOT_PUBLISHED, gen));
				} else {
					zc_slot_try_free(m, i, gen);
				}
			}
			zc_pool_put(m);
		}
	}
	in->op = ZC_OP_NONE;
}

void zc_sub_sweep(struct zc_topic *t, uint32_t k)
{
	uint32_t bit = ZC_SUB_BIT(k);
	uint32_t hi = atomic_load(&t->hdr->pool_hi);
	for (uint32_t p = 0; p < hi && p < t->max_pools; p++) {
		struct zc_pool_map *m;
		if (atomic_load(&t->pools[p].state) == ZC_POOL_UNUSED || zc_pool_get(t, p, &m) != 0)
			continue;
		for (uint32_t i = 0; i < m->slot_count; i++) {
			struct zc_slot_hdr *s = zc_slot(m, i);
			if (!(atomic_load(&s->bits[bit / 64]) & (1ull << (bit % 64))))
				continue;
			uint64_t w = atomic_load(&s->state);
			ZC_CRASH("sweep:before-clear");
			zc_slot_release_bit(m, i, bit, ZC_STATE_GEN(w));
		}
		zc_pool_put(m);
	}
	struct zc_sub_rec *r = &t->subs[k];
	atomic_store(&r->head, 0);
	atomic_store(&r->tail, 0);
	atomic_store(&r->sleeping, 0);
	atomic_store(&r->held, 0);
}

/* Returns the LOANED slots of a pool whose publisher is gone, and orphans the pool. */
static void orphan_pool(struct zc_topic *t, uint32_t p)
{
	struct zc_pool_map *m;
	if (zc_pool_get(t, p, &m) == 0) {
		for (uint32_t i = 0; i < m->slot_count; i++) {
			uint64_t w = atomic_load(&zc_slot(m, i)->state);
			if (ZC_STATE_ST(w) == ZC_SLOT_LOANED) {
				zc_slot_free(m, i, ZC_SLOT_LOANED, ZC_STATE_GEN(w));
				ZC_CRASH("gc:orphan-mid-loans");
			}
		}
		zc_pool_put(m);
	}
	atomic_store(&t->pools[p].state, ZC_POOL_ORPHAN);
}

/* Frees PUBLISHED slots with an empty bitmap (a releaser died between its clear and its CAS) and
 * unlinks orphaned pools whose slots are all free. */
static void sweep_pools(struct zc_topic *t)
{
	uint32_t hi = atomic_load(&t->hdr->pool_hi);
	for (uint32_t p = 0; p < hi && p < t->max_pools; p++) {
		struct zc_pool_rec *rec = &t->pools[p];
		uint32_t st = atomic_load(&rec->state);
		if (st == ZC_POOL_UNUSED)
			continue;
		if (st == ZC_POOL_ACTIVE) {
			uint32_t o = rec->owner;
			if (o >= t->max_pubs || atomic_load(&t->pubs[o].state) != ZC_REC_ACTIVE ||
			    t->pubs[o].pool != p) {
				orphan_pool(t, p);
				st = ZC_POOL_ORPHAN;
			}
		}
		struct zc_pool_map *m;
		if (zc_pool_get(t, p, &m) != 0) {
			if (st == ZC_POOL_ORPHAN)
				atomic_store(&rec->state, ZC_POOL_UNUSED); /* its segment is gone */
			continue;
		}
		bool all_free = true;
		for (uint32_t i = 0; i < m->slot_count; i++) {
			uint64_t w = atomic_load(&zc_slot(m, i)->state);
			if (ZC_STATE_ST(w) == ZC_SLOT_PUBLISHED && zc_slot_try_free(m, i, ZC_STATE_GEN(w)))
				continue;
			if (ZC_STATE_ST(atomic_load(&zc_slot(m, i)->state)) != ZC_SLOT_FREE)
				all_free = false;
		}
		zc_pool_put(m);
		if (st == ZC_POOL_ORPHAN && all_free) {
			ZC_CRASH("gc:before-pool-unlink");
			zc_pool_unlink(t, rec->id);
			atomic_store(&rec->state, ZC_POOL_UNUSED);
		}
	}
}

int zc_topic_cleanup(struct zc_topic *t)
{
	int dead = 0;
	for (uint32_t i = 0; i < t->max_pubs; i++) {
		struct zc_pub_rec *r = &t->pubs[i];
		uint32_t st = atomic_load(&r->state);
		if (st == ZC_REC_FREE || zc_member_alive(t, zc_member_of_pub(t, i)))
			continue;
		if (st == ZC_REC_ACTIVE && r->pool < t->max_pools &&
		    atomic_load(&t->pools[r->pool].state) == ZC_POOL_ACTIVE)
			orphan_pool(t, r->pool);
		if (st == ZC_REC_CLAIMED) {
			/* Died while joining: its pool file may exist without a pool record. The id
			 * may be a previous owner's: unlink only if no pool record names it. */
			bool recorded = false;
			for (uint32_t p = 0; p < t->max_pools && !recorded; p++)
				recorded = atomic_load(&t->pools[p].state) != ZC_POOL_UNUSED &&
					   t->pools[p].id == r->id;
			if (!recorded)
				zc_pool_unlink(t, r->id);
		}
		ZC_CRASH("gc:mid-sweep");
		atomic_store(&r->state, ZC_REC_FREE);
		dead++;
	}
	for (uint32_t k = 0; k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t st = atomic_load(&r->state);
		if (st == ZC_REC_FREE || zc_member_alive(t, zc_member_of_sub(t, k)))
			continue;
		zc_sub_sweep(t, k);
		ZC_CRASH("gc:after-sub-sweep");
		if (st != ZC_REC_CLAIMED && r->group < t->max_groups &&
		    atomic_load(&t->groups[r->group].members) > 0)
			atomic_fetch_sub(&t->groups[r->group].members, 1);
		r->group = ZC_NO_SUB;
		atomic_store(&r->state, ZC_REC_FREE);
		dead++;
	}
	for (uint32_t k = 0; k < ZC_TOOL_RECORDS; k++) {
		uint32_t member = t->max_pubs + t->max_subs + k;
		if (atomic_load(&t->tools[k].state) != ZC_REC_FREE && !zc_member_alive(t, member)) {
			atomic_store(&t->tools[k].state, ZC_REC_FREE);
			dead++;
		}
	}
	sweep_pools(t);
	if (dead)
		zc_topic_graph_changed(t);
	return dead;
}

static void repair_alone(struct zc_topic *t)
{
	/* Exclusive on byte 0: nobody else is attached, so nobody can hold the lock legitimately. */
	atomic_store(&t->hdr->lock.word, 0);
	recover_intent(t);
	t->reclaimed_at_attach = zc_topic_cleanup(t);
}

void zc_topic_graph_changed(struct zc_topic *t)
{
	atomic_fetch_add_explicit(&t->hdr->graph, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&t->hdr->graph_waiters, memory_order_seq_cst))
		zc_futex_wake(&t->hdr->graph, INT_MAX);
}

int zc_topic_lock(struct zc_topic *t)
{
	int r = zc_lock_acquire(t, LOCK_TIMEOUT_NS);
	if (r == ZC_LOCK_OWNER_DEAD) {
		recover_intent(t);
		zc_topic_cleanup(t);
		r = 0;
	}
	return r;
}

void zc_topic_unlock(struct zc_topic *t)
{
	zc_lock_release(t);
}

void zc_history_trim(struct zc_topic *t, uint32_t depth)
{
	struct zc_topic_hdr *h = t->hdr;
	uint64_t start = atomic_load(&h->hist_start), end = atomic_load(&h->hist_end);
	if (end < start || end - start > t->history_cap) { /* corrupted: forget the window */
		atomic_store(&h->hist_start, end);
		return;
	}
	while (end - start > depth) {
		uint64_t d = atomic_load(&t->history[start % t->history_cap]);
		h->intent.evict_desc = d;
		h->intent.evict_pending = 1;
		atomic_store(&h->hist_start, ++start);
		ZC_CRASH("history:after-evict-advance");
		release_desc_bit(t, d, ZC_HIST_BIT);
		h->intent.evict_pending = 0;
	}
}

void zc_topic_detach(struct zc_topic *t)
{
	if (t->fd >= 0 && !t->peek) {
		if (t->is_member)
			zc_ofd_unlock(t->fd, 1 + (off_t)t->member);
		zc_ofd_unlock(t->fd, 0);
		/* Last one out (nobody holds byte 0) unlinks, unless the topic is retained. */
		if (t->hdr && zc_ofd_lock(t->fd, 0, true) == 0 && still_linked(t->fd) &&
		    !atomic_load(&t->hdr->retain)) {
			/* Every pool file of the topic goes, also one a publisher created and then
			 * died before recording it. */
			sweep_stale_pools(t->domain, t->topic_hash);
			shm_unlink(t->shm_name);
		}
		zc_fd_unregister(t->fd);
		close(t->fd);
		t->fd = -1;
	}
	if (t->maps) {
		for (uint32_t p = 0; p < t->max_pools; p++)
			zc_pool_put(t->maps[p]);
		free(t->maps);
		t->maps = NULL;
	}
	if (t->hdr)
		munmap(t->hdr, t->map_size);
	t->hdr = NULL;
	pthread_mutex_destroy(&t->maps_mu);
}
