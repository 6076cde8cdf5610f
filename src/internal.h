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

#include "layout.h"
#include "zcast/zcast.h"

#define ZC_HIDDEN __attribute__((visibility("hidden")))
#define ZC_UNLIKELY(x) __builtin_expect(!!(x), 0)

static inline void zc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- errors (error.c) ---- */
/* Records a detailed message for zcast_last_error() and returns `code`. */
ZC_HIDDEN int zc_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ZC_HIDDEN int zc_errno(int code, const char *what); /* appends strerror(errno) */

/* ---- time (clock.c) ---- */
ZC_HIDDEN int64_t zc_now_ns(void);
ZC_HIDDEN struct timespec zc_ts(int64_t ns);

/* ---- crash points for fault injection (crash.c); compiled in test builds only ---- */
#ifdef ZCAST_FAULT_INJECTION
ZC_HIDDEN void zc_crash_point(const char *name);
#define ZC_CRASH(name) zc_crash_point(name)
#else
#define ZC_CRASH(name) ((void)0)
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

/* ---- segments and OFD locks (shm.c) ---- */
/* Creates an exclusive new segment of `size` bytes, sized with posix_fallocate (ENOMEM if /dev/shm
 * is full). Returns fd or a negative code. */
ZC_HIDDEN int zc_shm_create(const char *name, size_t size, unsigned mode);
ZC_HIDDEN void *zc_map(int fd, size_t size, off_t off, bool writable, bool populate);
/* OFD byte locks. Return 0, or ZCAST_EAGAIN when another open file description holds it. */
ZC_HIDDEN int zc_ofd_lock(int fd, off_t byte, bool exclusive);
ZC_HIDDEN int zc_ofd_unlock(int fd, off_t byte);
/* True when some open file description other than fd's holds a lock on `byte`. */
ZC_HIDDEN bool zc_ofd_held(int fd, off_t byte);
/* Remembers fd so that a forked child closes it (DESIGN 2.6). */
ZC_HIDDEN void zc_fd_register(int fd);
ZC_HIDDEN void zc_fd_unregister(int fd);

/* ---- futex (futex.c) ---- */
/* Waits while *w == val, until abs_deadline_ns (CLOCK_MONOTONIC; < 0 = forever). Shared futex. */
ZC_HIDDEN int zc_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns);
ZC_HIDDEN void zc_futex_wake(_Atomic uint32_t *w, int n);

/* ---- pool mappings (pool.c) ---- */
struct zc_pool_map {
	_Atomic int refs;
	uint32_t index; /* pool record index */
	uint64_t id;
	bool writable;  /* payload mapped writable (the owning publisher) */
	uint32_t slot_count, bitmap_words;
	uint64_t slot_size, slot_stride, payload_off, size;
	uint64_t dev, ino;
	uint8_t *base;    /* header + slot headers, read-write */
	uint8_t *payload; /* payload area; read-only unless writable */
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
ZC_HIDDEN void zc_pool_unlink(struct zc_topic *t, uint64_t id);

/* ---- holder bitmaps and slot reclaim (holders.c) ---- */
/* Clears `bit` of slot i; if the bitmap is then all zero, frees the slot (one CAS from
 * (PUBLISHED, gen)). Returns true when this call freed it. */
ZC_HIDDEN bool zc_slot_release_bit(struct zc_pool_map *m, uint32_t i, uint32_t bit, uint64_t gen);
/* Frees slot i if it is (PUBLISHED, gen) with an all-zero bitmap. */
ZC_HIDDEN bool zc_slot_try_free(struct zc_pool_map *m, uint32_t i, uint64_t gen);
ZC_HIDDEN bool zc_slot_bits_zero(struct zc_pool_map *m, uint32_t i);
/* Moves slot i from (from_state, gen) to (FREE, gen + 1) and wakes a waiting loaner. */
ZC_HIDDEN bool zc_slot_free(struct zc_pool_map *m, uint32_t i, uint32_t from_state, uint64_t gen);

/* ---- topic attachment (topic.c) ---- */
enum zc_kind { ZC_KIND_PUB, ZC_KIND_SUB, ZC_KIND_TOOL };

struct zc_topic {
	int fd; /* our own open file description: holds our OFD locks */
	struct zc_topic_hdr *hdr;
	size_t map_size;
	uint32_t member; /* member index: lock owner id and OFD byte - 1 */
	bool is_member;
	bool peek; /* mapped for reading by a tool: not a member, takes no lock */
	int reclaimed_at_attach; /* dead members cleaned up because we found the topic abandoned */
	char domain[40];
	char name[ZC_NAME_MAX + 8];
	char shm_name[300];
	/* Limits, read once at attach and validated: never re-read from shared memory. */
	uint32_t max_pubs, max_subs, max_depth, history_cap, max_pools, max_groups, n_members,
		bitmap_words;
	uint64_t topic_hash;
	struct zc_pub_rec *pubs;
	struct zc_sub_rec *subs;
	struct zc_tool_rec *tools;
	struct zc_pool_rec *pools;
	struct zc_group_rec *groups;
	_Atomic uint64_t *rings;
	_Atomic uint64_t *history;
	pthread_mutex_t maps_mu;
	struct zc_pool_map **maps; /* max_pools entries, lazily filled */
};

static inline _Atomic uint64_t *zc_ring(const struct zc_topic *t, uint32_t sub)
{
	return t->rings + (uint64_t)sub * t->max_depth;
}

/* Opens or creates the control segment and becomes a member (shared lock on byte 0). */
ZC_HIDDEN int zc_topic_attach(struct zc_topic *t, const char *domain, const char *topic,
			      const zcast_topic_opts *o, bool create);
/* Maps a topic for tools without becoming a member (no lock taken, nothing unlinked). */
ZC_HIDDEN int zc_topic_peek(struct zc_topic *t, const char *domain, const char *topic);
/* Runs cleanup under the lock, as a temporary tool member if not a member. Returns dead count. */
ZC_HIDDEN int zc_topic_gc_once(struct zc_topic *t);
/* Claims a member record of `kind` (OFD byte lock, then CAS FREE -> CLAIMED). */
ZC_HIDDEN int zc_topic_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index);
/* Checks or sets the topic type; under the lock. */
ZC_HIDDEN int zc_topic_check_type(struct zc_topic *t, const char *type_name, const uint8_t *type_hash);
/* Leaves: drops the record's byte lock, the membership lock; the last member unlinks. */
ZC_HIDDEN void zc_topic_detach(struct zc_topic *t);
ZC_HIDDEN uint32_t zc_member_of_pub(const struct zc_topic *t, uint32_t i);
ZC_HIDDEN uint32_t zc_member_of_sub(const struct zc_topic *t, uint32_t i);

/* The topic lock with recovery: 0 when held (repairs first if the last holder died). */
ZC_HIDDEN int zc_topic_lock(struct zc_topic *t);
ZC_HIDDEN void zc_topic_unlock(struct zc_topic *t);
/* Under the lock: a member joined or left (graph events). */
ZC_HIDDEN void zc_topic_graph_changed(struct zc_topic *t);
/* Under the lock: reclaims dead members. Returns how many. */
ZC_HIDDEN int zc_topic_cleanup(struct zc_topic *t);
/* Under the lock: clears subscriber i's bit everywhere and resets its ring. */
ZC_HIDDEN void zc_sub_sweep(struct zc_topic *t, uint32_t i);
/* Under the lock: drops history down to `depth` entries. */
ZC_HIDDEN void zc_history_trim(struct zc_topic *t, uint32_t depth);
ZC_HIDDEN bool zc_member_alive(struct zc_topic *t, uint32_t member);

/* ---- topic lock primitive (lock.c) ---- */
#define ZC_LOCK_OWNER_DEAD 1
/* Returns 0, ZC_LOCK_OWNER_DEAD (now held, previous holder died: repair) or ZCAST_ETIMEDOUT. */
ZC_HIDDEN int zc_lock_acquire(struct zc_topic *t, int64_t timeout_ns);
ZC_HIDDEN void zc_lock_release(struct zc_topic *t);

/* ---- handles ---- */
enum { ZC_MSG_LOAN = 1, ZC_MSG_CONSUMED = 2, ZC_MSG_RECEIVED = 3 };

struct zcast_msg {
	_Atomic uint32_t refs;
	_Atomic uint32_t kind;
	uint32_t slot;
	uint64_t gen;
	uint8_t *data;
	size_t size;
	struct zc_pool_map *map;
	zcast_pub *pub; /* loans */
	zcast_sub *sub; /* received messages */
};

struct zcast_pub {
	struct zc_topic t;
	_Atomic int refs; /* the handle + outstanding loans */
	_Atomic int closed; /* zcast_pub_close was called: loans may only be dropped */
	uint32_t index;   /* publisher record */
	uint32_t pool_index;
	uint64_t id;
	uint32_t history_depth;
	uint32_t cursor; /* next slot to try: private, the state word is the truth */
	struct zc_pool_map *pool;
	uint32_t *targets; /* scratch, max_subs entries */
	uint32_t *rr_wake; /* scratch: RR members to wake after unlock */
	uint8_t *drop_mark;
};

struct zcast_sub {
	struct zc_topic t;
	_Atomic int refs; /* the handle + held messages */
	_Atomic int closing;
	uint32_t index;
	uint64_t id;
	uint32_t depth, max_held, policy;
	uint64_t spin_ns;
	_Atomic uint32_t held;
	struct zc_sub_rec *rec;
	_Atomic uint64_t *ring;
	struct zc_subfd *_Atomic fdw; /* pollable descriptor (subfd.c), or NULL */
	/* One-entry caches of take, claimed by exchange (concurrent takers never share an entry): the
	 * pool map the last take used (zc_pool_get_hinted) and a released message struct. A take right
	 * after a wake-up finds the topic's map lock and malloc cold: ~0.4 µs saved. */
	struct zc_pool_map *_Atomic map_hint;
	zcast_msg *_Atomic spare;
};

ZC_HIDDEN void zc_pub_unref(zcast_pub *pub);
ZC_HIDDEN void zc_sub_unref(zcast_sub *sub);
ZC_HIDDEN bool zc_sub_has_queued(zcast_sub *sub);
/* Announces a sleeper on `sub` (DESIGN 2.5). Returns false when something is queued already (not
 * armed). Otherwise the caller sleeps on *word while it still holds *val (futex wait / waitv), then
 * calls zc_sub_disarm exactly once. */
ZC_HIDDEN bool zc_sub_arm(zcast_sub *sub, _Atomic uint32_t **word, uint32_t *val);
ZC_HIDDEN void zc_sub_disarm(zcast_sub *sub);
/* A publisher wakes its sleepers after it unlocked the topic; killed in between, it leaves them
 * asleep beside queued messages, and no survivor is bound to notice soon. So a subscriber sleeps
 * at most this long at a time and then re-checks its queue: a lost wake-up costs at most this
 * delay, an idle subscriber one wake-up per slice. */
#define ZC_SUB_SLEEP_SLICE_NS 1000000000LL
/* The deadline of one sleep of a subscriber: `deadline` (absolute, < 0 = none), cut to one slice
 * after `now`. */
static inline int64_t zc_sub_sleep_until(int64_t deadline, int64_t now)
{
	int64_t slice = now + ZC_SUB_SLEEP_SLICE_NS;
	return deadline < 0 || deadline > slice ? slice : deadline;
}
/* Pollable descriptor hooks (subfd.c): take found the queue empty / the handle closes. */
ZC_HIDDEN void zc_subfd_rearm(zcast_sub *sub);
ZC_HIDDEN void zc_subfd_detach(zcast_sub *sub);
/* Releases a received message's hold (last local reference) and frees m, or keeps it as the
 * subscriber's spare for the next take. */
ZC_HIDDEN void zc_sub_release(zcast_sub *sub, zcast_msg *m);
/* Returns an unpublished loan's slot. */
ZC_HIDDEN void zc_pub_return_loan(zcast_pub *pub, zcast_msg *m);

#endif
