/** @file zcast.h
 * @brief zcast — zero-copy publish/subscribe between processes on one Linux host: topics,
 * publishers, subscribers, messages, tools API.
 *
 * Conventions
 *  - Every function that can fail returns 0 (or a count) on success and a negative ZCAST_E* code on
 *    failure. zcast_strerror() names the code; zcast_last_error() gives the calling thread's detailed
 *    message for the last failure ("topic /x exists with type A, you asked for B").
 *  - Options are plain structs: call the matching *_init() first, then change what you need.
 *  - Ownership is stated above each function that takes or gives a message handle.
 *
 * Thread safety
 *  - zcast_pub: one thread at a time (loan, publish, close). Loans may be filled and dropped from any
 *    thread.
 *  - zcast_sub: zcast_take / zcast_wait / zcast_sub_stat may run concurrently from several threads;
 *    each message is given to exactly one of them. zcast_sub_close must not race with other calls on
 *    the same handle.
 *  - zcast_msg: handles may be passed between threads; zcast_msg_ref / zcast_msg_drop are atomic. Do
 *    not drop the same reference twice.
 *  - After fork(), handles inherited from the parent are dead in the child (their descriptors are
 *    closed so the child cannot keep a dead parent "alive"); the child opens its own.
 */
#ifndef ZCAST_ZCAST_H
#define ZCAST_ZCAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the exported functions (the library is built with hidden visibility). */
#if defined(__GNUC__)
#define ZCAST_API __attribute__((visibility("default")))
#else
#define ZCAST_API
#endif

#define ZCAST_VERSION_MAJOR 0 /**< Version of these headers: major (the library's soname). */
#define ZCAST_VERSION_MINOR 1 /**< Version of these headers: minor. */
#define ZCAST_VERSION_PATCH 0 /**< Version of these headers: patch. */

/** Results: 0 for success, a negative code for failure (zcast_strerror names it). */
enum zcast_error {
	ZCAST_OK = 0,          /**< success */
	ZCAST_EINVAL = -1,     /**< bad argument: name, size, option */
	ZCAST_ENOMEM = -2,     /**< out of memory, /dev/shm space or file descriptors */
	ZCAST_EAGAIN = -3,     /**< nothing to take / a FULL queue has no room; try again */
	ZCAST_ENOSLOT = -4,    /**< the publisher's pool has no free slot */
	ZCAST_ETIMEDOUT = -5,  /**< a bounded wait ran out */
	ZCAST_ETYPE = -6,      /**< topic exists with another type */
	ZCAST_ELIMIT = -7,     /**< a topic limit (subscribers, publishers, depth, ...) is exceeded */
	ZCAST_ECORRUPT = -8,   /**< shared memory failed a consistency check */
	ZCAST_ESTALE = -9,     /**< handle no longer valid (e.g. a loan after publish) */
	ZCAST_EPERM = -10,     /**< permission denied on a segment */
	ZCAST_ENOENT = -11,    /**< no such topic */
	ZCAST_ELAYOUT = -12,   /**< segment used by a live process with another layout version */
	ZCAST_ESYS = -13,      /**< unexpected system call failure (see zcast_last_error) */
	ZCAST_EBUSY = -14,     /**< resource in use (e.g. remove of a topic with live members) */
	ZCAST_ENOSERVER = -15, /**< a service has no live server (service.h) */
	ZCAST_ESRVGONE = -16,  /**< the server that had a call died or closed before answering */
	ZCAST_EREFUSED = -17,  /**< a server refused a request (the text says why) */
};

/** Name of an error code, as a short sentence. Never NULL. */
ZCAST_API const char *zcast_strerror(int err);
/** Detailed message of this thread's last failed call ("" if none). Valid until the next call. */
ZCAST_API const char *zcast_last_error(void);

/** A publisher handle (opaque; zcast_pub_open / zcast_pub_close). */
typedef struct zcast_pub zcast_pub;
/** A subscriber handle (opaque; zcast_sub_open / zcast_sub_close). */
typedef struct zcast_sub zcast_sub;
/** A message handle: a loan being written, or a received message (opaque, counted). */
typedef struct zcast_msg zcast_msg;

/** How a subscriber receives messages (zcast_sub_opts::policy; docs/POLICIES.md). */
enum zcast_policy {
	ZCAST_POLICY_FULL = 0,       /**< backpressure: a publish fails (EAGAIN) rather than lose a message */
	ZCAST_POLICY_DROP_OLD = 1,   /**< latest wins: the oldest queued message is dropped */
	ZCAST_POLICY_BALANCE_RR = 2, /**< one member of the group gets each message, round robin */
};

/** Type identity. A topic carries a type name and a 256-bit type hash. Every typed opener must give the same name and
 * hash as the topic has, else ZCAST_ETYPE names both; an untyped opener (name NULL or "", hash all
 * zero) matches any topic. Typed messages generated from ROS 2 .msg definitions carry their RIHS01
 * hash (REP-2016, docs/TYPED.md); plain C structs use ZCAST_TYPE below. */
#define ZCAST_TYPE_HASH_SIZE 32
/** Room for "RIHS01_" + 64 hex digits + NUL. */
#define ZCAST_TYPE_HASH_STR_SIZE 72

#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push /* the inline helpers below are C: C casts are theirs */
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif
/** Writes the hash as RIHS01_<64 lowercase hex digits> (the ROS 2 spelling) into out. */
static inline void zcast_type_hash_str(const uint8_t hash[ZCAST_TYPE_HASH_SIZE],
				       char out[ZCAST_TYPE_HASH_STR_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	const char *prefix = "RIHS01_";
	for (int i = 0; i < 7; i++)
		out[i] = prefix[i];
	for (int i = 0; i < ZCAST_TYPE_HASH_SIZE; i++) {
		out[7 + 2 * i] = hex[hash[i] >> 4];
		out[8 + 2 * i] = hex[hash[i] & 15];
	}
	out[7 + 2 * ZCAST_TYPE_HASH_SIZE] = 0;
}

/** Type identity of a plain C struct (no pointers inside: the bytes are the message). The hash is not
 * cryptographic; it encodes what must agree for two programs to share the struct's bytes:
 *   bytes 0..3   "ZCP1" (marks a plain-struct identity)
 *   bytes 4..11  sizeof, little endian       bytes 12..15 alignment, little endian
 *   bytes 16..31 two 64-bit FNV-1a hashes of the name (offset bases differ)
 * Use it as ZCAST_TYPE(&opts, struct pose) on zcast_pub_opts or zcast_sub_opts: it sets type_name to
 * the spelled type ("struct pose") and type_hash. A subscriber built with another definition of the
 * struct (other size or alignment) then gets ZCAST_ETYPE instead of misread bytes; a change that keeps
 * size and alignment is not detected: rename the struct (or use a generated type) when it changes.
 * Payloads are 64-byte aligned in every process, so any C type can be used in place. */
static inline void zcast_type_plain(const char *name, size_t size, size_t align,
				    uint8_t hash[ZCAST_TYPE_HASH_SIZE])
{
	uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
	for (const char *c = name; *c; c++) {
		a = (a ^ (uint8_t)*c) * 0x100000001b3ull;
		b = (b ^ (uint8_t)*c) * 0x100000001b3ull;
	}
	const uint64_t words[3] = {(uint64_t)size, (uint64_t)align, a};
	hash[0] = 'Z', hash[1] = 'C', hash[2] = 'P', hash[3] = '1';
	for (int i = 0; i < 8; i++) {
		hash[4 + i] = (uint8_t)(words[0] >> (8 * i));
		if (i < 4)
			hash[12 + i] = (uint8_t)(words[1] >> (8 * i));
		hash[16 + i] = (uint8_t)(words[2] >> (8 * i));
		hash[24 + i] = (uint8_t)(b >> (8 * i));
	}
}
/** The first bytes of every message handle: where it came from, copied out of shared memory once
 * when the message was taken (all zero for a loan). Part of the ABI (never reordered); read it
 * through zcast_msg_sequence / zcast_msg_time_ns, which are inline: no call, no shared memory.
 * Nothing else of the handle is public. */
typedef struct zcast_msg_stamp {
	uint64_t sequence;       /**< per topic, from 1 (as zcast_msg_info::sequence) */
	int64_t publish_time_ns; /**< CLOCK_MONOTONIC at publish */
} zcast_msg_stamp;
/** The message's sequence number (0 for a loan or NULL). */
static inline uint64_t zcast_msg_sequence(const zcast_msg *msg)
{
	return msg ? ((const zcast_msg_stamp *)(const void *)msg)->sequence : 0;
}
/** The message's publish time, CLOCK_MONOTONIC ns (0 for a loan or NULL): read when the publish
 * call started, so it grows with the sequence for one publisher; two publishers publishing at the
 * same moment may queue in the other order than their times. */
static inline int64_t zcast_msg_time_ns(const zcast_msg *msg)
{
	return msg ? ((const zcast_msg_stamp *)(const void *)msg)->publish_time_ns : 0;
}
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
/** alignof in C++ and C (used by ZCAST_TYPE). */
#ifdef __cplusplus
#define ZCAST_ALIGNOF_(T) alignof(T)
#else
#define ZCAST_ALIGNOF_(T) _Alignof(T)
#endif
/** Sets a plain C struct type T as the type of opts (zcast_pub_opts or zcast_sub_opts). */
#define ZCAST_TYPE(opts, T)                                                                        \
	((opts)->type_name = #T,                                                                   \
	 zcast_type_plain(#T, sizeof(T), ZCAST_ALIGNOF_(T), (opts)->type_hash))

/** Topic-wide limits. Used when this opener creates the control segment; a later opener that sets a
 * limit above the existing topic's gets ZCAST_ELIMIT. 0 means "the default / whatever exists". */
typedef struct zcast_topic_opts {
	uint32_t max_publishers;  /**< default 16 */
	uint32_t max_subscribers; /**< default 64, at most 1024 */
	uint32_t max_queue_depth; /**< largest per-subscriber queue; default 256 */
	uint32_t history_capacity; /**< largest history depth; default 64 */
	int retain;               /**< keep topic and history after the last member leaves */
	uint32_t mode;            /**< permission bits of the segments; default 0600 */
	uint32_t reserved[8];       /**< zero (room to grow without breaking the ABI) */
} zcast_topic_opts;

/** Publisher options: zcast_pub_opts_init() first, then change what you need. */
typedef struct zcast_pub_opts {
	const char *domain;        /**< NULL: $ZCAST_DOMAIN or "default" */
	const char *type_name;     /**< NULL or "": untyped (matches any); at most 63 bytes */
	uint8_t type_hash[ZCAST_TYPE_HASH_SIZE]; /**< checked with type_name; see ZCAST_TYPE */
	size_t slot_size;          /**< payload capacity of each slot; default 64 KiB */
	uint32_t slot_count;       /**< slots in this publisher's pool; default 32 */
	uint32_t history_depth;    /**< messages kept for late joiners; default 0 */
	zcast_topic_opts topic;    /**< topic limits, used if this opener creates the topic */
	uint32_t reserved[8];      /**< zero */
} zcast_pub_opts;

/** Subscriber options: zcast_sub_opts_init() first, then change what you need. */
typedef struct zcast_sub_opts {
	const char *domain;        /**< NULL: $ZCAST_DOMAIN or "default" */
	const char *type_name;     /**< NULL or "": untyped (matches any) */
	uint8_t type_hash[ZCAST_TYPE_HASH_SIZE]; /**< checked with type_name; see ZCAST_TYPE */
	int policy;                /**< enum zcast_policy; default FULL */
	const char *group;         /**< worker group name for BALANCE_RR */
	uint32_t queue_depth;      /**< default 16 */
	uint32_t history;          /**< history messages wanted on join (at most queue_depth); default 0 */
	uint32_t max_held;         /**< messages held at once; default 0 = unlimited */
	uint64_t spin_ns;          /**< zcast_wait spins first, up to this long (within its timeout) */
	zcast_topic_opts topic;    /**< topic limits, used if this opener creates the topic */
	/** Last resort only: sleep at most this long at a time, then re-check the queue. Default 0:
	 * none — every event that can end a wait wakes it (a publish, and the owed wake of a publisher
	 * killed between publish and wake-up, performed by the death watcher, or by a locker that
	 * finds it stale). */
	int64_t sleep_slice_ns;
	uint32_t reserved[6];      /**< zero */
} zcast_sub_opts;

/** Fills *o with the defaults (all limits 0: "the default / whatever exists"; mode 0600). NULL:
 * nothing happens. */
ZCAST_API void zcast_topic_opts_init(zcast_topic_opts *o);
/** Fills *o with the defaults (untyped, 64 KiB slots, 32 slots, no history). NULL: nothing. */
ZCAST_API void zcast_pub_opts_init(zcast_pub_opts *o);
/** Fills *o with the defaults (untyped, FULL, queue depth 16, no history). NULL: nothing. */
ZCAST_API void zcast_sub_opts_init(zcast_sub_opts *o);

/** Checks a topic name (^(/[A-Za-z_][A-Za-z0-9_]*)+$, at most 200 bytes). Returns 0 or ZCAST_EINVAL. */
ZCAST_API int zcast_topic_name_valid(const char *topic);
/** Checks a domain name ([A-Za-z0-9_-]{1,32}). Returns 0 or ZCAST_EINVAL. */
ZCAST_API int zcast_domain_name_valid(const char *domain);

/* ---- publisher ---- */

/** Joins `topic` as a publisher and creates its pool. On success *out owns the publisher. */
ZCAST_API int zcast_pub_open(const char *topic, const zcast_pub_opts *opts, zcast_pub **out);
/** Leaves the topic. Loans still held by the caller stay writable until dropped but can no longer be
 * published (ZCAST_ESTALE); published messages stay with their holders (and history). Returns 0 or
 * an error (the handle is released either way; do not use it again). */
ZCAST_API int zcast_pub_close(zcast_pub *pub);

/** Takes a free slot of at least `size` bytes (size <= slot_size). On success *out is a loan the caller
 * owns: publish it or drop it. ZCAST_ENOSLOT when every slot is loaned, queued or held; ZCAST_ESTALE
 * after zcast_pub_close. */
ZCAST_API int zcast_loan(zcast_pub *pub, size_t size, zcast_msg **out);
/** As zcast_loan, but waits up to timeout_ns (CLOCK_MONOTONIC) for a slot: ZCAST_ETIMEDOUT then. */
ZCAST_API int zcast_loan_wait(zcast_pub *pub, size_t size, int64_t timeout_ns, zcast_msg **out);

/** Delivers a loan to every target. On success the caller's reference is consumed and every other
 * handle to the loan becomes invalid (ZCAST_ESTALE; abort in debug builds). On failure the loan stays
 * with the caller, unchanged: ZCAST_EAGAIN when a FULL (or every RR member's) queue has no room. */
ZCAST_API int zcast_publish(zcast_pub *pub, zcast_msg *msg);
/** As zcast_publish, but waits up to timeout_ns for room (woken by takes, not polled). */
ZCAST_API int zcast_publish_wait(zcast_pub *pub, zcast_msg *msg, int64_t timeout_ns);

/** The member id of this publisher (never reused within the topic). */
ZCAST_API uint64_t zcast_pub_id(const zcast_pub *pub);
/** The mark of the topic's newest marked publish that reached a subscriber or the history (0: none),
 * also when its publisher died inside zcast_publish: a dead lock holder's publish is finished or
 * rolled back first (the call takes the topic lock), and its mark is kept if a subscriber's queue
 * or the history got the message, taken since or not. What a relay that records its progress
 * elsewhere needs to tell after a crash whether its last publish happened (zcast-bridge). One mark
 * per topic: meant for one marking publisher at a time. */
ZCAST_API int zcast_pub_last_mark(zcast_pub *pub, uint32_t *mark);

/* ---- subscriber ---- */

/** Joins `topic` as a subscriber (opts may be NULL for the defaults). On success *out owns the
 * subscriber. With opts->history > 0, that many history messages are queued at once, oldest first. */
ZCAST_API int zcast_sub_open(const char *topic, const zcast_sub_opts *opts, zcast_sub **out);
/** Leaves the topic: queued messages are released now; messages the caller still holds stay valid and
 * the membership ends when the last of them is dropped. */
ZCAST_API int zcast_sub_close(zcast_sub *sub);

/** Non-blocking. On success *out is a message the caller owns (drop it when done).
 * ZCAST_EAGAIN when nothing is queued; ZCAST_ELIMIT when max_held messages are held. */
ZCAST_API int zcast_take(zcast_sub *sub, zcast_msg **out);
/** Blocks until a message is queued and can be taken (below max_held), or timeout_ns passes (<0:
 * forever). Returns 0 when zcast_take would return a message, ZCAST_ETIMEDOUT otherwise: at
 * max_held, only a release (from another thread) ends the wait early. Spins `spin_ns` first if the option is set. A publisher killed
 * between publish and wake-up leaves the wake owed: this process's death watcher performs it when
 * it sees the publisher die, as does a locker of the topic that finds the mark stale
 * (docs/CRASH_SAFETY.md). */
ZCAST_API int zcast_wait(zcast_sub *sub, int64_t timeout_ns);
/** Messages currently queued for this subscriber. */
ZCAST_API int zcast_sub_queued(zcast_sub *sub);

/** A subscriber's counters (zcast_sub_stat_get). */
typedef struct zcast_sub_stat {
	uint64_t delivered; /**< messages queued to this subscriber */
	uint64_t dropped;   /**< DROP_OLD: dropped unread */
	uint64_t rejected;  /**< publishes refused because this queue was full (FULL / RR) */
	uint32_t queued;    /**< queued now */
	uint32_t held;      /**< taken and not yet released */
	uint64_t member_id; /**< this subscriber's member id */
	/** Messages queued from the topic's history when it joined: they are the first ones taken
	 * (unless DROP_OLD dropped some of them first: see `dropped`). */
	uint32_t history;
} zcast_sub_stat;
/** Fills *st with the subscriber's counters. */
ZCAST_API int zcast_sub_stat_get(zcast_sub *sub, zcast_sub_stat *st);
/** The member id of this subscriber (never reused within the topic). */
ZCAST_API uint64_t zcast_sub_id(const zcast_sub *sub);

/* ---- messages (ipc_shared_ptr) ---- */

/** Payload pointer (in shared memory, 64-byte aligned), or NULL if the handle is stale. Received
 * messages are mapped read-only: do not write through the pointer. */
ZCAST_API void *zcast_msg_data(zcast_msg *msg);
/** Payload size in bytes: the published size, or for a loan the size it will be published with. */
ZCAST_API size_t zcast_msg_size(const zcast_msg *msg);
/** Loans only: sets the size that will be published (<= the slot's capacity). */
ZCAST_API int zcast_msg_resize(zcast_msg *msg, size_t size);
/** Loans only: a mark the publish leaves in the topic (zcast_pub_last_mark), 0 for none (the
 * default). */
ZCAST_API int zcast_msg_set_mark(zcast_msg *msg, uint32_t mark);
/** Slot capacity of the message's pool. */
ZCAST_API size_t zcast_msg_capacity(const zcast_msg *msg);
/** A new reference to the same message (same process-local count). No shared memory is touched. */
ZCAST_API zcast_msg *zcast_msg_ref(zcast_msg *msg);
/** Drops one reference. The last drop of a received message releases the subscriber's hold (and the
 * slot, if nobody else holds it); the last drop of an unpublished loan returns the slot to the pool. */
ZCAST_API void zcast_msg_drop(zcast_msg *msg);

/** Where a message came from and where it lives (zcast_msg_info_get). */
typedef struct zcast_msg_info {
	uint64_t sequence;       /**< per topic, from 1 */
	int64_t publish_time_ns; /**< CLOCK_MONOTONIC at publish */
	uint64_t publisher_id;   /**< member id of the publisher */
	uint32_t slot;           /**< slot index in the pool */
	uint32_t generation;     /**< slot generation (low 32 bits) */
	/** Where the payload lives: identical in every process for one message (zero-copy proof). */
	uint64_t pool_dev;
	uint64_t pool_ino;       /**< inode of the pool file (with pool_dev: which file) */
	uint64_t pool_offset;    /**< offset of the payload in the pool file */
} zcast_msg_info;
/** Fills *info. For an unpublished loan only the location fields and publisher_id are set. */
ZCAST_API int zcast_msg_info_get(const zcast_msg *msg, zcast_msg_info *info);

/* ---- topics (tools) ---- */

/** A topic's state as tools show it (zcast_topic_stat_get). */
typedef struct zcast_topic_stat {
	char type_name[64];        /**< "" for an untyped topic */
	uint8_t type_hash[ZCAST_TYPE_HASH_SIZE]; /**< all zero for an untyped topic */
	uint32_t publishers;       /**< active publishers */
	uint32_t subscribers;      /**< active subscribers */
	uint32_t max_publishers;   /**< the topic's limit */
	uint32_t max_subscribers;  /**< the topic's limit */
	uint32_t max_queue_depth;  /**< the topic's limit */
	uint32_t history_capacity; /**< the topic's limit */
	uint32_t history_len;      /**< messages kept as history now */
	int retain;                /**< the topic outlives its members */
	uint64_t last_sequence;    /**< sequence number of the last publish (0: none yet) */
	uint32_t pools;            /**< pool segments (publishers', and orphans still held) */
	uint64_t slots_total;      /**< slots of all pools */
	uint64_t slots_free;       /**< free slots */
	uint64_t slots_loaned;     /**< slots loaned to publishers */
	uint64_t slots_published;  /**< slots queued, held or kept as history */
	/** 1 while a live process has the topic open: a member, or one creating or removing it
	 * (checked after the counts above). A topic with no live member that is in use is passing
	 * through (joined or left a moment ago), not a leftover. */
	int in_use;
} zcast_topic_stat;
/** Fills *st for `topic` of `domain` (NULL: $ZCAST_DOMAIN or "default") without joining it.
 * ZCAST_ENOENT if there is no such topic, ZCAST_EAGAIN if it is being created right now. */
ZCAST_API int zcast_topic_stat_get(const char *domain, const char *topic, zcast_topic_stat *st);

/** Role of a member (zcast_member_info.role). */
enum zcast_member_role {
	ZCAST_ROLE_PUBLISHER = 0,  /**< a publisher */
	ZCAST_ROLE_SUBSCRIBER = 1, /**< a subscriber */
	ZCAST_ROLE_TOOL = 2, /**< a short-lived tool member (zcast gc / rm) */
};
/** One member of a topic, as tools see it (zcast_topic_members). Values are a snapshot read without
 * the topic lock: counters of a busy topic move while they are read. */
typedef struct zcast_member_info {
	int role;            /**< enum zcast_member_role */
	uint32_t index;      /**< record index within its role */
	uint64_t id;         /**< member id, never reused within the topic (0 for tools) */
	int32_t pid;         /**< as the member recorded it, in its own PID namespace */
	int alive;           /**< 1: its process holds its liveness lock; 0: dead (gc reclaims it) */
	int joining;         /**< record claimed, join not finished (or died while joining) */
	int draining;        /**< subscriber closed but still holding messages */
	/* subscribers */
	int policy;          /**< enum zcast_policy */
	char group[32];      /**< BALANCE_RR group name, "" otherwise */
	uint32_t queued;     /**< messages queued now */
	uint32_t depth;      /**< queue capacity */
	uint32_t held;       /**< taken and not yet released */
	int refusing;        /**< publishes fail because of it right now: its queue is full and it is
			      * FULL, or BALANCE_RR with every member of its group full */
	uint64_t delivered;  /**< messages queued to it */
	uint64_t dropped;    /**< DROP_OLD: dropped unread */
	uint64_t rejected;   /**< publishes refused because its queue was full */
	/* publishers */
	uint64_t slot_size;  /**< payload capacity of each slot of its pool */
	uint32_t slot_count;      /**< slots of its pool */
	uint32_t slots_loaned;    /**< slots it has loaned now */
	uint32_t slots_published; /**< slots queued, held or kept as history */
	uint32_t history_depth;   /**< history depth it asked for */
	uint64_t last_size;  /**< size of its newest message (0 if none) */
	uint64_t last_sequence;   /**< sequence of its newest message */
	uint32_t reserved[8];     /**< zero */
} zcast_member_info;
/** Calls fn for each member record in use (publishers, then subscribers, then tools); stops early when
 * fn returns non-zero. Does not join the topic and takes no lock. Returns the count or an error. */
ZCAST_API int zcast_topic_members(const char *domain, const char *topic,
				  int (*fn)(const zcast_member_info *m, void *ctx), void *ctx);
/** Reclaims dead members of the topic now (they are normally reclaimed promptly by the death watcher
 * of any process that shares the topic). Returns the number of dead members reclaimed, or an error.
 * A topic left with no member and nothing to keep (no history, not retained) is removed. */
ZCAST_API int zcast_topic_gc(const char *domain, const char *topic);
/** Removes a topic (including a retained one). ZCAST_EBUSY if live members remain. */
ZCAST_API int zcast_topic_remove(const char *domain, const char *topic);
/** Calls fn for each topic of the domain; stops early when fn returns non-zero. Returns the count. */
ZCAST_API int zcast_topic_list(const char *domain, int (*fn)(const char *topic, void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
