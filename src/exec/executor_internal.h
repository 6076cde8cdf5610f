/* Private declarations shared by the executor (executor.c) and its timers (timer.c). */
#ifndef ZC_EXECUTOR_INTERNAL_H
#define ZC_EXECUTOR_INTERNAL_H

#include "wait_internal.h"
#include "zcast/executor.h"

/* A timer's grid: expiries at start + k * period. Under the executor's lock. The previous expiry
 * is kept, not the next: the next one of a huge period saturates at INT64_MAX ("never"), and a
 * period change still starts from the right point. */
struct zc_timer_grid {
	int64_t period, prev; /* the previous expiry (or the start), CLOCK_MONOTONIC ns */
	bool active, oneshot;
};
/* Starts the grid now: first expiry period from now. */
ZC_HIDDEN void zc_grid_start(struct zc_timer_grid *g, int64_t now);
/* The next expiry: prev + period, saturated. */
ZC_HIDDEN int64_t zc_grid_next(const struct zc_timer_grid *g);
/* Expiries that passed by `now` (0 if not due); moves the grid to the last of them, and a one-shot
 * timer stops after its expiry. */
ZC_HIDDEN uint64_t zc_grid_expire(struct zc_timer_grid *g, int64_t now);
/* New period: the next expiry is the previous one plus the new period. */
ZC_HIDDEN void zc_grid_set_period(struct zc_timer_grid *g, int64_t period);

struct ex_entry;
struct zcast_timer {
	zcast_executor *ex;
	struct ex_entry *en;
	struct zc_timer_grid grid; /* under ex->mu */
	uint64_t gen;		   /* under ex->mu: bumped by cancel, reset, set_period */
	zcast_timer_fn fn;	   /* or old_fn (zcast_executor_add_timer) */
	zcast_timer_callback old_fn;
	void *ctx;
};

/* Executor services the timer API needs (executor.c). */
ZC_HIDDEN void zc_ex_lock(zcast_executor *ex);
ZC_HIDDEN void zc_ex_unlock(zcast_executor *ex);
/* Wakes the spinning thread: the nearest deadline changed. */
ZC_HIDDEN void zc_ex_poke(zcast_executor *ex);
/* Under the lock: waits until no callback of the timer runs or is queued, unless the caller is that
 * callback. */
ZC_HIDDEN void zc_ex_quiesce_timer(zcast_timer *t);
/* Adds a timer entry (the timer is filled in); frees t on failure. */
ZC_HIDDEN int zc_ex_add_timer(zcast_executor *ex, zcast_timer *t, zcast_timer **out);
ZC_HIDDEN int zc_ex_remove_timer(zcast_timer *t);

#endif
