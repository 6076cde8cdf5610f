/* Executor timers with a handle, and spin_once / spin_until. Every check is about counts, order
 * and "never early" (a call for the k-th expiry of a grid starting at t0 runs at or after
 * t0 + k * period); no check depends on how fast the machine is. */
#include <pthread.h>

#include "harness.h"
#include "zcast/executor.h"

#define MS 1000000ll

struct tick {
	zcast_executor *ex;
	int64_t t0, period;
	_Atomic int calls;
	uint64_t missed, last_missed;
	int sleep_ms_first; /* the first call sleeps this long: later expiries are missed */
	int cancel_after;   /* cancel from inside the callback after this many calls */
	int early;	    /* calls that ran before their expiry */
};

static void on_tick(zcast_timer *t, uint64_t missed, void *ctx)
{
	struct tick *k = ctx;
	k->calls++;
	k->missed += missed;
	k->last_missed = missed;
	/* This call stands for expiry number calls + missed of the grid. */
	if (zt_now_ns() < k->t0 + (int64_t)((uint64_t)k->calls + k->missed) * k->period)
		k->early++;
	if (k->calls == 1 && k->sleep_ms_first)
		zt_sleep_ms(k->sleep_ms_first);
	if (k->cancel_after && k->calls == k->cancel_after)
		CHECK_EQ(zcast_timer_cancel(t), 0);
}

static zcast_executor *new_ex(void)
{
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	return ex;
}

/* A one-shot timer runs once however long we spin; reset arms it again. */
static void oneshot_and_reset(void)
{
	zcast_executor *ex = new_ex();
	struct tick k = {.period = 2 * MS};
	zcast_timer *t;
	k.t0 = zt_now_ns();
	CHECK_EQ(zcast_executor_add_timer2(ex, k.period, ZCAST_TIMER_ONESHOT, on_tick, &k, &t), 0);
	while (k.calls == 0) /* a loaded machine may call later, never earlier */
		CHECK(zcast_executor_spin_once(ex, -1) >= 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 30 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(k.calls, 1);
	CHECK_EQ(k.early, 0);
	CHECK_EQ(zcast_timer_until_next(t), ZCAST_EAGAIN); /* fired: cancelled */
	CHECK_EQ(zcast_executor_spin_once(ex, 10 * MS), ZCAST_ETIMEDOUT);
	k.t0 = zt_now_ns();
	k.calls = 0;
	k.missed = 0;
	CHECK_EQ(zcast_timer_reset(t), 0);
	CHECK(zcast_timer_until_next(t) >= 0);
	CHECK(zcast_executor_spin_once(ex, -1) > 0); /* waits for the expiry */
	CHECK_EQ(k.calls, 1);
	CHECK_EQ(k.early, 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 20 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(k.calls, 1);
	CHECK_EQ(zcast_timer_remove(t), 0);
	zcast_executor_destroy(ex);
}

/* A busy executor: the expiries that passed during a 30 ms callback are handed over as missed (at
 * least 5 of a 5 ms grid), in one call, and the grid is kept. */
static void missed_expiries(void)
{
	zcast_executor *ex = new_ex();
	struct tick k = {.period = 5 * MS, .sleep_ms_first = 30};
	zcast_timer *t;
	k.t0 = zt_now_ns();
	CHECK_EQ(zcast_executor_add_timer2(ex, k.period, 0, on_tick, &k, &t), 0);
	while (k.calls < 2)
		CHECK(zcast_executor_spin_once(ex, -1) > 0);
	CHECK(k.last_missed >= 5);
	CHECK_EQ(k.early, 0);
	CHECK_EQ(zcast_timer_period(t), 5 * MS);
	zcast_executor_destroy(ex); /* frees the timer too */
}

/* Cancel from inside the callback, then from another thread: no call after cancel returned. */
struct canceller {
	zcast_timer *t;
	struct tick *k;
	int calls_at_cancel;
};

static void *cancel_thread(void *arg)
{
	struct canceller *c = arg;
	zt_sleep_ms(15);
	CHECK_EQ(zcast_timer_cancel(c->t), 0);
	c->calls_at_cancel = atomic_load(&c->k->calls);
	return NULL;
}

static void cancel(void)
{
	zcast_executor *ex = new_ex();
	struct tick k = {.period = 1 * MS, .cancel_after = 3};
	zcast_timer *t;
	k.t0 = zt_now_ns();
	CHECK_EQ(zcast_executor_add_timer2(ex, k.period, 0, on_tick, &k, &t), 0);
	while (k.calls < 3) /* expiries missed under load collapse into fewer calls: wait for 3 */
		CHECK(zcast_executor_spin_once(ex, -1) >= 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 30 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(k.calls, 3);
	CHECK_EQ(k.early, 0);

	/* From another thread while spinning: restart it, cancel it there. */
	struct tick k2 = {.period = 1 * MS};
	zcast_timer *t2;
	k2.t0 = zt_now_ns();
	CHECK_EQ(zcast_executor_add_timer2(ex, k2.period, 0, on_tick, &k2, &t2), 0);
	struct canceller c = {t2, &k2, -1};
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, cancel_thread, &c), 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 60 * MS), ZCAST_ETIMEDOUT);
	pthread_join(th, NULL);
	CHECK(c.calls_at_cancel >= 0);
	CHECK_EQ(k2.calls, c.calls_at_cancel);
	CHECK_EQ(k2.early, 0);
	CHECK_EQ(zcast_timer_remove(t2), 0);
	CHECK_EQ(zcast_timer_remove(t), 0);
	CHECK_EQ(zcast_timer_remove(NULL), ZCAST_EINVAL);
	zcast_executor_destroy(ex);
}

/* A period change keeps the grid's start: an hour-long timer shortened to 2 ms after 20 ms expires
 * at once, with the 2 ms expiries that passed counted as missed. */
static void period_change(void)
{
	zcast_executor *ex = new_ex();
	struct tick k = {.period = 3600000 * MS};
	zcast_timer *t;
	k.t0 = zt_now_ns();
	CHECK_EQ(zcast_executor_add_timer2(ex, k.period, 0, on_tick, &k, &t), 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 20 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(k.calls, 0);
	CHECK_EQ(zcast_timer_set_period(t, 0), ZCAST_EINVAL);
	k.period = 2 * MS;
	CHECK_EQ(zcast_timer_set_period(t, k.period), 0);
	CHECK_EQ(zcast_timer_until_next(t), 0); /* due already */
	CHECK(zcast_executor_spin_once(ex, -1) > 0);
	CHECK_EQ(k.calls, 1);
	CHECK(k.last_missed >= 9); /* >= 20 ms passed: expiries 1 .. 10 of the new grid */
	CHECK_EQ(k.early, 0);
	zcast_executor_destroy(ex);
}

/* spin_once: ETIMEDOUT when nothing is ready, the number of turns when something ran, 0 after a
 * stop; spin_until never returns before its deadline; the old timer API still works. */
static int old_calls;
static void on_old(void *ctx)
{
	(void)ctx;
	old_calls++;
}

static void spin_variants(void)
{
	zcast_executor *ex = new_ex();
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	int64_t deadline = zt_now_ns() + 15 * MS;
	CHECK_EQ(zcast_executor_spin_until(ex, deadline), ZCAST_ETIMEDOUT);
	CHECK(zt_now_ns() >= deadline);
	CHECK_EQ(zcast_executor_add_timer(ex, 1 * MS, on_old, NULL), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 1);
	CHECK_EQ(old_calls, 1);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 0);
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() + 1000 * MS), 0);
	CHECK_EQ(zcast_executor_spin(ex), 0);
	CHECK_EQ(old_calls, 1);
	CHECK_EQ(zcast_executor_reset(ex), 0);
	CHECK(zcast_executor_spin_once(ex, -1) > 0);
	CHECK_EQ(old_calls, 2);
	CHECK_EQ(zcast_executor_add_timer(ex, 0, on_old, NULL), ZCAST_EINVAL);
	zcast_timer *t;
	CHECK_EQ(zcast_executor_add_timer2(ex, MS, 2, on_tick, NULL, &t), ZCAST_EINVAL);
	zcast_executor_destroy(ex);
}

int main(void)
{
	zt_setup("exec_timers", 120);
	RUN(oneshot_and_reset);
	RUN(missed_expiries);
	RUN(cancel);
	RUN(period_change);
	RUN(spin_variants);
	return 0;
}
