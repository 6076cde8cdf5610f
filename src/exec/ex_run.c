/* Running executor callbacks: one turn of the wait set, then each ready entry run here
 * (single-threaded) or dispatched to the pool's workers (executor.c); spin, stop and reset. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor_internal.h"

_Thread_local struct ex_entry *ex_current;

/* ---- running callbacks ---- */

/* Under mu: the nearest timer expiry (< 0: none). */
ZC_HOT static int64_t next_timer(zcast_executor *ex)
{
	int64_t until = -1;
	for (uint32_t i = 0; i < ex->timers.n; i++) {
		struct ex_entry *en = ex->timers.v[i];
		int64_t next = zc_grid_next(&en->timer->grid);
		if (en->timer->grid.active && en->inflight == 0 && (until < 0 || next < until))
			until = next;
	}
	return until;
}

/* Under mu: a turn of `en` was reported but a stop kept it from running. A subscription or room
 * entry is reported again while it is ready; a guard's trigger, a graph change and a timer's expiry
 * were consumed by the report, so the turn is owed to the next turn (of this or a later spin)
 * instead of lost. */
static void owe(zcast_executor *ex, struct ex_entry *en)
{
	if (en->kind == ZCAST_WS_SUB || en->kind == ZCAST_WS_PUB_ROOM || en->owed ||
	    atomic_load(&en->removed))
		return;
	en->owed = true;
	ex_list_push(&ex->owed, en); /* reserved at add */
}

/* Under mu: collects the timers due at `now` into ex->due (a timer with a turn in flight waits:
 * its expiries are counted when it comes back), then the owed turns. */
ZC_HOT static void collect_due(zcast_executor *ex, int64_t now)
{
	ex->due.n = 0;
	for (uint32_t i = 0; i < ex->timers.n; i++) {
		struct ex_entry *en = ex->timers.v[i];
		if (en->inflight > 0 || en->owed) /* owed: runs for the expiry found before */
			continue;
		uint64_t n = zc_grid_expire(&en->timer->grid, now);
		if (n && ex_list_push(&ex->due, en) == 0) {
			en->missed = n - 1;
			en->due_gen = en->timer->gen;
		}
	}
	for (uint32_t i = 0; i < ex->owed.n; i++) {
		ex->owed.v[i]->owed = false;
		ex_list_push(&ex->due, ex->owed.v[i]);
	}
	ex->owed.n = 0;
}

/* A take failed in a turn (any thread): kept for spin to return, the spinning thread woken. The
 * entry stays ready and would fail again: re-polling it would only burn a core. */
static void take_failed(zcast_executor *ex, int r)
{
	pthread_mutex_lock(&ex->mu);
	if (!ex->take_error) {
		ex->take_error = r;
		snprintf(ex->take_error_text, sizeof ex->take_error_text, "%s", zcast_last_error());
	}
	pthread_mutex_unlock(&ex->mu);
	zcast_guard_trigger(ex->wake);
}

/* The take error of a turn, if any (cleared), with zcast_last_error set in this thread; else 0. */
static int take_error(zcast_executor *ex)
{
	pthread_mutex_lock(&ex->mu);
	int r = ex->take_error;
	char text[sizeof ex->take_error_text];
	memcpy(text, ex->take_error_text, sizeof text);
	ex->take_error = 0;
	pthread_mutex_unlock(&ex->mu);
	return r ? zc_err(r, "%s", text) : 0;
}

/* One turn of an entry: up to `batch` messages, or one call. */
ZC_HOT static void run_entry(zcast_executor *ex, struct ex_entry *en)
{
	struct ex_entry *outer = ex_current;
	ex_current = en;
	switch (en->kind) {
	case ZCAST_WS_TIMER:
		if (en->timer->fn)
			en->timer->fn(en->timer, en->missed, en->timer->ctx);
		else
			en->timer->old_fn(en->timer->ctx);
		break;
	case ZCAST_WS_GUARD:
		en->cb.guard(en->guard, en->ctx);
		break;
	case ZCAST_WS_PUB_ROOM:
		en->room_ops->run(en);
		break;
	case ZCAST_WS_GRAPH: {
		int now = en->pub ? zcast_pub_matched(en->pub) : zcast_sub_matched(en->sub);
		uint32_t died = ex_peers_died(en), crashed = died - en->died_prev;
		if (crashed > 1024u) /* more than a topic's members: a scribbled counter */
			crashed = 0;
		if (now >= 0 && (now != en->graph_prev || crashed)) {
			zcast_graph_event ev = {en->pub, en->pub ? NULL : en->sub, now,
						en->graph_prev, (int)crashed};
			en->graph_prev = now;
			en->died_prev = died;
			en->cb.graph(&ev, en->ctx);
		}
		break;
	}
	case ZCAST_WS_SUB:
		for (uint32_t k = 0;
		     k < ex->batch && !atomic_load(&ex->stop) && !atomic_load(&en->removed); k++) {
			zcast_msg *m;
			int r = zcast_take(en->sub, &m);
			if (r == ZCAST_EAGAIN || r == ZCAST_ELIMIT)
				break; /* the entry comes back when ready */
			if (r != 0) {
				take_failed(ex, r);
				break;
			}
			en->cb.sub(en->sub, m, en->ctx);
			zcast_msg_drop(m);
		}
		break;
	}
	ex_current = outer;
}

/* Under mu: is this turn still wanted? (not removed; a timer not changed since it was due) */
ZC_HOT static bool turn_wanted(struct ex_entry *en)
{
	return !atomic_load(&en->removed) &&
	       (en->kind != ZCAST_WS_TIMER || en->due_gen == en->timer->gen);
}

/* Under mu: one turn of en ended. */
ZC_HOT void ex_turn_done(zcast_executor *ex, struct ex_entry *en, bool pool)
{
	ex->busy--;
	if (--en->inflight > 0)
		return;
	if (pool && !atomic_load(&en->removed) && ex_list_push(&ex->done, en) == 0)
		zcast_guard_trigger(ex->wake);
	pthread_cond_broadcast(&ex->ctl_cv); /* a remove, cancel or drain may wait for this */
}

/* Single-threaded: runs one turn in the spinning thread. Returns 1 if it ran. */
ZC_HOT static int run_here(zcast_executor *ex, struct ex_entry *en)
{
	pthread_mutex_lock(&ex->mu);
	bool ok = turn_wanted(en);
	if (ok) {
		en->inflight++;
		ex->busy++;
		if (en->kind == ZCAST_WS_PUB_ROOM) /* one call per want_room */
			zcast_waitset_enable(ex->ws, en->ws_id, 0);
	}
	pthread_mutex_unlock(&ex->mu);
	if (!ok)
		return 0;
	run_entry(ex, en);
	pthread_mutex_lock(&ex->mu);
	ex_turn_done(ex, en, false);
	pthread_mutex_unlock(&ex->mu);
	return 1;
}

static void *worker_main(void *arg)
{
	zcast_executor *ex = arg;
	pthread_mutex_lock(&ex->mu);
	for (;;) {
		while (!ex->quit && ex->qlen == 0)
			pthread_cond_wait(&ex->work_cv, &ex->mu);
		if (ex->quit)
			break;
		struct ex_entry *en = ex->q[ex->qhead];
		ex->qhead = (ex->qhead + 1) % ex->qcap;
		ex->qlen--;
		if (turn_wanted(en)) {
			pthread_mutex_unlock(&ex->mu);
			run_entry(ex, en);
			pthread_mutex_lock(&ex->mu);
		}
		ex_turn_done(ex, en, true);
	}
	pthread_mutex_unlock(&ex->mu);
	return NULL;
}

/* Under mu: appends a turn to the work ring, growing it. */
ZC_HOT static int enqueue(zcast_executor *ex, struct ex_entry *en)
{
	if (ex->qlen == ex->qcap) {
		uint32_t cap = ex->qcap ? ex->qcap * 2 : 64;
		struct ex_entry **q = malloc(cap * sizeof *q);
		if (!q)
			return zc_err(ZCAST_ENOMEM, "out of memory");
		for (uint32_t i = 0; i < ex->qlen; i++)
			q[i] = ex->q[(ex->qhead + i) % ex->qcap];
		free(ex->q);
		ex->q = q;
		ex->qhead = 0;
		ex->qcap = cap;
	}
	ex->q[(ex->qhead + ex->qlen++) % ex->qcap] = en;
	return 0;
}

/* Pool mode: hands a ready entry to the workers. Returns the turns queued. */
ZC_HOT static int dispatch(zcast_executor *ex, struct ex_entry *en)
{
	uint32_t k = 1;
	pthread_mutex_lock(&ex->mu);
	if (!turn_wanted(en)) {
		pthread_mutex_unlock(&ex->mu);
		return 0;
	}
	if (en->kind == ZCAST_WS_SUB && (en->flags & ZCAST_EXEC_CONCURRENT)) {
		int q = zcast_sub_queued(en->sub);
		k = q < 1 ? 1 : (uint32_t)q < ex->threads ? (uint32_t)q : ex->threads;
	}
	if (en->ws_id >= 0)
		zcast_waitset_enable(ex->ws, en->ws_id, 0);
	uint32_t j = 0;
	while (j < k && enqueue(ex, en) == 0)
		j++;
	en->inflight += j;
	ex->busy += j;
	if (j == 0 && en->ws_id >= 0 && en->kind != ZCAST_WS_PUB_ROOM)
		zcast_waitset_enable(ex->ws, en->ws_id, 1); /* no memory: it stays ready */
	pthread_cond_broadcast(&ex->work_cv);
	pthread_mutex_unlock(&ex->mu);
	return (int)j;
}

/* Starts the workers not running yet: a spin after one that could not start them all tries again
 * (with none running, a dispatched turn would never end). */
static int start_workers(zcast_executor *ex)
{
	if (!ex->th && !(ex->th = calloc(ex->threads, sizeof *ex->th)))
		return zc_err(ZCAST_ENOMEM, "out of memory");
	for (; ex->n_th < ex->threads; ex->n_th++) {
		int r = zc_thread_start(worker_main, ex, &ex->th[ex->n_th], false);
		if (r != 0)
			return r; /* the ones that started are joined by destroy */
	}
	return 0;
}

/* Leaves a spin: queued turns are dropped (discard) or run to the end, and every running callback
 * has returned; meanwhile commands of callbacks are served. */
static void drain(zcast_executor *ex, bool discard)
{
	pthread_mutex_lock(&ex->mu);
	if (discard) {
		for (; ex->qlen; ex->qlen--, ex->qhead = (ex->qhead + 1) % ex->qcap) {
			struct ex_entry *en = ex->q[ex->qhead];
			en->inflight--;
			ex->busy--;
			if (en->inflight == 0 && !atomic_load(&en->removed))
				ex_list_push(&ex->done, en); /* watched again */
			owe(ex, en);
		}
		pthread_cond_broadcast(&ex->ctl_cv); /* a remove may wait for a dropped turn */
	}
	for (;;) {
		ex_service(ex);
		if (ex->busy == 0)
			break;
		pthread_cond_wait(&ex->ctl_cv, &ex->mu);
	}
	pthread_mutex_unlock(&ex->mu);
}

/* Runs (single-threaded) or dispatches (pool) one turn of a ready entry, or owes it after a
 * stop. */
static int run_or_owe(zcast_executor *ex, struct ex_entry *en, bool pool)
{
	if (atomic_load(&ex->stop)) {
		pthread_mutex_lock(&ex->mu);
		owe(ex, en);
		pthread_mutex_unlock(&ex->mu);
		return 0;
	}
	return pool ? dispatch(ex, en) : run_here(ex, en);
}

/* One wait and what it made ready: the callback turns run or dispatched (>= 0), ZCAST_ETIMEDOUT
 * when the wait timed out with nothing to run, or an error. */
ZC_HOT static int turn(zcast_executor *ex, int64_t deadline, bool pool)
{
	pthread_mutex_lock(&ex->mu);
	ex_service(ex);
	int64_t until = ex->owed.n ? 0 : next_timer(ex); /* owed turns: just check, then run them */
	pthread_mutex_unlock(&ex->mu);
	if (deadline >= 0 && (until < 0 || deadline < until))
		until = deadline;
	int64_t now = zc_now_ns(), timeout = until < 0 ? -1 : until > now ? until - now : 0;
	zcast_ws_event ev[64];
	int n = zcast_waitset_wait(ex->ws, timeout, ev, 64);
	if (n < 0 && n != ZCAST_ETIMEDOUT)
		return n;
	int ran = 0;
	for (int i = 0; i < n; i++) {
		struct ex_entry *en = ev[i].user;
		if (en) /* NULL: the wake guard; the next turn serves what it signalled */
			ran += run_or_owe(ex, en, pool);
	}
	pthread_mutex_lock(&ex->mu);
	collect_due(ex, zc_now_ns()); /* read after the wait: never early */
	pthread_mutex_unlock(&ex->mu);
	for (uint32_t i = 0; i < ex->due.n; i++)
		ran += run_or_owe(ex, ex->due.v[i], pool);
	return ran ? ran : n == ZCAST_ETIMEDOUT ? ZCAST_ETIMEDOUT : 0;
}

/* spin, spin_once and spin_until: turns until a stop, the deadline (< 0: none), or (once) the
 * first turn that ran something. */
ZC_HOT static int spin_impl(zcast_executor *ex, int64_t deadline, bool once)
{
	if (!ex)
		return zc_err(ZCAST_EINVAL, "executor is NULL");
	pthread_mutex_lock(&ex->mu);
	if (ex->spinning) {
		pthread_mutex_unlock(&ex->mu);
		return zc_err(ZCAST_EBUSY, "executor is spinning in another thread");
	}
	ex->spinning = true;
	ex->spin_thread = pthread_self();
	pthread_mutex_unlock(&ex->mu);
	bool pool = ex->threads > 1;
	int r = pool ? start_workers(ex) : 0, ran = 0;
	/* The deadline is checked after a turn: a turn with a deadline that passed waits no more but
	 * still runs what is ready, so spin_once(0) checks once instead of never. */
	while (r == 0 && !atomic_load(&ex->stop)) {
		int k = turn(ex, deadline, pool), e = take_error(ex);
		if (e < 0)
			k = e;
		if (k < 0 && k != ZCAST_ETIMEDOUT)
			r = k;
		else if (k > 0)
			ran += k;
		if (once && ran > 0)
			break;
		if (r == 0 && deadline >= 0 && zc_now_ns() >= deadline)
			r = ZCAST_ETIMEDOUT;
	}
	drain(ex, !once);
	pthread_mutex_lock(&ex->mu);
	ex_service(ex);
	ex->spinning = false;
	pthread_mutex_unlock(&ex->mu);
	int e = r == 0 || r == ZCAST_ETIMEDOUT ? take_error(ex) : 0; /* a worker's, after its turn */
	if (e < 0)
		return e;
	if (once)
		return r == 0 || ran > 0 ? ran : r;
	return r;
}

int zcast_executor_spin(zcast_executor *ex)
{
	return spin_impl(ex, -1, false);
}

int zcast_executor_spin_once(zcast_executor *ex, int64_t timeout_ns)
{
	return spin_impl(ex, timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns), true);
}

int zcast_executor_spin_until(zcast_executor *ex, int64_t deadline_ns)
{
	return spin_impl(ex, deadline_ns < 0 ? 0 : deadline_ns, false);
}

int zcast_executor_stop(zcast_executor *ex)
{
	if (!ex)
		return ZCAST_EINVAL; /* async-signal-safe: no zc_err */
	atomic_store(&ex->stop, 1);
	return zcast_guard_trigger(ex->wake);
}

int zcast_executor_reset(zcast_executor *ex)
{
	if (!ex)
		return zc_err(ZCAST_EINVAL, "executor is NULL");
	atomic_store(&ex->stop, 0);
	return 0;
}
