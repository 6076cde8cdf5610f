/** @file waitset.h
 * @brief Wait sets, guards, pollable subscriber descriptors and graph events (docs/WAITSETS.md).
 *
 * A process with many subscriptions waits for all of them in one call: zcast_waitset_wait() sleeps
 * on the wait set's doorbell (one futex word, whatever the number of subscribers) plus one word per
 * guard and graph entry, until the nearest timer. A publisher that queues a message for an attached
 * subscriber marks it ready in the doorbell and makes a syscall only if the wait set sleeps: one
 * FUTEX_WAKE per sleeping wait set, none for a busy one. The wait dispatches only what is ready.
 *
 * Thread safety
 *  - zcast_waitset: one thread at a time (add, remove, enable, wait). Attached handles must stay open
 *    until they are removed from the wait set (or the wait set is destroyed).
 *  - zcast_guard: zcast_guard_trigger may be called from any thread and from a signal handler.
 *  - zcast_sub_fd: the descriptor may be polled from any thread; the subscriber's rules do not change.
 */
#ifndef ZCAST_WAITSET_H
#define ZCAST_WAITSET_H

#include "zcast/zcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A wait set (opaque): many subscribers, guards, timers and graph words, waited for in one call. */
typedef struct zcast_waitset zcast_waitset;
/** A guard (opaque): a user trigger that wakes wait sets. */
typedef struct zcast_guard zcast_guard;

/* ---- guards: user triggers ---- */

/** A trigger that wakes every wait set it is attached to. On success *out is owned by the caller. */
ZCAST_API int zcast_guard_create(zcast_guard **out);
/** Frees the guard. It must be removed from every wait set first. */
ZCAST_API void zcast_guard_destroy(zcast_guard *g);
/** Marks the guard pending and wakes its sleeping wait sets (a syscall only if one sleeps).
 * Async-signal-safe. A wait set reports a pending guard once and clears it; every wait set with a
 * doorbell the guard is attached to reports the trigger (wait sets without one share it). */
ZCAST_API int zcast_guard_trigger(zcast_guard *g);

/* ---- wait sets ---- */

/** What made a wait set entry ready (zcast_ws_event::kind). */
enum zcast_ws_kind {
	ZCAST_WS_SUB = 1,   /**< messages are queued (reported while any are: level-triggered) */
	ZCAST_WS_GUARD = 2, /**< the guard was triggered since it was last reported */
	ZCAST_WS_TIMER = 3, /**< the timer's deadline passed (once per expiry; never early) */
	ZCAST_WS_GRAPH = 4, /**< a member joined or left the topic since last reported */
	ZCAST_WS_PUB_ROOM = 5, /**< a publish would find room (level-triggered: enable on demand) */
};

/** One ready entry, filled in by zcast_waitset_wait. */
typedef struct zcast_ws_event {
	int kind; /**< enum zcast_ws_kind */
	int id;   /**< the entry id given at add */
	void *user; /**< the pointer given at add */
} zcast_ws_event;

/** Creates an empty wait set; *out is owned by the caller. */
ZCAST_API int zcast_waitset_create(zcast_waitset **out);
/** Frees the wait set (not the attached handles). Not while another thread waits on it. */
ZCAST_API void zcast_waitset_destroy(zcast_waitset *ws);

/** Attach entries. Each returns 0 and the entry's id in *id (ids are small integers, reused after
 * remove). `user` is handed back in events. The handles are borrowed, not owned. */
ZCAST_API int zcast_waitset_add_sub(zcast_waitset *ws, zcast_sub *sub, void *user, int *id);
/** Attaches a guard (reported once per trigger). Same contract as zcast_waitset_add_sub. */
ZCAST_API int zcast_waitset_add_guard(zcast_waitset *ws, zcast_guard *g, void *user, int *id);
/** A periodic timer: first expiry period_ns from now, then every period_ns (CLOCK_MONOTONIC).
 * Expiries missed while nobody waited are reported once, and the next one is kept on the grid. */
ZCAST_API int zcast_waitset_add_timer(zcast_waitset *ws, int64_t period_ns, void *user, int *id);
/** Graph events of the handle's topic: reported when a publisher or subscriber joins or leaves,
 * including a peer process that died (watched through one pidfd per peer process, so a crash is
 * reported promptly, without polling). Read the counts with zcast_pub_matched / zcast_sub_matched. */
ZCAST_API int zcast_waitset_add_pub_graph(zcast_waitset *ws, zcast_pub *pub, void *user, int *id);
/** As zcast_waitset_add_pub_graph, for a subscriber's topic. */
ZCAST_API int zcast_waitset_add_sub_graph(zcast_waitset *ws, zcast_sub *sub, void *user, int *id);
/** "Room again" for a publisher: reported while a publish would find room — a free slot in its
 * pool, space in every FULL queue and in every BALANCE_RR group. Level-triggered, so enable it
 * (zcast_waitset_enable) only after a publish or loan was refused, and disable it once reported;
 * while armed, takes and frees of the topic cost one FUTEX_WAKE as for zcast_publish_wait. */
ZCAST_API int zcast_waitset_add_pub_room(zcast_waitset *ws, zcast_pub *pub, void *user, int *id);
/** Detaches an entry. ZCAST_EINVAL for an unknown id. */
ZCAST_API int zcast_waitset_remove(zcast_waitset *ws, int id);
/** A disabled entry is neither watched nor reported (its subscriber costs publishers nothing). */
ZCAST_API int zcast_waitset_enable(zcast_waitset *ws, int id, int enabled);

/** Waits until at least one entry is ready or timeout_ns passes (< 0: forever; 0: just check).
 * Fills up to `max` events and returns their count (> 0), or ZCAST_ETIMEDOUT. Entries beyond `max`
 * stay ready for the next call; the scan starts after the last reported entry, so none starves. */
ZCAST_API int zcast_waitset_wait(zcast_waitset *ws, int64_t timeout_ns, zcast_ws_event *events,
				 int max);

/** The number of futex words the last sleep of zcast_waitset_wait waited on (0 before any sleep):
 * 1 for a wait set of subscribers and guards of any number that all ring its doorbell, plus one
 * per graph entry and entry without the doorbell (see docs/WAITSETS.md). For tests and tuning. */
ZCAST_API int zcast_waitset_last_words(const zcast_waitset *ws);

/** Removes the doorbell files (/dev/shm/zcast-bell.PID.N) of wait sets whose process died; returns
 * how many, or a negative code. A live process's doorbell is never touched. `zcast gc` calls it;
 * creating a wait set's doorbell and reclaiming a dead subscriber do it too. */
ZCAST_API int zcast_doorbell_gc(void);

/* ---- pollable descriptors ---- */

/** A descriptor that is readable while messages are queued for `sub`, for epoll / poll / libuv /
 * asyncio. The first call starts a per-process helper thread; every call returns the same
 * descriptor, owned by the subscriber (closed by zcast_sub_close; do not close it yourself).
 * Contract: when it is readable, call zcast_take until it returns ZCAST_EAGAIN; that EAGAIN clears
 * the descriptor and watches the subscriber again. Poll it level-triggered (the default of epoll,
 * poll, select, libuv and asyncio): with EPOLLET an edge can be missed. A failure (the helper
 * could not watch the subscriber: out of memory) is an error return, never a descriptor that
 * stays silent. Cost: a publisher pays its usual topic wake only while the helper sleeps on this
 * subscriber (armed); the helper then pays one eventfd write. */
ZCAST_API int zcast_sub_fd(zcast_sub *sub, int *fd);

/* ---- graph: matched counts ---- */

/** Subscribers of the publisher's topic that are ACTIVE (joined and not closed), or an error. */
ZCAST_API int zcast_pub_matched(zcast_pub *pub);
/** Publishers of the subscriber's topic that are ACTIVE, or an error. */
ZCAST_API int zcast_sub_matched(zcast_sub *sub);

#ifdef __cplusplus
}
#endif
#endif
