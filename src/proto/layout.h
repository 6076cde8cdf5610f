/* The shared-memory layout: the contract between every process of a topic.
 * Changing anything here changes ZC_LAYOUT_VERSION. Every field says who may write it.
 * Readers never trust these values: every index, offset and count is range checked before use. */
#ifndef ZC_LAYOUT_H
#define ZC_LAYOUT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#define ZC_TOPIC_MAGIC 0x5a43415354544f50ull /* "ZCASTTOP" */
#define ZC_POOL_MAGIC 0x5a43415354504f4cull  /* "ZCASTPOL" */
#define ZC_LAYOUT_VERSION 9u

#define ZC_CACHELINE 64
#define ZC_NAME_MAX 200
#define ZC_TYPE_NAME_MAX 64
#define ZC_GROUP_NAME_MAX 32
#define ZC_TOOL_RECORDS 4 /* extra member records for tools (gc, remove): lock owners too */

/* Hard limits: what fits in a descriptor and a bitmap. */
#define ZC_MAX_SUBS_LIMIT 1024u
#define ZC_MAX_PUBS_LIMIT 256u
#define ZC_MAX_POOLS_LIMIT 1024u /* 10 bits of a descriptor */
#define ZC_MAX_SLOTS_LIMIT (1u << 22)
#define ZC_MAX_DEPTH_LIMIT 65536u
#define ZC_MAX_HISTORY_LIMIT 4096u

/* ---- slot state word: (generation << 2) | state. Only truth about who owns a slot. ---- */
enum { ZC_SLOT_FREE = 0, ZC_SLOT_LOANED = 1, ZC_SLOT_PUBLISHED = 2 };
#define ZC_STATE(st, gen) (((uint64_t)(gen) << 2) | (uint64_t)(st))
#define ZC_STATE_ST(w) ((uint32_t)((w)&3u))
#define ZC_STATE_GEN(w) ((w) >> 2)

/* ---- descriptor: what travels through a ring: pool (10) | slot (22) | generation low 32. ---- */
#define ZC_DESC(pool, slot, gen)                                                                   \
	(((uint64_t)(pool) << 54) | ((uint64_t)(slot) << 32) | ((uint64_t)(gen)&0xffffffffu))
#define ZC_DESC_POOL(d) ((uint32_t)((d) >> 54))
#define ZC_DESC_SLOT(d) ((uint32_t)(((d) >> 32) & 0x3fffffu))
#define ZC_DESC_GEN(d) ((uint32_t)(d))

/* ---- holder bitmap: bit 0 of word 0 is the history bit; subscriber i owns bit i + 1. ---- */
#define ZC_HIST_BIT 0u
#define ZC_SUB_BIT(i) ((uint32_t)(i) + 1u)
#define ZC_BITMAP_WORDS(max_subs) (((max_subs) + 1u + 63u) / 64u)

/* ---- ring positions are 48 bits and wrap; a ring has a power-of-two number of cells, which
 * divides 2^48, so `pos & mask` stays continuous across the wrap. The head word is consumer
 * position (48 bits) | producer drop count (16 bits): a pop increments the position only, a
 * DROP_OLD drop both, so crash recovery can tell whether the lock holder's drop happened. The tail
 * word holds a 48-bit position. */
#define ZC_POS_MASK 0xffffffffffffull
#define ZC_HEAD_POS(h) ((h)&ZC_POS_MASK)
#define ZC_HEAD_DROPS(h) ((uint32_t)((h) >> 48))
#define ZC_HEAD_MAKE(pos, drops) (((uint64_t)(drops) << 48) | ((pos)&0xffffffffffffull))

/* Member record states. A record is claimed lock-free (OFD byte lock first, then CAS FREE->CLAIMED)
 * and made ACTIVE under the topic lock. */
enum { ZC_REC_FREE = 0, ZC_REC_CLAIMED = 1, ZC_REC_ACTIVE = 2, ZC_REC_DRAINING = 3 };
/* DRAINING: a closed subscriber that still holds messages: no longer a target, still a holder. */
/* Pool record states: ORPHAN = its publisher left; freed once every slot is FREE. */
enum { ZC_POOL_UNUSED = 0, ZC_POOL_ACTIVE = 1, ZC_POOL_ORPHAN = 2 };

/* Intent of the lock holder, written before it mutates anything so that the next locker can
 * finish or roll back after a crash. Written only under the topic lock. */
enum { ZC_OP_NONE = 0, ZC_OP_PUBLISH = 1 };
#define ZC_NO_SUB 0xffffffffu
/* A field that one process writes and a process that may be hostile or dead reads: a struct, so a
 * plain read or write of it does not compile. ZC_LOAD copies it once (a relaxed atomic load: the
 * compiler cannot read it again), ZC_STORE writes it in one store. */
typedef struct {
	uint32_t v;
} zc_shared32;
typedef struct {
	uint64_t v;
} zc_shared64;
#define ZC_LOAD(f) __atomic_load_n(&(f).v, __ATOMIC_RELAXED)
#define ZC_STORE(f, x) __atomic_store_n(&(f).v, (x), __ATOMIC_RELAXED)

struct zc_intent {
	uint32_t op; /* atomic (release by the holder): see the SYNC: intent comments */
	zc_shared32 drop_sub;	/* ring being drop-advanced, or ZC_NO_SUB */
	zc_shared64 desc;	/* slot being published */
	zc_shared64 drop_desc;	/* descriptor being dropped from drop_sub's ring */
	zc_shared64 drop_head;	/* that ring's head word before the drop CAS */
	zc_shared64 evict_desc; /* history entry being evicted, or 0 with evict_pending = 0 */
	zc_shared32 evict_pending;
	zc_shared32 mark;	/* the publish's mark (zcast_msg_set_mark), 0: none */
	zc_shared64 seq; /* sequence of the publish: a target's push_seq equal to it is this push */
	uint64_t pad2;
};

/* Topic lock: one 64-bit word, epoch (32) << 32 | waiters bit | (member index + 1), 0 in the low
 * half when free. Waiters sleep on the low half (a futex word). Every acquisition bumps the epoch,
 * so a takeover CAS that compares the whole word cannot succeed against a later, legitimate holder
 * that reuses the same member record (no ABA). The owner is probed by its OFD byte when a waiter
 * waits. */
#define ZC_LOCK_WAITERS 0x80000000u
#define ZC_LOCK_LOW(w) ((uint32_t)(w))
#define ZC_LOCK_EPOCH(w) ((uint32_t)((w) >> 32))
#define ZC_LOCK_MAKE(epoch, low) (((uint64_t)(epoch) << 32) | (uint64_t)(low))
struct zc_lock {
	_Atomic uint64_t word;
	uint64_t pad[7];
};

struct zc_topic_hdr {
	/* Written once by the creator (magic last, release). */
	_Atomic uint64_t magic;
	uint32_t layout_version;
	uint32_t header_size;
	uint64_t segment_size;
	uint32_t max_pubs, max_subs, max_depth, history_cap;
	uint32_t max_pools, max_groups, n_members, bitmap_words;
	uint32_t mode_unused; /* modes come from each opener's options and fstat, never from here */
	_Atomic uint32_t retain; /* under lock */
	uint64_t off_pubs, off_subs, off_tools, off_pools, off_groups, off_rings, off_history;
	uint64_t topic_hash; /* FNV-1a of the topic name: names the pools */
	char name[ZC_NAME_MAX + 8];

	/* Type: set by the creator, or by the first typed opener of an untyped topic (under lock).
	 */
	char type_name[ZC_TYPE_NAME_MAX];
	uint8_t type_hash[32]; /* ZCAST_TYPE_HASH_SIZE: RIHS01 or ZCAST_TYPE hash (zcast.h) */
	_Atomic uint32_t typed;
	uint32_t pad0;

	alignas(ZC_CACHELINE) struct zc_lock lock;

	/* Under the topic lock. */
	alignas(ZC_CACHELINE) struct zc_intent intent;
	_Atomic uint64_t next_id;  /* member and pool ids; never reused within the topic */
	_Atomic uint64_t last_seq; /* last published sequence number */
	_Atomic uint64_t hist_start,
	    hist_end;		     /* history window [start, end) of the history index */
	_Atomic uint32_t hist_depth; /* D = largest depth any publisher asked for */
	/* The mark of the newest marked publish that reached a subscriber or the history (repair
	 * sets it for a dead holder's publish that did): zcast_pub_last_mark. */
	_Atomic uint32_t last_mark;
	_Atomic uint32_t sub_hi;  /* 1 + highest sub record index ever claimed */
	_Atomic uint32_t pool_hi; /* 1 + highest pool record index ever used */

	/* A wake that the lock holder owes (nonzero token, set under the lock): cleared by CAS from
	 * that token after the wake. A locker that finds the same token at two acquisitions
	 * (stale), any reclaim, and the reclaim of a dead publisher (which wakes everybody) perform
	 * the wake, so a publisher killed between unlock and wake strands nobody. */
	_Atomic uint64_t wake_owed;
	_Atomic uint64_t wake_token; /* source of tokens (under the lock) */

	/* Wake-ups: subscribers sleep on `notify`; publishers waiting for room on `space`. */
	alignas(ZC_CACHELINE) _Atomic uint32_t notify;
	alignas(ZC_CACHELINE) _Atomic uint32_t space;
	_Atomic uint32_t space_waiters;
	/* Set by the releaser that bumps `space` for the announced waiters; cleared by a waiter
	 * before it announces itself: until then further releases make no FUTEX_WAKE. */
	_Atomic uint32_t space_woken;
	/* Graph events: bumped (and futex-woken) on every join and leave, under the lock. */
	alignas(ZC_CACHELINE) _Atomic uint32_t graph;
	_Atomic uint32_t graph_waiters;
	/* Matched members found dead and reclaimed, ever (under the lock): a graph change that comes
	 * with a step here was a crash, not a close. */
	_Atomic uint32_t pubs_died, subs_died;
};

struct zc_pub_rec {
	_Atomic uint32_t state; /* CAS by the claimer; FREE again under lock */
	uint32_t pool;		/* pool record index; under lock */
	uint64_t id;		/* member id */
	int32_t pid;
	uint32_t history_depth;
	/* Its threads counted in the header's space_waiters (wake.c): a reclaim of the dead
	 * publisher takes them back out. */
	_Atomic uint32_t space_armed;
	uint32_t pad0;
	uint64_t pad[4];
};

struct zc_sub_rec {
	_Atomic uint32_t state;
	uint32_t policy; /* written under lock at join */
	uint32_t depth;	 /* ring capacity in use, <= max_depth */
	uint32_t group;	 /* group record index, or ZC_NO_SUB */
	uint64_t id;
	int32_t pid;
	uint32_t pad_pid;
	/* Threads about to sleep or asleep on `notify` (or on `wake` for RR), and the announce epoch
	 * (ZC_SLEEPERS, ZC_SLEEP_EPOCH): written by the subscriber only, an announce adds
	 * ZC_ANNOUNCE (one more sleeper, a new epoch) in one atomic add, a wake-up subtracts 1. */
	_Atomic uint64_t sleepers;
	/* The doorbell of the wait set this subscriber is attached to (ZC_BELL_REF), 0 = none.
	 * Written by the subscriber's process; a publisher reads it once per push. */
	_Atomic uint64_t bell;
	uint64_t pad0[2];
	/* The waker's line, written by lock holders only (and by RR wakers: `wake`). Beside
	 * `sleepers` it would take that line from the sleeper's core, whose first act after the wake
	 * is to count itself out: one more transfer on every woken message's path. */
	alignas(ZC_CACHELINE) _Atomic uint32_t wake; /* this subscriber's own futex word (RR) */
	uint32_t pad_wake;
	/* The last announce epoch a lock holder has woken `notify` for (or owes that wake). A publish
	 * that finds sleepers of the same epoch skips its FUTEX_WAKE: that wake reaches every thread
	 * that announced up to then, and a new sleep is a new epoch. The subscriber never writes it. */
	_Atomic uint64_t woken;
	uint64_t pad[6];
	/* One line the subscriber writes, one the publishing lock holder writes: a counter of the
	 * one side beside a word of the other would move the line between their cores on every
	 * message. */
	alignas(ZC_CACHELINE) _Atomic uint64_t
	    head;	       /* consumers (pop CAS) and lock holder (drop CAS) */
	_Atomic uint32_t held; /* messages taken and not released (subscriber): tools only */
	uint32_t pad1;
	uint64_t pad2[6];
	alignas(ZC_CACHELINE) _Atomic uint64_t tail; /* lock holder only */
	_Atomic uint64_t delivered, dropped,
	    rejected;	      /* lock holder (rejected: failed FULL publishes) */
	uint64_t probed_head; /* head at the last liveness probe on a full ring (lock holder) */
	int64_t probed_ns;    /* time of that probe (lock holder) */
	_Atomic uint64_t push_tail; /* lock holder: the tail before the push in progress ... */
	_Atomic uint64_t push_seq;  /* ... by the publish with this sequence (written second):
				     * repair tells "was it pushed" from these two and the tail */
};

#define ZC_ANNOUNCE ((1ull << 16) + 1u)
#define ZC_SLEEPERS(w) ((uint32_t)((w)&0xffffu)) /* more threads of one subscriber: a scribble */
#define ZC_SLEEP_EPOCH(w) ((w) >> 16) /* 48 bits: 2^48 sleeps (9 years at 1 MHz) to wrap */

struct zc_tool_rec {
	_Atomic uint32_t state;
	int32_t pid;
	uint64_t pad[7];
};

struct zc_pool_rec {
	_Atomic uint32_t state; /* under lock */
	uint32_t owner;		/* publisher record index */
	uint64_t id;		/* pool id (= publisher's member id): names the segment */
	uint64_t slot_size;
	uint32_t slot_count;
	uint32_t pad;
	uint64_t ino; /* the segment's inode (0: not recorded): a repeated id is another file */
	uint64_t pad2[3];
};

struct zc_group_rec {
	_Atomic uint32_t members; /* under lock */
	uint32_t next;		  /* round-robin cursor: sub index to try first */
	char name[ZC_GROUP_NAME_MAX];
	uint64_t pad[3];
};

/* ---- pool segment: header, slot headers, page-aligned payload ---- */
struct zc_pool_hdr {
	_Atomic uint64_t magic;
	uint32_t layout_version;
	uint32_t slot_count;
	uint64_t slot_size;   /* payload capacity (rounded to 64) */
	uint64_t slot_stride; /* bytes between slot headers */
	uint64_t payload_off; /* page aligned */
	uint64_t segment_size;
	uint64_t pool_id;
	uint32_t bitmap_words;
	uint32_t pad;
	alignas(ZC_CACHELINE) _Atomic uint32_t
	    freed; /* futex: bumped when a slot is freed and a loaner waits */
	_Atomic uint32_t waiters;
};

/* The state word, the header and the first bitmap word (history and the first 63 subscribers)
 * share one cache line: a publish, a take and a release each touch that one line of the slot. */
struct zc_slot_hdr {
	_Atomic uint64_t state; /* CAS only, see ZC_STATE */
	/* Written by the publisher while the slot is LOANED; read-only once PUBLISHED. */
	uint64_t seq;
	int64_t time_ns;
	uint64_t size;
	uint64_t publisher_id;
	_Atomic uint64_t bits[]; /* holder bitmap, bitmap_words words */
};

/* ---- doorbell: one small segment per wait set (docs/WAITSETS.md, "The doorbell") ----
 * A subscriber record names it by ZC_BELL_REF: the owner's pid (32) | a serial (16) | the entry's
 * bit (16); the file is /dev/shm/zcast-bell.<pid>.<serial>, exactly ZC_BELL_SIZE bytes. A publisher
 * that queues a message for the subscriber sets the bit and, only if the owner sleeps, bumps `word`
 * and wakes it. The owner holds an OFD lock on byte 0 while it lives. */
#define ZC_BELL_MAGIC 0x5a43415354424c4cull /* "ZCASTBLL" */
#define ZC_BELL_BITS 16384u
#define ZC_BELL_SIZE 4096u
#define ZC_BELL_REF(pid, serial, bit)                                                              \
	(((uint64_t)(uint32_t)(pid) << 32) | ((uint64_t)((serial)&0xffffu) << 16) |                \
	 (uint64_t)((bit)&0xffffu))
#define ZC_BELL_REF_PID(r) ((uint32_t)((r) >> 32))
#define ZC_BELL_REF_SERIAL(r) ((uint32_t)((r) >> 16) & 0xffffu)
#define ZC_BELL_REF_BIT(r) ((uint32_t)(r)&0xffffu)
#define ZC_BELL_REF_KEY(r) ((r) >> 16) /* names the file: pid and serial */
#define ZC_BELL_FREE 0u
#define ZC_BELL_CLAIMED 1u
#define ZC_BELL_DELIVERED 2u
#define ZC_BELL_WOKEN(epoch, state) (((uint32_t)(epoch) << 2) | (state))
#define ZC_BELL_WOKEN_STATE(w) ((w)&3u)
struct zc_bell_hdr {
	_Atomic uint64_t magic;	 /* owner, written last at creation */
	uint32_t layout_version; /* owner, at creation */
	_Atomic uint32_t closed; /* owner or a cleaner, before the unlink: mappers let go */
	uint64_t pad[6];
	alignas(ZC_CACHELINE) _Atomic uint32_t word; /* futex: bumped by a ringer that finds the owner
						      * asleep */
	_Atomic uint32_t sleeping; /* owner: 1 from just before its last check until it wakes */
	/* Who wakes this sleep: ZC_BELL_WOKEN(epoch, state). The owner starts each sleep's epoch at
	 * FREE (after reading `word`, before announcing); the one ringer that CASes it to CLAIMED bumps
	 * and wakes, then CASes it to DELIVERED; a ringer that finds DELIVERED skips its wake. One that
	 * finds CLAIMED bumps and wakes too: the claimer may have been killed before its wake, and
	 * nobody else would deliver it. Owed wakes and repairs ring whatever it says. */
	_Atomic uint32_t woken;
	uint32_t pad1[13];
	alignas(ZC_CACHELINE) _Atomic uint64_t bits[ZC_BELL_BITS / 64]; /* ready set: ringers set,
									   * the owner takes */
};

_Static_assert(sizeof(struct zc_bell_hdr) <= ZC_BELL_SIZE, "doorbell fits its file");
_Static_assert(sizeof(struct zc_intent) == 64, "intent is one cache line");
_Static_assert(sizeof(struct zc_lock) == 64, "lock is one cache line");
_Static_assert(sizeof(struct zc_pub_rec) == 64, "pub record size");
_Static_assert(sizeof(struct zc_sub_rec) == 256, "sub record size");
_Static_assert(sizeof(struct zc_tool_rec) == 64, "tool record size");
_Static_assert(sizeof(struct zc_pool_rec) == 64, "pool record size");
_Static_assert(sizeof(struct zc_group_rec) == 64, "group record size");
_Static_assert(sizeof(struct zc_slot_hdr) == 40, "slot header size before bitmap");
_Static_assert(sizeof(_Atomic uint64_t) == 8, "64-bit atomics");

#endif
