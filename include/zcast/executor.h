/** @file executor.h
 * @brief Executor: callbacks per subscription and timers, run by one thread or a pool
 * (docs/WAITSETS.md, "Executor"). Built on a wait set.
 *
 * Threading guarantees
 *  - Callbacks of one subscription never run concurrently with each other (unless the subscription
 *    was added with ZCAST_EXEC_CONCURRENT); the same holds for each timer. Callbacks of different
 *    subscriptions run in parallel when threads > 1.
 *  - Within one subscription, callbacks see messages in queue order when not concurrent.
 *  - zcast_executor_stop may be called from any thread, from a callback and from a signal handler.
 *  - zcast_executor_add_* and zcast_executor_destroy: one thread, never while zcast_executor_spin
 *    runs. zcast_executor_spin: one thread at a time.
 */
#ifndef ZCAST_EXECUTOR_H
#define ZCAST_EXECUTOR_H

#include "zcast/waitset.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An executor (opaque): runs callbacks for subscriptions and timers. */
typedef struct zcast_executor zcast_executor;

/** Receives one message. `msg` is borrowed: the executor drops its reference when the callback
 * returns; keep the message longer with zcast_msg_ref (and drop that reference later). */
typedef void (*zcast_sub_callback)(zcast_sub *sub, zcast_msg *msg, void *ctx);
/** Called on each expiry of a timer added with zcast_executor_add_timer. */
typedef void (*zcast_timer_callback)(void *ctx);

/** Executor options: zcast_executor_opts_init() first. */
typedef struct zcast_executor_opts {
	uint32_t threads; /**< callback threads; 0 or 1: callbacks run in the thread that spins */
	uint32_t batch;   /**< messages one subscription handles before others get a turn; default 16 */
	uint32_t reserved[8]; /**< zero */
} zcast_executor_opts;

enum { ZCAST_EXEC_CONCURRENT = 1 }; /**< callbacks of this subscription may run in parallel */

/** Fills *o with the defaults (1 thread, batch 16). */
ZCAST_API void zcast_executor_opts_init(zcast_executor_opts *o);
/** Creates an executor; *out is owned by the caller (zcast_executor_destroy). */
ZCAST_API int zcast_executor_create(const zcast_executor_opts *opts, zcast_executor **out);
/** Frees the executor. Subscriptions stay open (they are the caller's). Not while spinning. */
ZCAST_API void zcast_executor_destroy(zcast_executor *ex);

/** Registers a callback for `sub` (borrowed: keep it open until the executor is destroyed). */
ZCAST_API int zcast_executor_add_sub(zcast_executor *ex, zcast_sub *sub, zcast_sub_callback cb,
				     void *ctx, unsigned flags);
/** A periodic timer (first call period_ns from now; never early). */
ZCAST_API int zcast_executor_add_timer(zcast_executor *ex, int64_t period_ns, zcast_timer_callback cb,
				       void *ctx);

/** Runs callbacks until zcast_executor_stop. Returns 0 after a stop, when every running callback has
 * returned (queued messages that were not handed to a callback stay queued), or an error.
 * A stop requested before spin makes spin return at once; zcast_executor_reset clears it. */
ZCAST_API int zcast_executor_spin(zcast_executor *ex);
/** Asks spin to return. Async-signal-safe. */
ZCAST_API int zcast_executor_stop(zcast_executor *ex);
/** Clears a stop request so that spin can run again. */
ZCAST_API int zcast_executor_reset(zcast_executor *ex);
/** SIGINT and SIGTERM call zcast_executor_stop(ex) until ex is destroyed (previous handlers are
 * restored then). At most 8 executors per process. */
ZCAST_API int zcast_executor_stop_on_signals(zcast_executor *ex);

#ifdef __cplusplus
}
#endif
#endif
