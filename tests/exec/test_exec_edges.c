/* Edge inputs of the executor and its timers, as an outside tester would try them:
 *  - spin_once(0) ("just check") runs what is ready: a queued message, a due timer, a triggered
 *    guard; spin_until with a deadline that passed checks once too. (Before: the deadline was
 *    checked before the first wait, so spin_once(0) never ran anything.)
 *  - Huge periods and timeouts (INT64_MAX) mean "not in our time", never an expiry at once.
 *    (Before: now + period wrapped to the past, and the timer fired on every turn; zcast_wait,
 *    zcast_loan_wait and zcast_publish_wait overflowed a signed add, which the UBSan stage aborts;
 *    and zcast_wait's spin_ns outlasted its timeout.)
 *  - A stop loses nothing: a guard trigger, graph change or timer expiry the wait set reported but
 *    a stop kept from running (single-threaded: later events of the same turn; pool: turns still
 *    queued when spin returns) runs at the next spin. (Before: those were consumed and dropped.)
 *  - Two pool callbacks that remove each other's entries at the same moment both return (before:
 *    each waited for the other's callback to end, forever), also when the entry's callbacks run
 *    concurrently and wait in different removes.
 *  - A graph entry added from another thread while the executor spins is reported relative to when
 *    the wait set attached it: a join while the add waited is not reported later as a change from
 *    the count before it (before: the count was read when the add was called, the graph word when
 *    the spinning thread attached the entry, so a later event's `previous` was stale).
 *  - A pool spin that could not start its worker threads fails, and so does the next one until the
 *    threads start (before: the next spin took the failed start for a success and hung, waiting
 *    for turns no worker would ever run).
 *  - NULL handles give ZCAST_EINVAL and a message that says what was NULL (before:
 *    zcast_executor_opts_init(NULL) crashed, zcast_waitset_remove(NULL, 0) blamed "entry 0").
 *  - Destroy gives back the SIGINT / SIGTERM handlers stop_on_signals replaced, but not over a
 *    handler the program installed since (before: the program's handler was overwritten).
 *  - Destroy waits for a signal handler that, in another thread, already holds the executor
 *    (before: the handler stopped the freed executor, a use-after-free the ASan stage reports;
 *    ZCAST_PAUSE_AT holds the handler's window open in test builds). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

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

/* Waits with a timeout of INT64_MAX ns, ended by another thread: the take, drop or publish. */
struct later {
	zcast_pub *p;
	zcast_sub *s;
	zcast_msg *held;
	int what; /* 0 publish, 1 take, 2 drop `held` */
};
static void *later_main(void *arg)
{
	struct later *l = arg;
	zt_sleep_ms(10); /* the wait has begun (if not yet, it returns at once: no harm) */
	zcast_msg *m;
	if (l->what == 0) {
		CHECK_EQ(zcast_loan(l->p, 8, &m), 0);
		CHECK_EQ(zcast_publish(l->p, m), 0);
	} else if (l->what == 1) {
		CHECK_EQ(zcast_take(l->s, &m), 0);
		zcast_msg_drop(m);
	} else {
		zcast_msg_drop(l->held);
	}
	return NULL;
}
static void run_later(struct later *l, int what, pthread_t *th)
{
	l->what = what;
	CHECK_EQ(pthread_create(th, NULL, later_main, l), 0);
}

static void huge_timeouts_of_waits(void)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 1;
	o.spin_ns = UINT64_MAX / 2 + 1; /* beyond int64: read as "spin as long as you like"... */
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/edges/waits", &o, &s), 0);
	zcast_pub *p = zt_open_pub("/edges/waits", 64, 2);
	struct later l = {.p = p, .s = s};
	pthread_t th;
	run_later(&l, 0, &th);
	CHECK_EQ(zcast_wait(s, INT64_MAX), 0); /* ...which ends as soon as a message is queued */
	CHECK_EQ(pthread_join(th, NULL), 0);
	zcast_msg *m; /* the queue is full (depth 1), one slot left */
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	run_later(&l, 1, &th);
	CHECK_EQ(zcast_publish_wait(p, m, INT64_MAX), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(zcast_take(s, &l.held), 0); /* both slots in use: held, and one loaned */
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	zcast_msg *m2;
	run_later(&l, 2, &th);
	CHECK_EQ(zcast_loan_wait(p, 8, INT64_MAX, &m2), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	zcast_msg_drop(m);
	zcast_msg_drop(m2);
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_pub_close(p), 0);

	/* A spin is part of the wait: an hour of spin_ns does not outlast a timeout of 0 or 1 ms
	 * (before: zcast_wait(s, 0) spun the whole hour). */
	o.spin_ns = 3600000000000ull;
	CHECK_EQ(zcast_sub_open("/edges/waits", &o, &s), 0);
	CHECK_EQ(zcast_wait(s, 0), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_wait(s, 1 * MS), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_sub_close(s), 0);
}

/* Each callback counts itself and stops the executor. */
static zcast_executor *stop_ex;
static int stop_calls[4];
static void stop_guard(zcast_guard *g, void *ctx)
{
	(void)g;
	stop_calls[(intptr_t)ctx]++;
	zcast_executor_stop(stop_ex);
}
static void stop_graph(const zcast_graph_event *ev, void *ctx)
{
	(void)ev;
	stop_calls[(intptr_t)ctx]++;
	zcast_executor_stop(stop_ex);
}
static void stop_tick(zcast_timer *t, uint64_t missed, void *ctx)
{
	(void)t, (void)missed;
	stop_calls[(intptr_t)ctx]++;
	zcast_executor_stop(stop_ex);
}

/* Four events ready at once, each callback stops: one runs per spin, the others at later spins. */
static void stop_owes_single(void)
{
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/edges/stop", NULL, &s), 0);
	zcast_guard *g[2];
	zcast_timer *t;
	CHECK_EQ(zcast_executor_create(NULL, &stop_ex), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_guard_create(&g[i]), 0);
		CHECK_EQ(zcast_executor_add_guard(stop_ex, g[i], stop_guard, (void *)(intptr_t)i),
			 0);
	}
	CHECK_EQ(zcast_executor_add_sub_graph(stop_ex, s, stop_graph, (void *)(intptr_t)2), 0);
	CHECK_EQ(zcast_executor_add_timer2(stop_ex, 1 * MS, ZCAST_TIMER_ONESHOT, stop_tick,
					   (void *)(intptr_t)3, &t),
		 0);
	zcast_pub *p = zt_open_pub("/edges/stop", 64, 4); /* a graph change */
	CHECK_EQ(zcast_guard_trigger(g[0]), 0);
	CHECK_EQ(zcast_guard_trigger(g[1]), 0);
	while (zcast_timer_until_next(t) > 0)
		zt_sleep_ms(1);
	for (int k = 1; k <= 4; k++) {
		CHECK_EQ(zcast_executor_spin_once(stop_ex, 0), 1);
		CHECK_EQ(stop_calls[0] + stop_calls[1] + stop_calls[2] + stop_calls[3], k);
		CHECK_EQ(zcast_executor_reset(stop_ex), 0);
	}
	for (int i = 0; i < 4; i++)
		CHECK_EQ(stop_calls[i], 1);
	CHECK_EQ(zcast_executor_spin_once(stop_ex, 0), ZCAST_ETIMEDOUT);
	zcast_executor_destroy(stop_ex);
	for (int i = 0; i < 2; i++)
		zcast_guard_destroy(g[i]);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zcast_sub_close(s), 0);
}

/* Pool: both workers block in guard callbacks X and Y; guard Z's turn waits in the queue when spin
 * is stopped. It runs at the next spin. (If this machine is slow enough that Z was not dispatched
 * before the stop, the wait set still has it: the check holds either way.) */
static _Atomic int blocked, release, z_calls;
static void block_guard(zcast_guard *g, void *ctx)
{
	(void)g, (void)ctx;
	atomic_fetch_add(&blocked, 1);
	while (!atomic_load(&release))
		zt_sleep_ms(1);
}
static void z_guard(zcast_guard *g, void *ctx)
{
	(void)g, (void)ctx;
	atomic_fetch_add(&z_calls, 1);
}
static void *spinner(void *ex)
{
	CHECK_EQ(zcast_executor_spin(ex), 0);
	return NULL;
}

/* An executor whose callbacks run in a pool of `threads` workers. */
static zcast_executor *pool_executor(uint32_t threads)
{
	zcast_executor_opts o;
	zcast_executor_opts_init(&o);
	o.threads = threads;
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(&o, &ex), 0);
	return ex;
}

static void stop_owes_pool(void)
{
	zcast_executor *ex = pool_executor(2);
	zcast_guard *x, *y, *z;
	CHECK_EQ(zcast_guard_create(&x), 0);
	CHECK_EQ(zcast_guard_create(&y), 0);
	CHECK_EQ(zcast_guard_create(&z), 0);
	CHECK_EQ(zcast_executor_add_guard(ex, x, block_guard, NULL), 0);
	CHECK_EQ(zcast_executor_add_guard(ex, y, block_guard, NULL), 0);
	CHECK_EQ(zcast_executor_add_guard(ex, z, z_guard, NULL), 0);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, spinner, ex), 0);
	CHECK_EQ(zcast_guard_trigger(x), 0);
	CHECK_EQ(zcast_guard_trigger(y), 0);
	while (atomic_load(&blocked) < 2)
		zt_sleep_ms(1);
	CHECK_EQ(zcast_guard_trigger(z), 0);
	zt_sleep_ms(20); /* lets the spinning thread queue Z's turn (see above) */
	CHECK_EQ(zcast_executor_stop(ex), 0);
	atomic_store(&release, 1);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(zcast_executor_reset(ex), 0);
	while (atomic_load(&z_calls) == 0)
		CHECK(zcast_executor_spin_once(ex, 0) != ZCAST_ETIMEDOUT);
	CHECK_EQ(atomic_load(&z_calls), 1);
	zcast_executor_destroy(ex);
	zcast_guard_destroy(x);
	zcast_guard_destroy(y);
	zcast_guard_destroy(z);
}

/* Guard callbacks A and B run in two workers at once, and each removes the other's entry. */
static zcast_executor *mutual_ex;
static zcast_guard *mutual_g[2];
static _Atomic int mutual_inside, mutual_done;
static void mutual_guard(zcast_guard *g, void *ctx)
{
	(void)g;
	int i = (int)(intptr_t)ctx;
	atomic_fetch_add(&mutual_inside, 1);
	while (atomic_load(&mutual_inside) <
	       2) /* both run: neither remove can purge a queued turn */
		zt_sleep_ms(1);
	CHECK_EQ(zcast_executor_remove_guard(mutual_ex, mutual_g[1 - i]), 0);
	atomic_fetch_add(&mutual_done, 1);
}

static void mutual_remove_pool(void)
{
	mutual_ex = pool_executor(2);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_guard_create(&mutual_g[i]), 0);
		CHECK_EQ(zcast_executor_add_guard(mutual_ex, mutual_g[i], mutual_guard,
						  (void *)(intptr_t)i),
			 0);
		CHECK_EQ(zcast_guard_trigger(mutual_g[i]), 0);
	}
	while (atomic_load(&mutual_done) < 2)
		CHECK(zcast_executor_spin_once(mutual_ex, -1) >= 0);
	CHECK_EQ(zcast_executor_remove_guard(mutual_ex, mutual_g[0]), ZCAST_ENOENT);
	CHECK_EQ(zcast_executor_remove_guard(mutual_ex, mutual_g[1]), ZCAST_ENOENT);
	zcast_executor_destroy(mutual_ex);
	for (int i = 0; i < 2; i++)
		zcast_guard_destroy(mutual_g[i]);
}

/* ZCAST_EXEC_CONCURRENT: two callbacks of subscription A run at once and wait in removes of guards
 * B and C; B's callback then removes A. A callback of A waits for B, so B's remove must return at
 * once. (Before: the entry remembered only the last remove one of its callbacks waited in, C, so B
 * waited for A while A waited for B.) */
static zcast_executor *conc_ex;
static zcast_sub *conc_sub;
static zcast_guard *conc_b, *conc_c;
static _Atomic int conc_a_in, conc_a_done, conc_b_in, conc_c_in, conc_b_go, conc_c_go,
    conc_b_removed;
static void conc_a(zcast_sub *s, zcast_msg *m, void *ctx)
{
	(void)s, (void)m, (void)ctx;
	int i = atomic_fetch_add(&conc_a_in, 1);
	/* all four run: no remove can purge a queued turn instead of waiting for a running one */
	ZT_EVENTUALLY(atomic_load(&conc_a_in) == 2 && atomic_load(&conc_b_in) &&
		      atomic_load(&conc_c_in));
	if (i == 1)
		zt_sleep_ms(30); /* the other waits for B first, then this one for C */
	CHECK_EQ(zcast_executor_remove_guard(conc_ex, i == 0 ? conc_b : conc_c), 0);
	atomic_fetch_add(&conc_a_done, 1);
}
static void conc_guard(zcast_guard *g, void *ctx)
{
	(void)ctx;
	bool is_b = g == conc_b;
	atomic_store(is_b ? &conc_b_in : &conc_c_in, 1);
	ZT_EVENTUALLY(atomic_load(is_b ? &conc_b_go : &conc_c_go));
	if (is_b) {
		CHECK_EQ(zcast_executor_remove_sub(conc_ex, conc_sub), 0);
		atomic_store(&conc_b_removed, 1);
	}
}

static void mutual_remove_concurrent_round(void)
{
	conc_a_in = conc_a_done = conc_b_in = conc_c_in = conc_b_go = conc_c_go = conc_b_removed =
	    0;
	zcast_pub *p = zt_open_pub("/edges/conc", 64, 8);
	CHECK_EQ(zcast_sub_open("/edges/conc", NULL, &conc_sub), 0);
	conc_ex = pool_executor(4);
	CHECK_EQ(zcast_guard_create(&conc_b), 0);
	CHECK_EQ(zcast_guard_create(&conc_c), 0);
	CHECK_EQ(zcast_executor_add_sub(conc_ex, conc_sub, conc_a, NULL, ZCAST_EXEC_CONCURRENT), 0);
	CHECK_EQ(zcast_executor_add_guard(conc_ex, conc_b, conc_guard, NULL), 0);
	CHECK_EQ(zcast_executor_add_guard(conc_ex, conc_c, conc_guard, NULL), 0);
	/* all ready before the first turn: A's two messages become two turns at once */
	CHECK_EQ(zcast_guard_trigger(conc_b), 0);
	CHECK_EQ(zcast_guard_trigger(conc_c), 0);
	publish_one(p);
	publish_one(p);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, spinner, conc_ex), 0);
	ZT_EVENTUALLY(atomic_load(&conc_b_in) && atomic_load(&conc_c_in));
	ZT_EVENTUALLY(atomic_load(&conc_a_in) == 2);
	zt_sleep_ms(100); /* both callbacks of A wait in their removes now */
	atomic_store(&conc_b_go, 1);
	ZT_EVENTUALLY(atomic_load(&conc_b_removed));
	atomic_store(&conc_c_go, 1);
	ZT_EVENTUALLY(atomic_load(&conc_a_done) == 2);
	CHECK_EQ(zcast_executor_stop(conc_ex), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(zcast_executor_remove_sub(conc_ex, conc_sub), ZCAST_ENOENT);
	zcast_executor_destroy(conc_ex);
	zcast_guard_destroy(conc_b);
	zcast_guard_destroy(conc_c);
	zcast_sub_close(conc_sub);
	zcast_pub_close(p);
}

/* Whether the old code deadlocked depended on the order in which the two callbacks of A woke (it
 * did in 3 of 8 runs): a few rounds make a regression show. */
static void mutual_remove_concurrent(void)
{
	for (int round = 0; round < 5; round++)
		mutual_remove_concurrent_round();
}

/* The spinning thread is held in a guard callback while another thread adds a graph entry (its
 * attach waits for the spinning thread) and a publisher joins. */
static _Atomic int held_in, let_go;
static _Atomic int graph_calls, graph_prev_seen, graph_matched_seen;
static void hold_guard(zcast_guard *g, void *ctx)
{
	(void)g, (void)ctx;
	atomic_store(&held_in, 1);
	while (!atomic_load(&let_go))
		zt_sleep_ms(1);
}
static void count_graph(const zcast_graph_event *ev, void *ctx)
{
	(void)ctx;
	graph_calls++;
	graph_prev_seen = ev->previous;
	graph_matched_seen = ev->matched;
}
struct graph_add {
	zcast_executor *ex;
	zcast_sub *sub;
	_Atomic int done;
};
static void *add_graph_thread(void *arg)
{
	struct graph_add *a = arg;
	CHECK_EQ(zcast_executor_add_sub_graph(a->ex, a->sub, count_graph, NULL), 0);
	atomic_store(&a->done, 1);
	return NULL;
}

static void graph_added_while_spinning(void)
{
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/edges/graph", NULL, &s), 0);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_guard(ex, g, hold_guard, NULL), 0);
	pthread_t spinning, adder;
	CHECK_EQ(pthread_create(&spinning, NULL, spinner, ex), 0);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	while (!atomic_load(&held_in))
		zt_sleep_ms(1);
	struct graph_add a = {ex, s, 0};
	CHECK_EQ(pthread_create(&adder, NULL, add_graph_thread, &a), 0);
	zt_sleep_ms(20); /* the add waits for its attach meanwhile (if it does not yet, no harm) */
	zcast_pub *p1 = zt_open_pub("/edges/graph", 64, 4);
	atomic_store(&let_go, 1);
	CHECK_EQ(pthread_join(adder, NULL), 0);
	int at_add = zcast_sub_matched(s); /* 1: the join came before the add returned */
	CHECK_EQ(at_add, 1);
	zcast_pub *p2 = zt_open_pub("/edges/graph", 64, 4);
	ZT_EVENTUALLY(graph_calls > 0 && graph_matched_seen == 2);
	CHECK_EQ(graph_matched_seen, 2);
	/* Every call's `previous` is the count of the call before, or the one at the add. */
	CHECK(graph_calls == 1 ? graph_prev_seen == at_add : graph_prev_seen == 1);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	CHECK_EQ(pthread_join(spinning, NULL), 0);
	zcast_executor_destroy(ex);
	zcast_guard_destroy(g);
	CHECK_EQ(zcast_pub_close(p1), 0);
	CHECK_EQ(zcast_pub_close(p2), 0);
	CHECK_EQ(zcast_sub_close(s), 0);
}

/* Thread creation fails while the default stack size is absurd (64 TiB: no mapping fits). */
static void default_stack(size_t size)
{
	pthread_attr_t a;
	CHECK_EQ(pthread_attr_init(&a), 0);
	CHECK_EQ(pthread_attr_setstacksize(&a, size), 0);
	CHECK_EQ(pthread_setattr_default_np(&a), 0);
	pthread_attr_destroy(&a);
}

static void pool_without_threads(void)
{
	zcast_executor *ex = pool_executor(2);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	guards = 0;
	CHECK_EQ(zcast_executor_add_guard(ex, g, on_guard, NULL), 0);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	pthread_attr_t def;
	size_t def_size;
	CHECK_EQ(pthread_getattr_default_np(&def), 0);
	CHECK_EQ(pthread_attr_getstacksize(&def, &def_size), 0);
	pthread_attr_destroy(&def);
	default_stack((size_t)1 << 46);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), ZCAST_ESYS);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), ZCAST_ESYS); /* tries again, does not hang */
	default_stack(def_size);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 1);
	CHECK_EQ(guards, 1);
	zcast_executor_destroy(ex);
	zcast_guard_destroy(g);
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
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	zcast_timer *t;
	CHECK_EQ(zcast_executor_add_timer2(ex, 1 * MS, 0, on_tick, NULL, &t), 0);
	CHECK_EQ(zcast_timer_cancel(t), 0);
	CHECK_EQ(zcast_timer_until_next(t), ZCAST_EAGAIN); /* with a message saying why */
	CHECK(strstr(zcast_last_error(), "cancelled") != NULL);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_executor_remove_sub(NULL, NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_executor_spin_once(NULL, 0), ZCAST_EINVAL);
}

static void program_handler(int sig)
{
	(void)sig;
}

static void *handler_of(int sig)
{
	struct sigaction sa;
	CHECK_EQ(sigaction(sig, NULL, &sa), 0);
	return (void *)sa.sa_handler;
}

static void signal_handlers_given_back(void)
{
	void *int0 = handler_of(SIGINT), *term0 = handler_of(SIGTERM);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_stop_on_signals(ex), 0);
	CHECK(handler_of(SIGINT) != int0);
	zcast_executor_destroy(ex);
	CHECK(handler_of(SIGINT) == int0);
	CHECK(handler_of(SIGTERM) == term0);

	/* the program installs its own SIGTERM handler while the executor lives: it stays */
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_stop_on_signals(ex), 0);
	struct sigaction mine, zcast_term;
	memset(&mine, 0, sizeof mine);
	mine.sa_handler = program_handler;
	sigemptyset(&mine.sa_mask);
	CHECK_EQ(sigaction(SIGTERM, &mine, &zcast_term), 0);
	zcast_executor_destroy(ex);
	CHECK(handler_of(SIGTERM) == (void *)program_handler);
	CHECK(handler_of(SIGINT) == int0);
	struct sigaction back;
	memset(&back, 0, sizeof back);
	back.sa_handler = (void (*)(int))term0;
	sigemptyset(&back.sa_mask);
	CHECK_EQ(sigaction(SIGTERM, &back, NULL), 0);
}

static atomic_int receiver_ready;
/* Takes one SIGINT: sigsuspend unblocks it and returns once a handler has run. */
static void *signal_receiver(void *arg)
{
	(void)arg;
	sigset_t all_but_int;
	pthread_sigmask(SIG_BLOCK, NULL, &all_but_int);
	sigdelset(&all_but_int, SIGINT);
	atomic_store(&receiver_ready, 1);
	sigsuspend(&all_but_int);
	return NULL;
}

static void signal_during_destroy(void)
{
	setenv("ZCAST_PAUSE_AT", "signal:before-stop:300", 1);
	/* Given back by the destroy: a SIGINT delivered late (a slow machine) then ends nothing. */
	struct sigaction mine, old_act;
	memset(&mine, 0, sizeof mine);
	mine.sa_handler = program_handler;
	sigemptyset(&mine.sa_mask);
	CHECK_EQ(sigaction(SIGINT, &mine, &old_act), 0);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* only the receiver takes SIGINT */
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_stop_on_signals(ex), 0);
	pthread_t rt;
	CHECK_EQ(pthread_create(&rt, NULL, signal_receiver, NULL), 0);
	ZT_EVENTUALLY(atomic_load(&receiver_ready));
	CHECK_EQ(pthread_kill(rt, SIGINT), 0);
	zt_sleep_ms(100);	    /* its handler holds `ex` now, paused before the stop */
	zcast_executor_destroy(ex); /* waits for the handler: it must not stop a freed executor */
	CHECK_EQ(pthread_join(rt, NULL), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CHECK_EQ(sigaction(SIGINT, &old_act, NULL), 0);
	unsetenv("ZCAST_PAUSE_AT");
}

int main(void)
{
	zt_setup("exec_edges", 60);
	signal_handlers_given_back();
	signal_during_destroy();
	spin_once_zero();
	huge_periods();
	huge_timeouts_of_waits();
	null_inputs();
	stop_owes_single();
	stop_owes_pool();
	mutual_remove_pool();
	mutual_remove_concurrent();
	graph_added_while_spinning();
	pool_without_threads();
	printf("exec_edges: ok\n");
	return 0;
}
