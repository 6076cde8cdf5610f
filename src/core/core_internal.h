/* The core layer of libzcast (src/core): process-local handles (publishers, subscribers,
 * messages), the publish and take paths, the process's table of topic mappings, the death watcher
 * and each publisher's doorbell cache. Uses src/proto and src/os. */
#ifndef ZC_CORE_INTERNAL_H
#define ZC_CORE_INTERNAL_H

#include "doorbell.h"
#include "proto_internal.h"

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
/* The table as the protocol layer uses it (zc_topic_attach, zc_topic_peek). */
ZC_HIDDEN extern const struct zc_segment_cache zc_topic_maps;

/* deaths.c: a per-process watcher thread that holds one pidfd per peer process and, when one dies,
 * reclaims it on every topic it was a member of (which wakes whoever waited on it). */
ZC_HIDDEN int zc_deaths_watch(struct zc_topic *t);
/* Syncs the watch with the member records when the graph word moved (cheap when it did not). */
ZC_HIDDEN void zc_deaths_rescan(struct zc_topic *t);
ZC_HIDDEN void zc_deaths_unwatch(struct zc_topic *t);
/* A function of the layer above (services, svc/client_deaths.c) the watcher calls after each
 * reclaim it ran and the follower after each membership change it saw, outside the watcher's
 * lock, in the watcher's threads. One hook per process; the core does not know what it does. */
ZC_HIDDEN void zc_deaths_set_hook(void (*fn)(void));

/* Asks for the lines the next publish of p will touch (publish.c). */
ZC_HIDDEN void zc_pub_prefetch(zcast_pub *p);

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
	uint32_t mark;	/* loans: zcast_msg_set_mark's, 0 none */
};

_Static_assert(offsetof(struct zcast_msg, stamp) == 0, "zcast_msg_sequence reads the stamp at 0");

#define ZC_PREFETCH_TARGETS 8

struct zcast_pub {
	struct zc_topic t;
	_Atomic int refs; /* the handle + outstanding loans */
	/* zcast_pub_close was called: loans may only be dropped. A futex word: a publish waiting
	 * for the topic lock sleeps on it too (publish.c). */
	_Atomic uint32_t closed;
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
	/* Set by the layer above (a service client's request publisher) before its first publish: a
	 * publish that reaches no BALANCE_RR member fails with ZCAST_ENOSERVER and the loan stays the
	 * caller's, decided under the lock by the publish itself (no liveness probe first). */
	bool needs_rr;
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
	uint32_t history; /* messages queued from the topic's history at the join */
	uint64_t spin_ns;
	int64_t slice_ns; /* last-resort sleep slice (option), 0 = none */
	/* The last guard slice found this subscriber's wake-up state tampered with (sub_guard.c):
	 * the next sleeps end after ZC_GUARD_RECHECK_NS instead of ZC_GUARD_SLICE_NS. */
	_Atomic bool wake_tampered;
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
/* Stops s being a target (its record DRAINING, no longer matched) before it closes: a
 * BALANCE_RR member of a handover group (ZC_HANDOVER_PREFIX) first gives its queued messages to the
 * group's other live members with room, as if it had died. It can still take what is left.
 * zcast_sub_close does the same first. */
ZC_HIDDEN void zc_sub_retire(zcast_sub *sub);
/* Queued, and below max_held: a take would succeed (what wait sets and executors wait for). */
ZC_HIDDEN bool zc_sub_ready(zcast_sub *sub);
/* Announces a sleeper on `sub`. Returns false when something is queued already (not armed).
 * Otherwise the caller sleeps on *word while it still holds *val (futex wait / waitv), then calls
 * zc_sub_disarm exactly once. */
ZC_HIDDEN bool zc_sub_arm(zcast_sub *sub, _Atomic uint32_t **word, uint32_t *val);
ZC_HIDDEN void zc_sub_disarm(zcast_sub *sub);
/* Guard slices (docs/CRASH_SAFETY.md, "Hostile wake-up state"): every sleep of a wait ends after
 * at most ZC_GUARD_SLICE_NS, re-checks its queue and its own announcement, and sleeps again; while
 * the last check found the announcement tampered with, after ZC_GUARD_RECHECK_NS. Not the wake-up
 * mechanism: the last resort against a member that rewrites another's wake-up state. */
#define ZC_GUARD_SLICE_NS 1000000000ll
#define ZC_GUARD_RECHECK_NS 10000000ll
#ifdef ZCAST_FAULT_INJECTION
/* Test builds: $ZCAST_NO_GUARD_SLICE=1 turns guard slices off, so that the lost-wake tests see a
 * lost wake as a hang instead of a 1 s delay (sub_guard.c). */
ZC_HIDDEN bool zc_guard_off(void);
#else
static inline bool zc_guard_off(void)
{
	return false;
}
#endif
static inline int64_t zc_guard_slice(bool tampered)
{
	if (zc_guard_off())
		return INT64_MAX;
	return tampered ? ZC_GUARD_RECHECK_NS : ZC_GUARD_SLICE_NS;
}
/* The deadline of one sleep of a subscriber: `deadline` (absolute, < 0 = none), cut to the guard
 * slice, or to the subscriber's own last-resort slice when that is shorter. */
static inline int64_t zc_sub_sleep_until(const zcast_sub *sub, int64_t deadline, int64_t now)
{
	int64_t ns = zc_guard_slice(atomic_load_explicit(&sub->wake_tampered, memory_order_relaxed));
	if (sub->slice_ns > 0 && sub->slice_ns < ns)
		ns = sub->slice_ns;
	int64_t slice = zc_after(now, ns);
	return deadline < 0 || deadline > slice ? slice : deadline;
}
/* After a guard slice ran out while `sub` was still announced (sub_guard.c): checks the record's
 * wake-up state, repairs what a hostile member rewrote, and sets sub->wake_tampered. Returns it. */
ZC_HIDDEN bool zc_sub_guard_check(zcast_sub *sub);
/* Releases a received message's hold (last local reference) and frees m, or keeps it as the
 * subscriber's spare for the next take. */
ZC_HIDDEN void zc_sub_release(zcast_sub *sub, zcast_msg *m);
/* Returns an unpublished loan's slot; frees m or keeps it (zc_pub_release_msg). */
ZC_HIDDEN void zc_pub_return_loan(zcast_pub *pub, zcast_msg *m);
/* The last local reference of a loan or published message is gone: frees m, or keeps it as the
 * publisher's spare for the next loan; then drops m's reference on the publisher. */
ZC_HIDDEN void zc_pub_release_msg(zcast_pub *pub, zcast_msg *m);

/* ---- a publisher's cache (bell_cache.c): one entry per subscriber record, no lock, no syscall
 * while the references stay the same ---- */
/* Under the topic lock, after pushing to subscriber k whose record holds `ref`: sets its bit and,
 * if the owner sleeps, bumps the word and remembers the doorbell for zc_bell_wake_pending. */
ZC_HIDDEN void zc_bell_push(zcast_pub *p, uint32_t k, uint64_t ref);
/* Doorbells zc_bell_push found asleep (the wake is then owed). */
ZC_HIDDEN uint32_t zc_bell_pending(const zcast_pub *p);
/* After the unlock: wakes them. */
ZC_HIDDEN void zc_bell_wake_pending(zcast_pub *p);
ZC_HIDDEN void zc_bell_cache_free(zcast_pub *p);

#endif
