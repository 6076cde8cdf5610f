/* The protocol layer of libzcast (src/proto): the shared-memory segments other processes see and
 * everything that reads or writes them (layout, rings, slots, the topic lock and its repair, reclaim,
 * history, wake words, members, doorbells). Shared memory is untrusted input here. Uses src/os only. */
#ifndef ZC_PROTO_INTERNAL_H
#define ZC_PROTO_INTERNAL_H

#include "layout.h"
#include "os_internal.h"
#include "ring.h"

/* ---- names (names.c) ---- */
ZC_HIDDEN const char *zc_domain_or_default(const char *domain);
/* Validates both names with a message that says what is wanted. */
ZC_HIDDEN int zc_check_names(const char *topic, const char *domain);
/* "/zcast.<domain>.<topic with '/' as '.'>" and "/zcast.<domain>.@<topic hash>.<pool id>" */
ZC_HIDDEN void zc_topic_shm_name(char *out, size_t n, const char *domain, const char *topic);
ZC_HIDDEN void zc_pool_shm_name(char *out, size_t n, const char *domain, uint64_t topic_hash,
				uint64_t pool_id);
ZC_HIDDEN uint64_t zc_hash(const char *s);

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
	/* SYNC: payload-map; partner proto/pool.c zc_pool_payload */
	return m->payload ? m->payload : atomic_load_explicit(&m->payload_ro, memory_order_acquire);
}
ZC_HIDDEN void zc_pool_unlink(struct zc_topic *t, uint64_t id);

/* ---- holder bits: clearing one, and freeing the slot once all are clear (slot_release.c) ---- */
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
	/* Under the lock: the owed-wake mark found at the process's last acquisition. One copy per
	 * process and topic: *owed_seen is the shared mapping's (set by the layer above), else ours. */
	uint64_t owed_seen_own;
	uint64_t *owed_seen;
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
	/* The process's one mapping of this segment, kept by the layer above (struct zc_segment_cache). */
	const struct zc_segment_cache *cache;
	struct zc_topic_map *shared; /* opaque here: the cache's entry this handle holds */
	pthread_mutex_t *maps_mu;    /* the shared map's: guards maps */
	struct zc_pool_map **maps;   /* max_pools entries, lazily filled, shared by the process */
	uint64_t death_watch;	     /* registration with the death watcher (deaths.c), 0 = none */
	_Atomic uint32_t graph_seen; /* graph word at the last peer rescan */
};

/* A handle opened before a fork, in the child (zc_fork_generation, os_internal.h). */
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

/* How the handles of one process share one mapping of a control segment. The table lives in the
 * layer above (core/topic_map.c), which hands it to attach and peek: the protocol maps and validates
 * a segment, the table decides who else may use that mapping. */
struct zc_segment_cache {
	/* If the process has mapped that file already, points t at that mapping (a reference) and
	 * returns true (its header was checked then). */
	bool (*use_existing)(struct zc_topic *t, uint64_t dev, uint64_t ino, size_t size);
	/* Registers a fresh mapping validated into *shape (shape->hdr, size bytes) and points t at it
	 * (or at the one another thread registered first; the fresh one is then unmapped). */
	int (*share)(struct zc_topic *t, const struct zc_topic *shape, uint64_t dev, uint64_t ino,
		     size_t size);
	/* Drops t's reference (t->shared, NULL allowed). */
	void (*put)(struct zc_topic *t);
};

/* segment.c: opens or creates the control segment and becomes a member (shared lock on byte 0). */
ZC_HIDDEN int zc_topic_attach(struct zc_topic *t, const struct zc_segment_cache *cache,
			      const char *domain, const char *topic, const zcast_topic_opts *o,
			      bool create);
/* Maps a topic for tools without becoming a member (no lock taken, nothing unlinked). */
ZC_HIDDEN int zc_topic_peek(struct zc_topic *t, const struct zc_segment_cache *cache,
			    const char *domain, const char *topic);
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

/* topic_lock.c: the topic lock with repair. 0 when held: if the last holder died, its intent was
 * finished or rolled back and dead members reclaimed; a wake it owed was performed. */
ZC_HIDDEN int zc_topic_lock(struct zc_topic *t);
/* The same for work that must be done while the process lives (a close retiring its record): waits
 * for a live holder, woken by its release or death like every locker, up to 30 s (a scribbled word
 * naming a live member that never moves), then ZCAST_ETIMEDOUT. */
ZC_HIDDEN int zc_topic_lock_for_close(struct zc_topic *t);
/* zc_topic_lock, but a process-local `stop` word (NULL: none) that no longer holds its value ends
 * the wait with ZCAST_ESTALE: whoever changes it wakes it (zc_futex_wake_private) and the wait
 * ends then, not at the end of its try (a close of the waiting handle). */
ZC_HIDDEN int zc_topic_lock_unless(struct zc_topic *t, const struct zc_wword *stop);
/* zc_topic_lock_unless, tried again while it timed out, the caller's `deadline` (absolute; 0: one
 * try) has time left and `again(arg)`, asked before each retry (NULL: not asked), says to go on:
 * work a wait depends on is not skipped because a live holder was slow. The first try is inline
 * (on the publish path, no more than a zc_topic_lock call); zc_topic_lock_retry makes the rest. */
ZC_HIDDEN int zc_topic_lock_retry(struct zc_topic *t, int64_t deadline, const struct zc_wword *stop,
				  bool (*again)(void *), void *arg);
static inline int zc_topic_lock_until(struct zc_topic *t, int64_t deadline,
				      const struct zc_wword *stop, bool (*again)(void *), void *arg)
{
	int r = zc_topic_lock_unless(t, stop);
	return r == ZCAST_ETIMEDOUT ? zc_topic_lock_retry(t, deadline, stop, again, arg) : r;
}
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
/* rr_handover.c: a dead (ACTIVE) or closing (DRAINING) BALANCE_RR member k's queued messages go
 * to live members of its group with room (under the lock; k's bit on each is cleared), if the
 * group's name starts with ZC_HANDOVER_PREFIX (services' server groups). Returns how many were
 * moved. */
#define ZC_HANDOVER_PREFIX "_handover_"
ZC_HIDDEN uint32_t zc_rr_handover(struct zc_topic *t, uint32_t k);
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
/* Queues up to `want` of the newest entries, oldest first, to subscriber k's ring (late join).
 * Returns how many it queued. */
ZC_HIDDEN uint32_t zc_history_deliver(struct zc_topic *t, uint32_t k, const struct zc_ring *ring,
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

/* ---- topic lock word (lock_word.c) ---- */
#define ZC_LOCK_OWNER_DEAD 1
/* Returns 0, ZC_LOCK_OWNER_DEAD (now held, previous holder died: repair), ZCAST_ETIMEDOUT or, once
 * `stop` (NULL: none) no longer holds its value, ZCAST_ESTALE. */
ZC_HIDDEN int zc_lock_acquire(struct zc_topic *t, int64_t timeout_ns, const struct zc_wword *stop);
ZC_HIDDEN void zc_lock_release(struct zc_topic *t);
ZC_HIDDEN _Atomic uint32_t *zc_lock_futex(struct zc_topic_hdr *h);

#endif
