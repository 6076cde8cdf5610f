/** @file executor.h
 * @brief Executor: callbacks per subscription, timer, guard, graph and publisher room, run by one
 * thread or a pool (docs/WAITSETS.md, "Executor"). Built on a wait set.
 *
 * Threading guarantees
 *  - Callbacks of one entry never run concurrently with each other (unless a subscription was added
 *    with ZCAST_EXEC_CONCURRENT). Callbacks of different entries run in parallel when threads > 1.
 *  - Within one subscription, callbacks see messages in queue order when not concurrent.
 *  - Entries may be added and removed at any time: before spinning, while spinning (from any thread,
 *    including from callbacks), between spins. A remove returns once no callback of the entry runs
 *    and none will start — except when it is called from a callback of that very entry, where it
 *    returns at once (the callback finishes, and with ZCAST_EXEC_CONCURRENT so do the entry's other
 *    callbacks already running; no further callback of the entry starts). The same holds when it is
 *    called from a callback that a running callback of the entry waits for in a remove of its own
 *    (two pool callbacks removing each other's entries): waiting there would never end. So after
 *    remove returns (from anywhere else) the subscription, guard or publisher may be closed and the
 *    callback's context freed. Do not remove an entry while holding a lock its callback takes.
 *  - Timers may be cancelled, reset and re-timed from any thread and from callbacks.
 *  - zcast_executor_stop may be called from any thread, from a callback and from a signal handler.
 *  - zcast_executor_spin / spin_once / spin_until: one thread at a time.
 *    zcast_executor_destroy: not while spinning, and not from a callback.
 */
#ifndef ZCAST_EXECUTOR_H
#define ZCAST_EXECUTOR_H

#include "zcast/waitset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An executor (opaque): runs callbacks for subscriptions, timers, guards, graph and room events. */
typedef struct zcast_executor zcast_executor;
/** A timer of an executor (opaque; zcast_executor_add_timer2, freed by zcast_timer_remove). */
typedef struct zcast_timer zcast_timer;

/** Receives one message. `msg` is borrowed: the executor drops its reference when the callback
 * returns; keep the message longer with zcast_msg_ref (and drop that reference later). Its sequence
 * and publish time: zcast_msg_sequence(msg), zcast_msg_time_ns(msg) (no call into the library). */
typedef void (*zcast_sub_callback)(zcast_sub *sub, zcast_msg *msg, void *ctx);
/** Called on each expiry of a timer added with zcast_executor_add_timer. */
typedef void (*zcast_timer_callback)(void *ctx);
/** Called once per expiry of a timer added with zcast_executor_add_timer2. `missed`: expiries that
 * passed since the previous call without a call of their own (the executor was busy): 0 normally.
 * This call stands for the latest expiry, so a call that took 3.5 periods is followed by one with
 * missed == 2 (three expiries passed meanwhile: two missed, and this one). */
typedef void (*zcast_timer_fn)(zcast_timer *timer, uint64_t missed, void *ctx);
/** Called when a guard added with zcast_executor_add_guard was triggered (once per report). */
typedef void (*zcast_guard_callback)(zcast_guard *guard, void *ctx);
/** Called when a publish refused for lack of room would find room again: every FULL (and RR)
 * queue of the topic has space and the publisher's pool has a free slot. One call per
 * zcast_executor_want_room. */
typedef void (*zcast_room_callback)(zcast_pub *pub, void *ctx);

/** A change of the matched count (zcast_graph_callback). */
typedef struct zcast_graph_event {
	zcast_pub *pub; /**< the publisher of a zcast_executor_add_pub_graph entry, else NULL */
	zcast_sub *sub; /**< the subscriber of a zcast_executor_add_sub_graph entry, else NULL */
	int matched;    /**< now: subscribers (for pub) or publishers (for sub) that are ACTIVE */
	int previous;   /**< the count at the previous call (or when the entry was added) */
	int crashed;    /**< matched peers found dead (killed, crashed) and reclaimed since the previous
			 * call: a drop of `matched` with crashed == 0 was a clean close */
} zcast_graph_event;
/** Called when the matched count changed (a peer joined, closed, or died) or a peer was found dead.
 * A crashed peer counts as gone at once; its reclaim (by a death watcher, promptly) brings the
 * `crashed` count, in the same call or in a later one with `matched` unchanged. */
typedef void (*zcast_graph_callback)(const zcast_graph_event *ev, void *ctx);

/** Executor options: zcast_executor_opts_init() first. */
typedef struct zcast_executor_opts {
	uint32_t threads; /**< callback threads; 0 or 1: callbacks run in the thread that spins */
	uint32_t batch;   /**< messages one subscription handles before others get a turn; default 16 */
	uint32_t reserved[8]; /**< zero */
} zcast_executor_opts;

enum { ZCAST_EXEC_CONCURRENT = 1 }; /**< callbacks of this subscription may run in parallel */
enum { ZCAST_TIMER_ONESHOT = 1 };   /**< the timer expires once, then stays cancelled until reset */

/** Fills *o with the defaults (1 thread, batch 16); does nothing for NULL. */
ZCAST_API void zcast_executor_opts_init(zcast_executor_opts *o);
/** Creates an executor; *out is owned by the caller (zcast_executor_destroy). */
ZCAST_API int zcast_executor_create(const zcast_executor_opts *opts, zcast_executor **out);
/** Frees the executor and its timers. Subscriptions stay open (they are the caller's). Not while
 * spinning, not from a callback. */
ZCAST_API void zcast_executor_destroy(zcast_executor *ex);

/** Registers a callback for `sub` (borrowed: keep it open until it is removed or the executor is
 * destroyed). ZCAST_EBUSY if `sub` is registered already. */
ZCAST_API int zcast_executor_add_sub(zcast_executor *ex, zcast_sub *sub, zcast_sub_callback cb,
				     void *ctx, unsigned flags);
/** Unregisters `sub` (see the removal rule above). ZCAST_ENOENT if it is not registered. */
ZCAST_API int zcast_executor_remove_sub(zcast_executor *ex, zcast_sub *sub);

/** A periodic timer owned by the executor (first call period_ns from now; never early). */
ZCAST_API int zcast_executor_add_timer(zcast_executor *ex, int64_t period_ns, zcast_timer_callback cb,
				       void *ctx);
/** A timer with a handle: first expiry period_ns from now, then every period_ns on the same grid
 * (CLOCK_MONOTONIC; never early). period_ns > 0; an expiry beyond INT64_MAX ns never comes.
 * flags: 0 or ZCAST_TIMER_ONESHOT. *out stays valid until zcast_timer_remove or
 * zcast_executor_destroy. */
ZCAST_API int zcast_executor_add_timer2(zcast_executor *ex, int64_t period_ns, unsigned flags,
					zcast_timer_fn cb, void *ctx, zcast_timer **out);
/** Stops the timer: once this returns no call of it runs or starts (it waits for a running call,
 * unless called from that call, or from a callback that call waits for: see the removal rule). */
ZCAST_API int zcast_timer_cancel(zcast_timer *t);
/** (Re)starts the timer: next expiry period_ns from now; missed expiries are forgotten. Also
 * re-arms a cancelled or fired one-shot timer. */
ZCAST_API int zcast_timer_reset(zcast_timer *t);
/** Changes the period (> 0). The next expiry is the previous one (or the start) plus the new
 * period, as rcl does; if that has passed already the timer expires at once, with the expiries
 * of the new period that passed counted as missed. A cancelled timer stays cancelled. */
ZCAST_API int zcast_timer_set_period(zcast_timer *t, int64_t period_ns);
/** The timer's period. */
ZCAST_API int64_t zcast_timer_period(const zcast_timer *t);
/** Nanoseconds until the next expiry (0 if due), or ZCAST_EAGAIN (negative) when cancelled. */
ZCAST_API int64_t zcast_timer_until_next(const zcast_timer *t);
/** Removes and frees the timer (see the removal rule above). Like any free: no other call may use
 * the handle at the same time (another thread's zcast_timer_cancel, say) or afterwards. */
ZCAST_API int zcast_timer_remove(zcast_timer *t);

/** Registers a callback for a guard (borrowed). ZCAST_EBUSY if registered already. */
ZCAST_API int zcast_executor_add_guard(zcast_executor *ex, zcast_guard *g, zcast_guard_callback cb,
				       void *ctx);
/** Unregisters a guard. ZCAST_ENOENT if it is not registered. */
ZCAST_API int zcast_executor_remove_guard(zcast_executor *ex, zcast_guard *g);

/** Graph callbacks for a publisher's topic (cb gets the subscriber count when it changed). */
ZCAST_API int zcast_executor_add_pub_graph(zcast_executor *ex, zcast_pub *pub,
					   zcast_graph_callback cb, void *ctx);
/** Graph callbacks for a subscriber's topic (cb gets the publisher count when it changed). */
ZCAST_API int zcast_executor_add_sub_graph(zcast_executor *ex, zcast_sub *sub,
					   zcast_graph_callback cb, void *ctx);
/** Unregisters a graph entry of zcast_executor_add_pub_graph / add_sub_graph; pass the handle
 * given there. ZCAST_ENOENT if there is none. */
ZCAST_API int zcast_executor_remove_graph(zcast_executor *ex, const void *pub_or_sub);

/** A "room again" entry for `pub`: after a publish (or loan) was refused — ZCAST_EAGAIN from a
 * FULL queue, ZCAST_ENOSLOT from the pool — call zcast_executor_want_room and return from the
 * callback instead of blocking in zcast_publish_wait; `cb` runs once when there is room again.
 * This is what keeps a single-threaded container responsive, and two containers that publish
 * FULL to each other from deadlocking. ZCAST_EBUSY if registered already. */
ZCAST_API int zcast_executor_add_room(zcast_executor *ex, zcast_pub *pub, zcast_room_callback cb,
				      void *ctx);
/** Asks for one room callback of `pub`'s entry (any thread, callbacks too). If there is room
 * already, the callback runs at the executor's next turn. */
ZCAST_API int zcast_executor_want_room(zcast_executor *ex, zcast_pub *pub);
/** Unregisters the room entry of `pub`. ZCAST_ENOENT if there is none. */
ZCAST_API int zcast_executor_remove_room(zcast_executor *ex, zcast_pub *pub);
/* Servers and clients of a service have room entries of their own, with the same rules:
 * zcast_executor_add_server_room / want_server_room / remove_server_room and the client's
 * (service.h). */

/** Runs callbacks until zcast_executor_stop. Returns 0 after a stop, when every running callback has
 * returned (queued messages that were not handed to a callback stay queued; a guard trigger, graph
 * change or timer expiry seen but not yet handed to its callback is handed over by the next spin),
 * or an error. A take that fails in a subscription's turn (anything but ZCAST_EAGAIN and
 * ZCAST_ELIMIT: a corrupted queue, no descriptors, no memory) ends every spin call with that error
 * and its zcast_last_error text, instead of polling the entry again; the entry stays registered.
 * A stop requested before spin makes spin return at once; zcast_executor_reset clears it. */
ZCAST_API int zcast_executor_spin(zcast_executor *ex);
/** Waits up to timeout_ns (< 0: forever, 0: just check) until something is ready, then runs what
 * is ready now (each subscription one batch, each due timer once) and returns the number of
 * callback turns run (> 0), ZCAST_ETIMEDOUT if nothing became ready, or 0 after a stop. Every
 * callback it started has returned when it returns. */
ZCAST_API int zcast_executor_spin_once(zcast_executor *ex, int64_t timeout_ns);
/** Runs callbacks until deadline_ns (CLOCK_MONOTONIC, absolute) or a stop: ZCAST_ETIMEDOUT at the
 * deadline, 0 after a stop. A deadline that has passed already runs what is ready now, once, without
 * waiting (as spin_once(0) does). */
ZCAST_API int zcast_executor_spin_until(zcast_executor *ex, int64_t deadline_ns);
/** Asks spin to return. Async-signal-safe. */
ZCAST_API int zcast_executor_stop(zcast_executor *ex);
/** Clears a stop request so that spin can run again. */
ZCAST_API int zcast_executor_reset(zcast_executor *ex);
/** SIGINT and SIGTERM call zcast_executor_stop(ex) until ex is destroyed (previous handlers are
 * restored then, unless the program installed a handler of its own since: that one stays). At
 * most 8 executors per process. */
ZCAST_API int zcast_executor_stop_on_signals(zcast_executor *ex);

#ifdef __cplusplus
}
#endif
#endif
