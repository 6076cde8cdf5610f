/* Private declarations of libzcast: handle structs and the helpers shared between files. */
#ifndef ZC_INTERNAL_H
#define ZC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <sys/stat.h>

#include "layout.h"
#include "ring.h"
#include "zcast/zcast.h"

#define ZC_HIDDEN __attribute__((visibility("hidden")))

/* ThreadSanitizer sees the synchronisation of one process only. A slot handed from a reader in this
 * process to a writer in this process through another process (it clears the last holder bit and
 * frees the slot) looks like a race to it: the release of the bit and the acquire of the loan are
 * told to it explicitly, on the slot's state word. */
#if defined(__SANITIZE_THREAD__)
#define ZC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZC_TSAN 1
#endif
#endif
#ifdef ZC_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ZC_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define ZC_TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define ZC_TSAN_ACQUIRE(p) ((void)0)
#define ZC_TSAN_RELEASE(p) ((void)0)
#endif
#define ZC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* A function of the per-message path (loan, publish, take, release, waits). gcc places these side
 * by side (.text.hot): a process woken for a message then runs code from a few pages instead of a
 * dozen, and each page is a TLB miss after a context switch (docs/BENCHMARKS.md, "Hot code on
 * few pages"). */
#define ZC_HOT __attribute__((hot))
/* One load of a field another process (or another handle of ours, through the same mapping) may
 * write. A plain load of shared memory may be repeated by the compiler (it assumes nobody else
 * writes it), which turns a checked copy back into a second read: every field of another process's
 * that we copy, check and use goes through this. */
#define ZC_READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Its counterpart: a plain field that others may read while we write it (a relaxed atomic store,
 * so the write is one store and the pair is no data race; ordering comes from the state words). */
#define ZC_WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline void zc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Starts fetching the cache line of p for writing, without waiting for it. gcc emits a read
 * prefetch for __builtin_prefetch(p, 1) unless the target has PRFCHW, and a read prefetch leaves
 * the later write to pay for taking the line from the other cores; PREFETCHW is a hint (a NOP
 * where unsupported). */
static inline void zc_prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}

/* ---- errors (error.c) ---- */
/* Records a detailed message for zcast_last_error() and returns `code`. */
ZC_HIDDEN int zc_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ZC_HIDDEN int zc_errno(int code, const char *what); /* appends strerror(errno) */
/* Clears this thread's message: a call that fails softly (EAGAIN) leaves no stale text. */
ZC_HIDDEN void zc_err_clear(void);
#define ZCAST_EEXIST_ (-100) /* internal: O_EXCL found the file */

/* ---- time (clock.c) ---- */
ZC_HIDDEN int64_t zc_now_ns(void);
ZC_HIDDEN struct timespec zc_ts(int64_t ns);
/* t + ns for ns >= 0, saturated at INT64_MAX: a huge timeout or period means "not in our time",
 * never a wrap into the past. */
ZC_HIDDEN int64_t zc_after(int64_t t, int64_t ns);

/* ---- crash points for fault injection (crash.c); compiled in test builds only ---- */
#ifdef ZCAST_FAULT_INJECTION
ZC_HIDDEN void zc_crash_point(const char *name);
ZC_HIDDEN void zc_pause_point(const char *name);
#define ZC_CRASH(name) zc_crash_point(name)
#define ZC_PAUSE(name) zc_pause_point(name)
#else
#define ZC_CRASH(name) ((void)0)
#define ZC_PAUSE(name) ((void)0)
#endif

/* ---- names (names.c) ---- */
ZC_HIDDEN const char *zc_domain_or_default(const char *domain);
/* Validates both names with a message that says what is wanted. */
ZC_HIDDEN int zc_check_names(const char *topic, const char *domain);
/* "/zcast.<domain>.<topic with '/' as '.'>" and "/zcast.<domain>.@<topic hash>.<pool id>" */
ZC_HIDDEN void zc_topic_shm_name(char *out, size_t n, const char *domain, const char *topic);
ZC_HIDDEN void zc_pool_shm_name(char *out, size_t n, const char *domain, uint64_t topic_hash,
				uint64_t pool_id);
ZC_HIDDEN uint64_t zc_hash(const char *s);

/* ---- segments, descriptors and OFD locks (shm.c) ---- */
/* Opens (or with O_CREAT|O_EXCL creates) a /dev/shm segment and registers the descriptor for the
 * fork rule before anyone can fork: a forked child closes it (a child must not keep a killed
 * parent's OFD locks alive). Returns fd, or ZCAST_ENOENT / ZCAST_EEXIST_ / ZCAST_EPERM /
 * ZCAST_ENOMEM (no memory, inodes or descriptors) / ZCAST_ESYS. Close with zc_fd_close. */
ZC_HIDDEN int zc_fd_open(const char *name, int flags, unsigned mode);
ZC_HIDDEN void zc_fd_close(int fd);
/* Creates an exclusive new segment of `size` bytes with exactly `mode`, sized with posix_fallocate
 * (ZCAST_ENOMEM naming the free space if /dev/shm cannot hold it). Returns fd, ZCAST_EAGAIN if it
 * exists, or a negative code. */
ZC_HIDDEN int zc_shm_create(const char *name, size_t size, unsigned mode);
/* Decides whether an existing segment may be trusted (fstat): a regular file, owned by this uid,
 * root, or — when `mode` (the caller's topic.mode) grants a group — by someone whose file carries a
 * group of ours; and writable by nobody beyond what `mode` allows. ZCAST_EPERM naming owner and
 * mode. */
ZC_HIDDEN int zc_shm_check(int fd, const char *what, unsigned mode, struct stat *st);
ZC_HIDDEN bool zc_in_group(gid_t gid);
ZC_HIDDEN void *zc_map(int fd, size_t size, off_t off, bool writable, bool populate);
/* OFD byte locks. Return 0, or ZCAST_EAGAIN when another open file description holds it. */
ZC_HIDDEN int zc_ofd_lock(int fd, off_t byte, bool exclusive);
ZC_HIDDEN int zc_ofd_unlock(int fd, off_t byte);
/* True when some open file description other than fd's holds a lock on `byte`. */
ZC_HIDDEN bool zc_ofd_held(int fd, off_t byte);
/* Creates a library thread with every signal blocked: a program that blocks signals for signalfd
 * after its first zcast call must not lose them to a zcast thread. */
ZC_HIDDEN int zc_thread_start(void *(*fn)(void *), void *arg, pthread_t *th, bool detached);

/* ---- futex (futex.c) ---- */
/* Waits while *w == val, until abs_deadline_ns (CLOCK_MONOTONIC; < 0 = forever). Shared futex. */
ZC_HIDDEN int zc_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns);
ZC_HIDDEN void zc_futex_wake(_Atomic uint32_t *w, int n);

/* ---- pool mappings (pool.c) ---- */
struct zc_pool_map {
	_Atomic int refs;
	uint8_t
	    *_Atomic payload_ro; /* subscribers: payload mapped read-only on first take, or NULL */
	uint32_t index;		 /* pool record index */
	uint64_t id;
	bool writable;  /* payload mapped writable (the owning publisher) */
	uint32_t slot_count, bitmap_words;
	uint64_t slot_size, slot_stride, payload_off, size;
	uint64_t dev, ino;
	uint8_t *base;    /* header + slot headers, read-write */
	uint8_t *payload; /* payload area (the owner's, writable); NULL until zc_pool_payload */
	char shm_name[96];
};

static inline struct zc_slot_hdr *zc_slot(const struct zc_pool_map *m, uint32_t i)
{
	return (struct zc_slot_hdr *)(m->base + sizeof(struct zc_pool_hdr) + (uint64_t)i * m->slot_stride);
}
static inline struct zc_pool_hdr *zc_pool_hdr(const struct zc_pool_map *m)
{
	return (struct zc_pool_hdr *)m->base;
}

struct zc_topic; /* below */
/* Creates the pool segment of a new publisher (called under the topic lock). */
ZC_HIDDEN int zc_pool_create(struct zc_topic *t, uint32_t index, uint64_t id, uint32_t slots,
			     uint64_t slot_size, struct zc_pool_map **out);
/* The mapping of pool `index` (from the cache or freshly mapped), with a reference. */
ZC_HIDDEN int zc_pool_get(struct zc_topic *t, uint32_t index, struct zc_pool_map **out);
/* zc_pool_get with a one-entry cache `*hint` (holding a reference of its own, claimed by exchange
 * so that concurrent callers never share it): no map lock while the hint still names the pool. */
ZC_HIDDEN int zc_pool_get_hinted(struct zc_topic *t, struct zc_pool_map *_Atomic *hint, uint32_t index,
				 struct zc_pool_map **out);
ZC_HIDDEN void zc_pool_put(struct zc_pool_map *m);
/* The payload area of a mapped pool (*out): subscribers map it read-only on first use, without
 * prefaulting (outside the topic lock). ZCAST_ECORRUPT when the pool's file is gone or is no longer
 * the file whose headers m maps (it never can be mapped here); another error (no descriptors, no
 * address space) may pass. zcast_last_error says which. */
ZC_HIDDEN int zc_pool_payload(struct zc_pool_map *m, struct zc_topic *t, uint8_t **out);
/* The payload area if this process has mapped it already, else NULL (never maps). */
static inline uint8_t *zc_pool_payload_mapped(struct zc_pool_map *m)
{
	return m->payload ? m->payload : atomic_load_explicit(&m->payload_ro, memory_order_acquire);
}
ZC_HIDDEN void zc_pool_unlink(struct zc_topic *t, uint64_t id);

/* ---- holder bits: clearing one, and freeing the slot once all are clear (drop.c) ---- */
/* Clears `bit` of slot i; if the bitmap is then all zero, frees the slot (one CAS from
 * (PUBLISHED, gen)). Returns true when this call freed it. */
ZC_HIDDEN bool zc_slot_release_bit(struct zc_pool_map *m, uint32_t i, uint32_t bit, uint64_t gen);
/* Frees slot i if it is (PUBLISHED, gen) with an all-zero bitmap. */
ZC_HIDDEN bool zc_slot_try_free(struct zc_pool_map *m, uint32_t i, uint64_t gen);
ZC_HIDDEN bool zc_slot_bits_zero(struct zc_pool_map *m, uint32_t i);
/* Moves slot i from (from_state, gen) to (FREE, gen + 1) and wakes a waiting loaner. */
ZC_HIDDEN bool zc_slot_free(struct zc_pool_map *m, uint32_t i, uint32_t from_state, uint64_t gen);

/* ---- a topic handle (segment.c, members.c) ---- */
enum zc_kind { ZC_KIND_PUB, ZC_KIND_SUB, ZC_KIND_TOOL };

struct zc_topic {
	int fd; /* our own open file description: holds our OFD locks */
	struct zc_topic_hdr *hdr;
	size_t map_size;
	uint32_t member; /* member index: lock owner id and OFD byte - 1 */
	bool is_member;
	bool peek; /* mapped for reading by a tool: not a member, takes no lock */
	bool keep; /* leaving never unlinks (tools: gc keeps an all-dead topic and its history) */
	unsigned fork_gen;       /* zc_fork_generation when opened: differs in a forked child */
	/* Serialises our own threads (say, the death watcher and the caller) on the topic lock: the
	 * thread inside may then read a lock word naming our member index as a dead former owner's. */
	_Atomic uint32_t lock_mu; /* a small futex mutex (lock.c) */
	uint64_t lock_held; /* under lock_mu: the lock word of our acquisition, waiters bit clear */
	uint64_t owed_seen; /* under the lock: the owed-wake mark found at our last acquisition */
	int reclaimed_at_attach; /* dead members cleaned up because we found the topic abandoned */
	unsigned mode; /* segment mode from the caller's options (never from shared memory) */
	gid_t gid;     /* group of the control segment: pools get it too */
	char domain[40];
	char name[ZC_NAME_MAX + 8];
	char shm_name[300];
	/* Limits, read once at attach and validated: never re-read from shared memory. */
	uint32_t max_pubs, max_subs, max_depth, ring_cells, history_cap, max_pools, max_groups,
	    n_members, bitmap_words;
	uint64_t topic_hash;
	struct zc_pub_rec *pubs;
	struct zc_sub_rec *subs;
	struct zc_tool_rec *tools;
	struct zc_pool_rec *pools;
	struct zc_group_rec *groups;
	_Atomic uint64_t *rings;
	_Atomic uint64_t *history;
	struct zc_topic_map *shared; /* the process's one mapping of this segment (topic_map.c) */
	pthread_mutex_t *maps_mu;    /* the shared map's: guards maps */
	struct zc_pool_map **maps;   /* max_pools entries, lazily filled, shared by the process */
	uint64_t death_watch;	     /* registration with the death watcher (deaths.c), 0 = none */
	_Atomic uint32_t graph_seen; /* graph word at the last peer rescan */
};

/* topic_map.c: one mapping per control segment per process, shared by its handles. `shape` holds
 * what adopt read from the header at the first mapping (limits, pointers, the pool map cache). */
struct zc_topic_map {
	struct zc_topic_map *next;
	uint64_t dev, ino;
	size_t size;
	unsigned fork_gen;
	unsigned refs; /* under the list lock */
	pthread_mutex_t maps_mu;
	struct zc_topic shape;
};
/* The process's mapping of that file, with a reference, or NULL. */
ZC_HIDDEN struct zc_topic_map *zc_topic_map_find(uint64_t dev, uint64_t ino, size_t size);
/* Registers a fresh mapping (shape->hdr, size bytes, validated into *shape). If another thread
 * registered the same file first, the fresh mapping is unmapped and that one is used. */
ZC_HIDDEN int zc_topic_map_add(const struct zc_topic *shape, uint64_t dev, uint64_t ino,
			       size_t size, struct zc_topic_map **out);
/* Points t's limits, pointers and pool cache at the shared mapping (t owns one reference). */
ZC_HIDDEN void zc_topic_map_use(struct zc_topic *t, struct zc_topic_map *m);
ZC_HIDDEN void zc_topic_map_put(struct zc_topic_map *m);
/* Drops `pool` from the shared cache if it is still the entry at its index (a publisher leaving
 * lets go of its writable mapping; later readers map the pool read-only again). */
ZC_HIDDEN void zc_topic_map_forget_pool(struct zc_topic_map *m, struct zc_pool_map *pool);

/* Bumped by the atfork child handler. A handle opened before the fork is dead in the child: its
 * mappings are MADV_DONTFORK (absent) and its descriptors closed, so it may only be let go of. */
ZC_HIDDEN extern _Atomic unsigned zc_fork_generation;
static inline bool zc_inherited(const struct zc_topic *t)
{
	return t->fork_gen != atomic_load_explicit(&zc_fork_generation, memory_order_relaxed);
}

/* Subscriber k's ring, seen with a depth the caller validated (1 .. ring_cells). */
static inline struct zc_ring zc_sub_ring(const struct zc_topic *t, uint32_t k, uint32_t depth)
{
	return zc_ring_view(t->rings + (uint64_t)k * t->ring_cells, t->ring_cells, &t->subs[k],
			    depth);
}
/* A depth read once from a subscriber record, or 0 when it is out of range. */
static inline uint32_t zc_valid_depth(const struct zc_topic *t, uint32_t depth)
{
	return depth >= 1 && depth <= t->max_depth ? depth : 0;
}

/* segment.c: opens or creates the control segment and becomes a member (shared lock on byte 0). */
ZC_HIDDEN int zc_topic_attach(struct zc_topic *t, const char *domain, const char *topic,
			      const zcast_topic_opts *o, bool create);
/* Maps a topic for tools without becoming a member (no lock taken, nothing unlinked). */
ZC_HIDDEN int zc_topic_peek(struct zc_topic *t, const char *domain, const char *topic);
/* Leaves: drops the record's byte lock, the membership lock; the last member unlinks. */
ZC_HIDDEN void zc_topic_detach(struct zc_topic *t);
/* The segment mode asked for (topic.mode, default 0600), validated. */
ZC_HIDDEN int zc_segment_mode(const zcast_topic_opts *o, unsigned *mode);
ZC_HIDDEN void zc_segment_sweep_pools(const char *domain, uint64_t topic_hash);

/* members.c: records, liveness, type. */
/* Claims a member record of `kind` (OFD byte lock, then CAS FREE -> CLAIMED); on ELIMIT reclaims
 * dead members once and retries. */
ZC_HIDDEN int zc_topic_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index);
ZC_HIDDEN int zc_member_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index);
ZC_HIDDEN void zc_member_release_tool(struct zc_topic *t, uint32_t index);
/* Checks or sets the topic type; under the lock. */
ZC_HIDDEN int zc_topic_check_type(struct zc_topic *t, const char *type_name, const uint8_t *type_hash);
ZC_HIDDEN uint32_t zc_member_of_pub(const struct zc_topic *t, uint32_t i);
ZC_HIDDEN uint32_t zc_member_of_sub(const struct zc_topic *t, uint32_t i);
ZC_HIDDEN bool zc_member_alive(struct zc_topic *t, uint32_t member);
/* Under the lock: a member joined or left (graph events; sleepers re-scan their peers). */
ZC_HIDDEN void zc_topic_graph_changed(struct zc_topic *t);

/* repair.c: the topic lock with repair. 0 when held: if the last holder died, its intent was
 * finished or rolled back and dead members reclaimed; a wake it owed was performed. */
ZC_HIDDEN int zc_topic_lock(struct zc_topic *t);
/* Asks for the lines the next publish of p will touch (publish.c). */
ZC_HIDDEN void zc_pub_prefetch(zcast_pub *p);
ZC_HIDDEN void zc_topic_unlock(struct zc_topic *t);
/* We hold byte 0 exclusively on a valid segment: every recorded member is dead. Repairs and keeps
 * the topic (and its history). */
ZC_HIDDEN void zc_repair_alone(struct zc_topic *t);

/* reclaim.c (under the lock unless said otherwise). */
/* Reclaims dead members (liveness probes), stale holder bits, orphaned loans and pools. Returns the
 * number of dead members. */
ZC_HIDDEN int zc_reclaim(struct zc_topic *t);
/* Takes the lock (as a temporary tool member when t is not a member) and reclaims. */
ZC_HIDDEN int zc_reclaim_locked(struct zc_topic *t);
/* Frees what can be freed in pool p, clearing `stale` bits (NULL: none); unlinks an orphaned pool
 * whose slots are all free. */
ZC_HIDDEN void zc_reclaim_pool(struct zc_topic *t, uint32_t p, const uint64_t *stale);
/* Clears subscriber k's bit everywhere and empties its ring. */
ZC_HIDDEN void zc_reclaim_sub(struct zc_topic *t, uint32_t k);
/* Clears `bit` on the slot a descriptor names, if the slot still carries that generation. */
ZC_HIDDEN void zc_release_desc_bit(struct zc_topic *t, uint64_t desc, uint32_t bit);

/* drop_old.c (under the lock). */
/* Drops the entry peeked under `head` from subscriber k's ring (a DROP_OLD ring), intent first;
 * counts it and releases its bit. False when the head moved first (a take). */
ZC_HIDDEN bool zc_drop_head(struct zc_topic *t, uint32_t k, const struct zc_ring *ring, uint64_t head,
			    uint64_t desc);
/* A publisher's pool is empty: every DROP_OLD ring holding one of its entries drops from its head
 * through the oldest of them. Returns the number of rings that dropped one. */
ZC_HIDDEN int zc_unpin_pool(struct zc_topic *t, uint32_t pool);

/* history.c (under the lock). */
ZC_HIDDEN bool zc_history_contains(struct zc_topic *t, uint64_t desc);
/* Drops history down to `depth` entries. */
ZC_HIDDEN void zc_history_trim(struct zc_topic *t, uint32_t depth);
/* Appends a published descriptor, keeping at most `depth` entries. */
ZC_HIDDEN void zc_history_append(struct zc_topic *t, uint64_t desc, uint32_t depth);
/* Queues up to `want` of the newest entries, oldest first, to subscriber k's ring (late join). */
ZC_HIDDEN void zc_history_deliver(struct zc_topic *t, uint32_t k, const struct zc_ring *ring,
				  uint32_t want);

/* wake.c: every word a wait sleeps on, and the owed wake. */
/* Takes (queue room) and frees: publishers in zcast_publish_wait sleep on `space`. One FUTEX_WAKE
 * per announced wait, not per release (space_woken); _force wakes whatever the flag says (reclaim:
 * a releaser may have died between setting the flag and its wake). */
ZC_HIDDEN void zc_wake_space(struct zc_topic_hdr *h);
ZC_HIDDEN void zc_wake_space_force(struct zc_topic_hdr *h);
/* A thread of publisher record `pub` starts / stops waiting on `space` (counted twice, see wake.c);
 * forget: a reclaim of that dead publisher takes its count back out of space_waiters. Arm returns
 * the `space` value to sleep on (read before the announcement, see wake.c). */
ZC_HIDDEN uint32_t zc_space_arm(struct zc_topic *t, uint32_t pub);
ZC_HIDDEN void zc_space_disarm(struct zc_topic *t, uint32_t pub);
ZC_HIDDEN void zc_space_forget(struct zc_topic *t, uint32_t pub);
/* Every sleeping subscriber of the topic: the notify word and each sleeping RR member's word. */
ZC_HIDDEN void zc_wake_all(struct zc_topic *t);
/* Under the lock: marks a wake as owed; returns the token to clear it with. */
ZC_HIDDEN uint64_t zc_wake_owe(struct zc_topic_hdr *h);
/* After the wake: clears the mark if it is still ours. */
ZC_HIDDEN void zc_wake_paid(struct zc_topic_hdr *h, uint64_t token);
/* Performs a wake somebody owes (a crashed or preempted publisher's): all sleepers. */
ZC_HIDDEN void zc_wake_owed(struct zc_topic *t);

/* deaths.c: a per-process watcher thread that holds one pidfd per peer process and, when one dies,
 * reclaims it on every topic it was a member of (which wakes whoever waited on it). */
ZC_HIDDEN int zc_deaths_watch(struct zc_topic *t);
/* Syncs the watch with the member records when the graph word moved (cheap when it did not). */
ZC_HIDDEN void zc_deaths_rescan(struct zc_topic *t);
ZC_HIDDEN void zc_deaths_unwatch(struct zc_topic *t);

/* ---- topic lock primitive (lock.c) ---- */
#define ZC_LOCK_OWNER_DEAD 1
/* Returns 0, ZC_LOCK_OWNER_DEAD (now held, previous holder died: repair) or ZCAST_ETIMEDOUT. */
ZC_HIDDEN int zc_lock_acquire(struct zc_topic *t, int64_t timeout_ns);
ZC_HIDDEN void zc_lock_release(struct zc_topic *t);
ZC_HIDDEN _Atomic uint32_t *zc_lock_futex(struct zc_topic_hdr *h);

/* ---- handles ---- */
enum { ZC_MSG_LOAN = 1, ZC_MSG_CONSUMED = 2, ZC_MSG_RECEIVED = 3 };

struct zcast_msg {
	zcast_msg_stamp stamp; /* first: the public inline accessors read it (zcast.h) */
	uint64_t publisher_id; /* received: copied at take, as the stamp */
	_Atomic uint32_t refs;
	_Atomic uint32_t kind;
	uint32_t slot;
	uint64_t gen;
	uint8_t *data;
	size_t size;
	struct zc_pool_map *map;
	zcast_pub *pub; /* loans */
	zcast_sub *sub; /* received messages */
	bool compacted; /* a typed loan already compacted by a publish that then failed */
};

_Static_assert(offsetof(struct zcast_msg, stamp) == 0, "zcast_msg_sequence reads the stamp at 0");

#define ZC_PREFETCH_TARGETS 8

struct zcast_pub {
	struct zc_topic t;
	_Atomic int refs; /* the handle + outstanding loans */
	_Atomic int closed; /* zcast_pub_close was called: loans may only be dropped */
	uint32_t index;   /* publisher record */
	uint32_t pool_index;
	uint64_t id;
	uint32_t history_depth;
	uint32_t cursor;      /* next slot to try: private, the state word is the truth */
	int64_t reclaimed_ns; /* last reclaim an empty pool triggered (rate limit) */
	struct zc_pool_map *pool;
	uint32_t *targets; /* scratch, max_subs entries: subscriber index ... */
	uint32_t *depths;  /* ... and its depth, read once and validated */
	uint32_t *rr_wake; /* scratch: RR members to wake after unlock */
	/* Where the last publish pushed (publish.c, zc_pub_prefetch): written under the lock,
	 * read by the next loan and publish to ask for those lines early. Hints only. */
	_Atomic uint32_t hint_n;
	_Atomic uint32_t hint_sub[ZC_PREFETCH_TARGETS]; /* their cells: zc_seen_head.next_tail */
	struct zc_bell_cache *bells; /* doorbells of the subscribers (doorbell.c), lazily made */
	struct zc_seen_head *seen;   /* max_subs entries: ring heads last read (publish.c) */
	zcast_msg *_Atomic spare;    /* a dropped message struct, for the next loan */
};

/* A ring head the publisher read earlier, for the subscriber record that had member id `id`. A head
 * only moves forward while its record keeps its id (a join resets the ring under a new id), so an
 * old value is a lower bound: "tail - seen < depth" proves room without touching the line the
 * subscriber writes on every take. */
struct zc_seen_head {
	uint64_t id;
	uint64_t head;
	/* Our last push's tail + 1: where the next push likely goes. A hint, read by loans outside the
	 * lock too (zc_pub_prefetch): relaxed atomic. */
	_Atomic uint64_t next_tail;
};

/* Hooks of the layer above the core (the pollable descriptor, subfd.c): the core calls them, never
 * knows what they do. */
struct zc_sub_hooks {
	void (*drained)(zcast_sub *sub); /* a take found the queue empty */
	void (*closing)(zcast_sub *sub); /* zcast_sub_close begins */
};

struct zcast_sub {
	struct zc_topic t;
	_Atomic int refs; /* the handle + held messages */
	_Atomic int closing;
	uint32_t index;
	uint32_t depth, max_held, policy;
	uint64_t spin_ns;
	int64_t slice_ns; /* last-resort sleep slice (option), 0 = none */
	_Atomic uint32_t held;
	struct zc_sub_rec *rec;
	struct zc_ring ring;
	const struct zc_sub_hooks *_Atomic hooks;
	/* One-entry caches of take, claimed by exchange (concurrent takers never share an entry): the
	 * pool map the last take used (zc_pool_get_hinted) and a released message struct. A take right
	 * after a wake-up finds the topic's map lock and malloc cold: ~0.4 µs saved. */
	struct zc_pool_map *_Atomic map_hint;
	zcast_msg *_Atomic spare;
	_Atomic uint64_t seen_tail; /* the ring tail take read last (zc_ring_peek_seen) */
	/* The slot header and payload line of the last take. A loan reuses the slot released last,
	 * so the next message is most likely there: a woken subscriber asks for both lines beside its
	 * ring cell, not after it (hints: a prefetch of a stale address does nothing). */
	_Atomic(const void *) next_lines[2];
	void *_Atomic hook_data; /* the layer above's per-subscriber state (read by its hooks) */
	/* The fields from `refs` to here are the ones takes and wake-ups use: kept together. */
	uint64_t id;
};

ZC_HIDDEN void zc_pub_unref(zcast_pub *pub);
ZC_HIDDEN void zc_sub_unref(zcast_sub *sub);
ZC_HIDDEN bool zc_sub_has_queued(zcast_sub *sub);
/* Queued, and below max_held: a take would succeed (what wait sets and executors wait for). */
ZC_HIDDEN bool zc_sub_ready(zcast_sub *sub);
/* Announces a sleeper on `sub`. Returns false when something is queued already (not armed).
 * Otherwise the caller sleeps on *word while it still holds *val (futex wait / waitv), then calls
 * zc_sub_disarm exactly once. */
ZC_HIDDEN bool zc_sub_arm(zcast_sub *sub, _Atomic uint32_t **word, uint32_t *val);
ZC_HIDDEN void zc_sub_disarm(zcast_sub *sub);
/* The deadline of one sleep of a subscriber: `deadline` (absolute, < 0 = none), cut to the
 * subscriber's last-resort slice when it has one. */
static inline int64_t zc_sub_sleep_until(const zcast_sub *sub, int64_t deadline, int64_t now)
{
	if (sub->slice_ns <= 0)
		return deadline;
	int64_t slice = zc_after(now, sub->slice_ns);
	return deadline < 0 || deadline > slice ? slice : deadline;
}
/* Releases a received message's hold (last local reference) and frees m, or keeps it as the
 * subscriber's spare for the next take. */
ZC_HIDDEN void zc_sub_release(zcast_sub *sub, zcast_msg *m);
/* Returns an unpublished loan's slot; frees m or keeps it (zc_pub_release_msg). */
ZC_HIDDEN void zc_pub_return_loan(zcast_pub *pub, zcast_msg *m);
/* The last local reference of a loan or published message is gone: frees m, or keeps it as the
 * publisher's spare for the next loan; then drops m's reference on the publisher. */
ZC_HIDDEN void zc_pub_release_msg(zcast_pub *pub, zcast_msg *m);

#endif
