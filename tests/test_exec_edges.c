/* Edge inputs of the executor and its timers, as an outside tester would try them:
 *  - spin_once(0) ("just check") runs what is ready: a queued message, a due timer, a triggered
 *    guard; spin_until with a deadline that passed checks once too. (Before: the deadline was
 *    checked before the first wait, so spin_once(0) never ran anything.)
 *  - Huge periods and timeouts (INT64_MAX) mean "not in our time", never an expiry at once.
 *    (Before: now + period wrapped to the past, and the timer fired on every turn.)
 *  - NULL handles give ZCAST_EINVAL and a message that says what was NULL (before:
 *    zcast_executor_opts_init(NULL) crashed, zcast_waitset_remove(NULL, 0) blamed "entry 0"). */
#include "harness.h"
#include "zcast/executor.h"

#define MS 1000000ll

static int msgs, guards, ticks;
static void on_msg(zcast_sub *s, zcast_msg *m, void *ctx)
{
	(void)s, (void)m, (void)ctx;
	msgs++;
}
static void on_guard(zcast_guard *g, void *ctx)
{
	(void)g, (void)ctx;
	guards++;
}
static void on_tick(zcast_timer *t, uint64_t missed, void *ctx)
{
	(void)t, (void)missed, (void)ctx;
	ticks++;
}

static void publish_one(zcast_pub *p)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), 0);
}

static void spin_once_zero(void)
{
	zcast_pub *p = zt_open_pub("/edges/zero", 64, 8);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/edges/zero", NULL, &s), 0);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_sub(ex, s, on_msg, NULL, 0), 0);
	CHECK_EQ(zcast_executor_add_guard(ex, g, on_guard, NULL), 0);

	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT); /* nothing ready */
	publish_one(p);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), 1);
	CHECK_EQ(msgs, 1);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), 1);
	CHECK_EQ(guards, 1);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);

	zcast_timer *t;
	CHECK_EQ(zcast_executor_add_timer2(ex, 1 * MS, ZCAST_TIMER_ONESHOT, on_tick, NULL, &t), 0);
	while (zcast_timer_until_next(t) > 0) /* due (never early: wait for it) */
		zt_sleep_ms(1);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), 1);
	CHECK_EQ(ticks, 1);

	publish_one(p); /* a deadline that passed: one check, then ETIMEDOUT */
	CHECK_EQ(zcast_executor_spin_until(ex, zt_now_ns() - 1000), ZCAST_ETIMEDOUT);
	CHECK_EQ(msgs, 2);

	zcast_executor_destroy(ex);
	zcast_guard_destroy(g);
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void huge_periods(void)
{
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	zcast_timer *t;
	ticks = 0;
	CHECK_EQ(zcast_executor_add_timer2(ex, INT64_MAX, 0, on_tick, NULL, &t), 0);
	CHECK(zcast_timer_until_next(t) > 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 5 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_timer_set_period(t, INT64_MAX - 1), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 5 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_timer_reset(t), 0);
	CHECK(zcast_timer_until_next(t) > 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 5 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(ticks, 0);
	/* Back to a short period: the grid restarts from the reset, not from a saturated value. */
	CHECK_EQ(zcast_timer_set_period(t, 1 * MS), 0);
	CHECK(zcast_executor_spin_once(ex, -1) > 0);
	CHECK_EQ(ticks, 1);
	CHECK_EQ(zcast_timer_remove(t), 0);
	/* An INT64_MAX timeout is "forever", not a deadline in the past. */
	CHECK_EQ(zcast_executor_add_timer2(ex, 1 * MS, ZCAST_TIMER_ONESHOT, on_tick, NULL, &t), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, INT64_MAX), 1);
	CHECK_EQ(ticks, 2);
	zcast_executor_destroy(ex);

	/* The wait set's own timers and timeout. */
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id, tid;
	CHECK_EQ(zcast_waitset_add_timer(ws, INT64_MAX, NULL, &id), 0);
	zcast_ws_event ev[4];
	CHECK_EQ(zcast_waitset_wait(ws, 5 * MS, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_add_timer(ws, 1 * MS, NULL, &tid), 0);
	CHECK_EQ(zcast_waitset_wait(ws, INT64_MAX, ev, 4), 1);
	CHECK_EQ(ev[0].id, tid);
	zcast_waitset_destroy(ws);
}

static void null_inputs(void)
{
	zcast_executor_opts_init(NULL);
	CHECK_EQ(zcast_waitset_remove(NULL, 0), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "NULL") != NULL);
	CHECK_EQ(zcast_waitset_enable(NULL, 0, 1), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "NULL") != NULL);
	CHECK_EQ(zcast_timer_cancel(NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_timer_until_next(NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_executor_remove_sub(NULL, NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_executor_spin_once(NULL, 0), ZCAST_EINVAL);
}

int main(void)
{
	zt_setup("exec_edges", 60);
	spin_once_zero();
	huge_periods();
	null_inputs();
	printf("exec_edges: ok\n");
	return 0;
}
