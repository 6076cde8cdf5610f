/* Executor timers with a handle (docs/WAITSETS.md, "Executor"): a grid of expiries, cancel, reset,
 * period changes, one-shot, and the count of expiries missed while the executor was busy.
 *
 * The executor does not hand timers to the wait set: it computes the nearest expiry itself and
 * waits that long, so timers can change from any thread (under the executor's lock, followed by a
 * poke that makes the spinning thread recompute its deadline). `gen` tells a due expiry, computed
 * before a cancel / reset / period change, from one computed after: a stale one is not run. */
#include <stdlib.h>

#include "executor_internal.h"

void zc_grid_start(struct zc_timer_grid *g, int64_t now)
{
	g->prev = now;
	g->active = true;
}

int64_t zc_grid_next(const struct zc_timer_grid *g)
{
	return zc_after(g->prev, g->period);
}

uint64_t zc_grid_expire(struct zc_timer_grid *g, int64_t now)
{
	int64_t next = zc_grid_next(g);
	if (!g->active || now < next)
		return 0;
	uint64_t n = (uint64_t)((now - next) / g->period) + 1;
	g->prev = next + (int64_t)(n - 1) * g->period; /* <= now: the next is past now, on the grid */
	if (g->oneshot)
		g->active = false;
	return n;
}

void zc_grid_set_period(struct zc_timer_grid *g, int64_t period)
{
	g->period = period;
}

static int check_period(int64_t period_ns)
{
	return period_ns > 0
		   ? 0
		   : zc_err(ZCAST_EINVAL, "timer period %lld ns must be > 0", (long long)period_ns);
}

static int new_timer(zcast_executor *ex, int64_t period_ns, bool oneshot, zcast_timer_fn fn,
		     zcast_timer_callback old_fn, void *ctx, zcast_timer **out)
{
	if (!ex || (!fn && !old_fn))
		return zc_err(ZCAST_EINVAL, "executor and callback are required");
	int r = check_period(period_ns);
	if (r < 0)
		return r;
	zcast_timer *t = calloc(1, sizeof *t);
	if (!t)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	t->ex = ex;
	t->fn = fn;
	t->old_fn = old_fn;
	t->ctx = ctx;
	t->grid.period = period_ns;
	t->grid.oneshot = oneshot;
	zc_grid_start(&t->grid, zc_now_ns());
	return zc_ex_add_timer(ex, t, out);
}

int zcast_executor_add_timer(zcast_executor *ex, int64_t period_ns, zcast_timer_callback cb,
			     void *ctx)
{
	return new_timer(ex, period_ns, false, NULL, cb, ctx, NULL);
}

int zcast_executor_add_timer2(zcast_executor *ex, int64_t period_ns, unsigned flags,
			      zcast_timer_fn cb, void *ctx, zcast_timer **out)
{
	if (flags & ~(unsigned)ZCAST_TIMER_ONESHOT)
		return zc_err(ZCAST_EINVAL, "unknown timer flags 0x%x", flags);
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	return new_timer(ex, period_ns, flags & ZCAST_TIMER_ONESHOT, cb, NULL, ctx, out);
}

int zcast_timer_cancel(zcast_timer *t)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	zc_ex_lock(t->ex);
	t->grid.active = false;
	t->gen++;
	zc_ex_quiesce_timer(t); /* a call already dispatched or running ends first */
	zc_ex_unlock(t->ex);
	return 0;
}

int zcast_timer_reset(zcast_timer *t)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	zc_ex_lock(t->ex);
	zc_grid_start(&t->grid, zc_now_ns());
	t->gen++;
	zc_ex_unlock(t->ex);
	zc_ex_poke(t->ex);
	return 0;
}

int zcast_timer_set_period(zcast_timer *t, int64_t period_ns)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	int r = check_period(period_ns);
	if (r < 0)
		return r;
	zc_ex_lock(t->ex);
	zc_grid_set_period(&t->grid, period_ns);
	t->gen++;
	zc_ex_unlock(t->ex);
	zc_ex_poke(t->ex);
	return 0;
}

int64_t zcast_timer_period(const zcast_timer *t)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	zc_ex_lock(t->ex);
	int64_t p = t->grid.period;
	zc_ex_unlock(t->ex);
	return p;
}

int64_t zcast_timer_until_next(const zcast_timer *t)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	int64_t now = zc_now_ns(), left = ZCAST_EAGAIN;
	zc_ex_lock(t->ex);
	if (t->grid.active) {
		int64_t next = zc_grid_next(&t->grid);
		left = next > now ? next - now : 0;
	}
	zc_ex_unlock(t->ex);
	return left >= 0 ? left
			 : zc_err(ZCAST_EAGAIN, "the timer is cancelled (or a one-shot that fired)");
}

int zcast_timer_remove(zcast_timer *t)
{
	if (!t)
		return zc_err(ZCAST_EINVAL, "timer is NULL");
	return zc_ex_remove_timer(t);
}
