/* The control segment of a topic: create, join, take over an abandoned one, peek, leave.
 *
 * Membership is an OFD read lock on byte 0, held for as long as a handle is attached. Create, take
 * over and unlink hold it exclusively: a failed exclusive try means someone is still there. An
 * existing file is trusted only after fstat (regular, owner, mode: shm.c), and only its header page
 * is read before its size is checked against the geometry the header claims. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto_internal.h"

#define ATTACH_TIMEOUT_NS 5000000000ll

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
	off += round_up((uint64_t)l->max_subs * zc_ring_cells(l->max_depth) * 8, ZC_CACHELINE);
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

/* The largest segment any valid header can describe: a bigger file is not ours to map. */
static uint64_t max_segment_size(void)
{
	struct limits l = {ZC_MAX_PUBS_LIMIT,	 ZC_MAX_SUBS_LIMIT,  ZC_MAX_DEPTH_LIMIT,
			   ZC_MAX_HISTORY_LIMIT, ZC_MAX_POOLS_LIMIT, ZC_MAX_SUBS_LIMIT};
	return layout_of(&l).size;
}

/* Reads the header once into a copy, checks it, and fills t's limits and pointers from the copy. */
static int adopt(struct zc_topic *t, uint8_t *base, uint64_t file_size)
{
	struct zc_topic_hdr *h = (struct zc_topic_hdr *)base;
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != ZC_TOPIC_MAGIC)
		return zc_err(ZCAST_ECORRUPT, "topic %s: segment is not initialised", t->name);
	struct {
		uint32_t version, header_size, n_members, bitmap_words;
		uint64_t segment_size, off[7];
		struct limits l;
	} c = {
	    ZC_READ_ONCE(h->layout_version),
	    ZC_READ_ONCE(h->header_size),
	    ZC_READ_ONCE(h->n_members),
	    ZC_READ_ONCE(h->bitmap_words),
	    ZC_READ_ONCE(h->segment_size),
	    {ZC_READ_ONCE(h->off_pubs), ZC_READ_ONCE(h->off_subs), ZC_READ_ONCE(h->off_tools), ZC_READ_ONCE(h->off_pools), ZC_READ_ONCE(h->off_groups), ZC_READ_ONCE(h->off_rings),
	     ZC_READ_ONCE(h->off_history)},
	    {ZC_READ_ONCE(h->max_pubs), ZC_READ_ONCE(h->max_subs), ZC_READ_ONCE(h->max_depth), ZC_READ_ONCE(h->history_cap), ZC_READ_ONCE(h->max_pools), ZC_READ_ONCE(h->max_groups)}};
	if (c.version != ZC_LAYOUT_VERSION)
		return zc_err(ZCAST_ELAYOUT, "topic %s: layout version %u, this library speaks %u",
			      t->name, c.version, ZC_LAYOUT_VERSION);
	if (!limits_valid(&c.l))
		return zc_err(ZCAST_ECORRUPT, "topic %s: limits in the header are out of range",
			      t->name);
	struct geometry g = layout_of(&c.l);
	uint64_t want[7] = {g.off_pubs,	  g.off_subs,  g.off_tools,  g.off_pools,
			    g.off_groups, g.off_rings, g.off_history};
	if (c.header_size != sizeof(struct zc_topic_hdr) || c.segment_size != g.size ||
	    file_size != g.size || memcmp(c.off, want, sizeof want) != 0 ||
	    c.bitmap_words != ZC_BITMAP_WORDS(c.l.max_subs) ||
	    c.n_members != c.l.max_pubs + c.l.max_subs + ZC_TOOL_RECORDS)
		return zc_err(ZCAST_ECORRUPT, "topic %s: header geometry is inconsistent", t->name);
	t->hdr = h;
	t->max_pubs = c.l.max_pubs;
	t->max_subs = c.l.max_subs;
	t->max_depth = c.l.max_depth;
	t->ring_cells = zc_ring_cells(c.l.max_depth);
	t->history_cap = c.l.history_cap;
	t->max_pools = c.l.max_pools;
	t->max_groups = c.l.max_groups;
	t->n_members = c.n_members;
	t->bitmap_words = c.bitmap_words;
	t->topic_hash = zc_hash(t->name);
	t->pubs = (struct zc_pub_rec *)(base + g.off_pubs);
	t->subs = (struct zc_sub_rec *)(base + g.off_subs);
	t->tools = (struct zc_tool_rec *)(base + g.off_tools);
	t->pools = (struct zc_pool_rec *)(base + g.off_pools);
	t->groups = (struct zc_group_rec *)(base + g.off_groups);
	t->rings = (_Atomic uint64_t *)(base + g.off_rings);
	t->history = (_Atomic uint64_t *)(base + g.off_history);
	return 0;
}

/* Adopts a fresh mapping of `size` bytes and shares it with the process's other handles. */
static int share(struct zc_topic *t, uint8_t *base, uint64_t size, const struct stat *st)
{
	struct zc_topic shape = *t;
	int r = adopt(&shape, base, size);
	if (r < 0) {
		munmap(base, (size_t)size);
		return r;
	}
	return t->cache->share(t, &shape, (uint64_t)st->st_dev, (uint64_t)st->st_ino, (size_t)size);
}

/* Checks the file (fstat), reads its header page, and maps it whole only when the size it claims
 * matches the file: a huge garbage file at a topic's name costs a page, not its size. */
static int map_and_adopt(struct zc_topic *t, int fd)
{
	struct stat st;
	int r = zc_shm_check(fd, t->name, t->mode, &st);
	if (r < 0)
		return r;
	uint64_t size = (uint64_t)st.st_size;
	if (size < sizeof(struct zc_topic_hdr) || size > max_segment_size())
		return zc_err(ZCAST_ECORRUPT, "topic %s: segment size %llu is impossible", t->name,
			      (unsigned long long)size);
	t->gid = st.st_gid;
	/* Mapped by another handle of ours already: its header was checked then. */
	if (t->cache->use_existing(t, (uint64_t)st.st_dev, (uint64_t)st.st_ino, (size_t)size))
		return 0;
	uint8_t *head = zc_map(fd, sizeof(struct zc_topic_hdr), 0, false, false);
	if (!head)
		return zc_errno(ZCAST_ENOMEM, "mmap topic header");
	struct zc_topic probe = *t;
	r = adopt(&probe, head, size);
	munmap(head, sizeof(struct zc_topic_hdr));
	if (r < 0)
		return r;
	/* Tools only glance at a segment: they do not prefault it. */
	uint8_t *p = zc_map(fd, (size_t)size, 0, true, !t->peek);
	if (!p)
		return zc_errno(ZCAST_ENOMEM, "mmap topic");
	/* Checked again on the real mapping: the header may have changed in between. */
	return share(t, p, size, &st);
}

static bool still_linked(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_nlink > 0;
}

/* Removes pool segments of an earlier instance of this topic (their ids may come back). */
void zc_segment_sweep_pools(const char *domain, uint64_t topic_hash)
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
	struct geometry g = layout_of(l);
	/* Held from the moment it exists: a reader (zcast doctor) never finds it half made and
	 * unlocked, which would look like a leftover. */
	int fd = zc_shm_create(t->shm_name, g.size, t->mode, true);
	if (fd < 0)
		return fd;
	if (!still_linked(fd)) { /* an opener took it for a dead creator's and removed it */
		zc_fd_close(fd);
		return ZCAST_EAGAIN;
	}
	struct zc_topic_hdr *h = zc_map(fd, g.size, 0, true, true);
	struct stat st;
	if (!h || fstat(fd, &st) != 0) {
		int r = zc_errno(ZCAST_ENOMEM, "mmap topic");
		if (h)
			munmap(h, g.size);
		shm_unlink(t->shm_name);
		zc_fd_close(fd);
		return r;
	}
	t->gid = st.st_gid;
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
	zc_segment_sweep_pools(t->domain, h->topic_hash);
	ZC_CRASH("create:before-magic");
	atomic_store_explicit(&h->magic, ZC_TOPIC_MAGIC, memory_order_release);
	int r = share(t, (uint8_t *)h, g.size, &st);
	if (r < 0) {
		zc_fd_close(fd);
		return r;
	}
	t->fd = fd;
	zc_ofd_lock(fd, 0, false); /* downgrade: atomic for OFD locks */
	return 0;
}

static int join_existing(struct zc_topic *t, int fd, int64_t deadline)
{
	/* Refuse a file we must not trust before locking or unlinking anything. */
	struct stat st;
	int r = zc_shm_check(fd, t->name, t->mode, &st);
	if (r < 0)
		return r;
	if (zc_ofd_lock(fd, 0, true) == 0) {
		if (!still_linked(fd))
			return ZCAST_EAGAIN;
		r = map_and_adopt(t, fd);
		if (r == 0) {
			t->fd = fd;
			zc_repair_alone(t);
			zc_ofd_lock(fd, 0, false);
			return 0;
		}
		if (r == ZCAST_EPERM || r == ZCAST_ENOMEM)
			return r;
		/* Nobody alive uses it, it is ours, and it is not readable: rebuild. */
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
	r = map_and_adopt(t, fd);
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

static void init_handle(struct zc_topic *t, const struct zc_segment_cache *cache,
			const char *domain, const char *topic, unsigned mode)
{
	t->cache = cache;
	t->fd = -1;
	t->mode = mode;
	snprintf(t->domain, sizeof t->domain, "%s", domain);
	snprintf(t->name, sizeof t->name, "%s", topic);
	zc_topic_shm_name(t->shm_name, sizeof t->shm_name, domain, topic);
	atomic_init(&t->lock_mu, 0);
	t->member = UINT32_MAX;
	t->fork_gen = atomic_load(&zc_fork_generation);
}

void zcast_topic_opts_init(zcast_topic_opts *o)
{
	if (!o)
		return; /* nothing to fill (open takes NULL options as the defaults) */
	memset(o, 0, sizeof *o);
}

int zc_segment_mode(const zcast_topic_opts *o, unsigned *mode)
{
	unsigned m = o->mode ? o->mode : 0600;
	if ((m & ~0666u) || (m & 0600u) != 0600u)
		return zc_err(ZCAST_EINVAL,
			      "topic.mode %04o: wanted read-write for the owner, at most "
			      "0666 (e.g. 0600, or 0660 for a group)",
			      m);
	*mode = m;
	return 0;
}

int zc_topic_attach(struct zc_topic *t, const struct zc_segment_cache *cache, const char *domain,
		    const char *topic, const zcast_topic_opts *o, bool create)
{
	unsigned mode;
	int r = zc_segment_mode(o, &mode);
	init_handle(t, cache, domain, topic, mode);
	if (r < 0)
		return r;
	struct limits want = limits_from_opts(o);
	if (!limits_valid(&want))
		return zc_err(ZCAST_EINVAL,
			      "topic %s: limits out of range (subscribers 1..%u, "
			      "publishers 1..%u, queue depth 1..%u, history 0..%u)",
			      topic, ZC_MAX_SUBS_LIMIT, ZC_MAX_PUBS_LIMIT, ZC_MAX_DEPTH_LIMIT,
			      ZC_MAX_HISTORY_LIMIT);
	int64_t deadline = zc_now_ns() + ATTACH_TIMEOUT_NS;
	for (;;) {
		/* Registered for the fork rule before any lock is taken through it. */
		int fd = zc_fd_open(t->shm_name, O_RDWR, 0);
		if (fd < 0) {
			if (zc_open_denied(fd))
				return zc_err(ZCAST_EPERM,
					      "cannot open topic %s: permission denied (its "
					      "owner or group must grant you access: topic.mode)",
					      topic);
			if (fd != ZCAST_ENOENT)
				return fd;
			if (!create)
				return zc_err(ZCAST_ENOENT, "no topic %s in domain %s", topic,
					      domain);
			r = create_segment(t, &want, o);
		} else {
			r = join_existing(t, fd, deadline);
			if (r != 0)
				zc_fd_close(fd);
		}
		if (r != ZCAST_EAGAIN)
			break;
		if (zc_now_ns() > deadline)
			return zc_err(ZCAST_ETIMEDOUT, "topic %s: could not attach", topic);
	}
	if (r < 0)
		return r;
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
			r = zc_err(ZCAST_ELIMIT, "topic %s exists with %s %u, you asked for %u",
				   topic, checks[i].what, checks[i].have, checks[i].asked);
			zc_topic_detach(t);
			return r;
		}
	}
	return 0;
}

int zc_topic_peek(struct zc_topic *t, const struct zc_segment_cache *cache, const char *domain,
		  const char *topic)
{
	init_handle(t, cache, domain, topic,
		    0666); /* tools read group topics too; owners are still checked */
	t->peek = true;
	int fd = zc_fd_open(t->shm_name, O_RDWR, 0);
	if (fd < 0)
		return fd == ZCAST_ENOENT
			   ? zc_err(ZCAST_ENOENT, "no topic %s in domain %s", topic, domain)
		       : zc_open_denied(fd)
			   ? zc_err(ZCAST_EPERM, "cannot open topic %s: permission denied", topic)
			   : fd;
	t->fd = fd; /* kept: liveness probes (F_OFD_GETLK) go through it */
	return map_and_adopt(t, fd);
}

void zc_topic_detach(struct zc_topic *t)
{
	if (zc_inherited(t)) {
		/* A forked child: the descriptors are closed and the mappings absent (the shared map
		 * knows it was mapped by the parent and does not unmap). */
		t->fd = -1;
		t->hdr = NULL;
	}
	if (t->fd >= 0 && !t->peek) {
		if (t->is_member)
			zc_ofd_unlock(t->fd, 1 + (off_t)t->member);
		/* Last one out (nobody else holds byte 0) unlinks, unless the topic is retained. Our
		 * read lock is turned into the exclusive one in place (atomic for OFD locks): a
		 * memberless topic on its way out is never seen unlocked (zcast_topic_stat.in_use).
		 * Two leaving at once each see the other's lock: both let go, then try again. */
		bool last = t->hdr && !t->keep && zc_ofd_lock(t->fd, 0, true) == 0;
		if (!last) {
			zc_ofd_unlock(t->fd, 0);
			last = t->hdr && !t->keep && zc_ofd_lock(t->fd, 0, true) == 0;
		}
		if (last && still_linked(t->fd) && !atomic_load(&t->hdr->retain)) {
			/* Every pool file of the topic goes, also one a publisher created and then
			 * died before recording it. */
			zc_segment_sweep_pools(t->domain, t->topic_hash);
			shm_unlink(t->shm_name);
		}
		zc_fd_close(t->fd);
		t->fd = -1;
	}
	if (t->fd >= 0 && t->peek) {
		zc_fd_close(t->fd);
		t->fd = -1;
	}
	if (t->cache)
		t->cache->put(t);
	t->shared = NULL;
	t->owed_seen = NULL;
	t->maps = NULL;
	t->maps_mu = NULL;
	t->hdr = NULL;
}
