/* Executor: callbacks per subscription and timers on top of one wait set (docs/WAITSETS.md).
 *
 * Single-threaded: the spinning thread waits and runs callbacks itself.
 * Pool: the spinning thread only waits and dispatches. A ready entry is disabled in the wait set
 * (so it neither wakes us again nor costs its publishers a wake) and queued for the workers; the
 * worker that finishes it hands it back through `done` and the wake guard, and the dispatcher
 * enables it again. So one subscription is never handled by two threads at once, unless
 * ZCAST_EXEC_CONCURRENT, where up to `threads` workers take from it in parallel. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "wait_internal.h"
#include "zcast/executor.h"

struct ex_entry {
	int kind; /* ZCAST_WS_SUB or ZCAST_WS_TIMER */
	zcast_sub *sub;
	zcast_sub_callback cb;
	zcast_timer_callback tcb;
	void *ctx;
	unsigned flags;
	int ws_id;
	_Atomic uint32_t inflight; /* queued or running work items */
};

struct zcast_executor {
	zcast_waitset *ws;
	zcast_guard *wake; /* stop requests and finished work */
	struct ex_entry **e;
	int n, cap;
	uint32_t threads, batch;
	_Atomic int stop;
	_Atomic int spinning;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ex_entry **q; /* work ring */
	uint32_t qhead, qlen, qcap;
	struct ex_entry **done;
	uint32_t n_done;
	bool quit;
	pthread_t *th;
};

void zcast_executor_opts_init(zcast_executor_opts *o)
{
	memset(o, 0, sizeof *o);
	o->threads = 1;
	o->batch = 16;
}

int zcast_executor_create(const zcast_executor_opts *opts, zcast_executor **out)
{
	zcast_executor_opts def;
	if (!opts) {
		zcast_executor_opts_init(&def);
		opts = &def;
	}
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	if (opts->threads > 1024)
		return zc_err(ZCAST_EINVAL, "threads %u out of range (0 .. 1024)", opts->threads);
	zcast_executor *ex = calloc(1, sizeof *ex);
	if (!ex)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	ex->threads = opts->threads ? opts->threads : 1;
	ex->batch = opts->batch ? opts->batch : 16;
	pthread_mutex_init(&ex->mu, NULL);
	pthread_cond_init(&ex->cv, NULL);
	int id, r = zcast_waitset_create(&ex->ws);
	if (r == 0 && (r = zcast_guard_create(&ex->wake)) == 0)
		r = zcast_waitset_add_guard(ex->ws, ex->wake, NULL, &id);
	if (r < 0) {
		zcast_executor_destroy(ex);
		return r;
	}
	*out = ex;
	return 0;
}

static int add_entry(zcast_executor *ex, struct ex_entry *en)
{
	if (atomic_load(&ex->spinning)) {
		free(en);
		return zc_err(ZCAST_EBUSY, "executor is spinning: add entries before spin");
	}
	if (ex->n == ex->cap) {
		int cap = ex->cap ? ex->cap * 2 : 16;
		struct ex_entry **ne = realloc(ex->e, (size_t)cap * sizeof *ne);
		if (!ne) {
			free(en);
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		ex->e = ne;
		ex->cap = cap;
	}
	int r = en->kind == ZCAST_WS_SUB ? zcast_waitset_add_sub(ex->ws, en->sub, en, &en->ws_id)
					 : 0;
	if (r < 0) {
		free(en);
		return r;
	}
	ex->e[ex->n++] = en;
	return 0;
}

int zcast_executor_add_sub(zcast_executor *ex, zcast_sub *sub, zcast_sub_callback cb, void *ctx,
			   unsigned flags)
{
	if (!ex || !sub || !cb)
		return zc_err(ZCAST_EINVAL, "executor, subscriber and callback are required");
	if (flags & ~(unsigned)ZCAST_EXEC_CONCURRENT)
		return zc_err(ZCAST_EINVAL, "unknown flags 0x%x", flags);
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_SUB;
	en->sub = sub;
	en->cb = cb;
	en->ctx = ctx;
	en->flags = flags;
	return add_entry(ex, en);
}

int zcast_executor_add_timer(zcast_executor *ex, int64_t period_ns, zcast_timer_callback cb, void *ctx)
{
	if (!ex || !cb)
		return zc_err(ZCAST_EINVAL, "executor and callback are required");
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_TIMER;
	en->tcb = cb;
	en->ctx = ctx;
	int r = zcast_waitset_add_timer(ex->ws, period_ns, en, &en->ws_id);
	if (r < 0) {
		free(en);
		return r;
	}
	return add_entry(ex, en);
}

/* Runs one turn of an entry: up to `batch` messages, or one timer call. */
static void run_entry(zcast_executor *ex, struct ex_entry *en)
{
	if (en->kind == ZCAST_WS_TIMER) {
		en->tcb(en->ctx);
		return;
	}
	for (uint32_t k = 0; k < ex->batch && !atomic_load_explicit(&ex->stop, memory_order_relaxed);
	     k++) {
		zcast_msg *m;
		if (zcast_take(en->sub, &m) != 0)
			break; /* EAGAIN, or max_held reached: the entry comes back when ready */
		en->cb(en->sub, m, en->ctx);
		zcast_msg_drop(m);
	}
}

static void *worker_main(void *arg)
{
	zcast_executor *ex = arg;
	for (;;) {
		pthread_mutex_lock(&ex->mu);
		while (!ex->quit && ex->qlen == 0)
			pthread_cond_wait(&ex->cv, &ex->mu);
		if (ex->quit) { /* queued work is left: its messages stay queued */
			pthread_mutex_unlock(&ex->mu);
			return NULL;
		}
		struct ex_entry *en = ex->q[ex->qhead];
		ex->qhead = (ex->qhead + 1) % ex->qcap;
		ex->qlen--;
		pthread_mutex_unlock(&ex->mu);
		run_entry(ex, en);
		if (atomic_fetch_sub(&en->inflight, 1) == 1) {
			pthread_mutex_lock(&ex->mu);
			ex->done[ex->n_done++] = en;
			pthread_mutex_unlock(&ex->mu);
			zcast_guard_trigger(ex->wake);
		}
	}
}

/* Pool mode: hands a ready entry to the workers. Under no lock; takes mu. */
static void dispatch(zcast_executor *ex, struct ex_entry *en)
{
	uint32_t k = 1;
	if (en->kind == ZCAST_WS_SUB && (en->flags & ZCAST_EXEC_CONCURRENT)) {
		int q = zcast_sub_queued(en->sub);
		k = q < 1 ? 1 : (uint32_t)q < ex->threads ? (uint32_t)q : ex->threads;
	}
	zcast_waitset_enable(ex->ws, en->ws_id, 0);
	atomic_store(&en->inflight, k);
	pthread_mutex_lock(&ex->mu);
	for (uint32_t j = 0; j < k; j++) /* qcap >= entries * threads: never full */
		ex->q[(ex->qhead + ex->qlen++) % ex->qcap] = en;
	pthread_cond_broadcast(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
}

static int start_pool(zcast_executor *ex)
{
	ex->qcap = (uint32_t)ex->n * ex->threads + 1;
	ex->q = calloc(ex->qcap, sizeof *ex->q);
	ex->done = calloc((size_t)ex->n + 1, sizeof *ex->done);
	ex->th = calloc(ex->threads, sizeof *ex->th);
	if (!ex->q || !ex->done || !ex->th)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	ex->qhead = ex->qlen = ex->n_done = 0;
	ex->quit = false;
	for (uint32_t i = 0; i < ex->threads; i++) {
		int r = zc_thread_start(worker_main, ex, &ex->th[i], false);
		if (r != 0) {
			ex->threads = i; /* join the ones that started */
			return r;
		}
	}
	return 0;
}

static void stop_pool(zcast_executor *ex)
{
	pthread_mutex_lock(&ex->mu);
	ex->quit = true;
	pthread_cond_broadcast(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
	for (uint32_t i = 0; ex->th && i < ex->threads; i++)
		pthread_join(ex->th[i], NULL);
	free(ex->q);
	free(ex->done);
	free(ex->th);
	ex->q = ex->done = NULL;
	ex->th = NULL;
	/* Work left in the queue never ran: every entry is watched again at the next spin. */
	for (int i = 0; i < ex->n; i++) {
		atomic_store(&ex->e[i]->inflight, 0);
		zcast_waitset_enable(ex->ws, ex->e[i]->ws_id, 1);
	}
}

int zcast_executor_spin(zcast_executor *ex)
{
	if (!ex)
		return zc_err(ZCAST_EINVAL, "executor is NULL");
	int zero = 0;
	if (!atomic_compare_exchange_strong(&ex->spinning, &zero, 1))
		return zc_err(ZCAST_EBUSY, "executor is spinning in another thread");
	bool pool = ex->threads > 1;
	uint32_t want_threads = ex->threads;
	int r = pool ? start_pool(ex) : 0;
	zcast_ws_event ev[64];
	while (r == 0 && !atomic_load(&ex->stop)) {
		int n = zcast_waitset_wait(ex->ws, -1, ev, 64);
		if (n < 0) {
			r = n;
			break;
		}
		for (int i = 0; i < n && !atomic_load(&ex->stop); i++) {
			struct ex_entry *en = ev[i].user;
			if (!en) { /* the wake guard: finished work comes back */
				if (pool) {
					pthread_mutex_lock(&ex->mu);
					for (uint32_t j = 0; j < ex->n_done; j++)
						zcast_waitset_enable(ex->ws, ex->done[j]->ws_id, 1);
					ex->n_done = 0;
					pthread_mutex_unlock(&ex->mu);
				}
				continue;
			}
			if (pool)
				dispatch(ex, en);
			else
				run_entry(ex, en);
		}
	}
	if (pool) {
		stop_pool(ex);
		ex->threads = want_threads;
	}
	atomic_store(&ex->spinning, 0);
	return r;
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

/* ---- signals ---- */

#define SIG_SLOTS 8
static zcast_executor *_Atomic sig_ex[SIG_SLOTS];
static pthread_mutex_t sig_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction sig_old_int, sig_old_term;
static int sig_users;

static void on_signal(int sig)
{
	(void)sig;
	for (int i = 0; i < SIG_SLOTS; i++) {
		zcast_executor *ex = atomic_load(&sig_ex[i]);
		if (ex)
			zcast_executor_stop(ex);
	}
}

int zcast_executor_stop_on_signals(zcast_executor *ex)
{
	if (!ex)
		return zc_err(ZCAST_EINVAL, "executor is NULL");
	pthread_mutex_lock(&sig_mu);
	int r = zc_err(ZCAST_ELIMIT, "at most %d executors stop on signals", SIG_SLOTS);
	for (int i = 0; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_ex[i]) == ex) {
			r = 0;
			break;
		}
		if (!atomic_load(&sig_ex[i])) {
			atomic_store(&sig_ex[i], ex);
			if (sig_users++ == 0) {
				struct sigaction sa;
				memset(&sa, 0, sizeof sa);
				sa.sa_handler = on_signal;
				sigemptyset(&sa.sa_mask);
				sa.sa_flags = SA_RESTART;
				sigaction(SIGINT, &sa, &sig_old_int);
				sigaction(SIGTERM, &sa, &sig_old_term);
			}
			r = 0;
			break;
		}
	}
	pthread_mutex_unlock(&sig_mu);
	return r;
}

static void signals_forget(zcast_executor *ex)
{
	pthread_mutex_lock(&sig_mu);
	for (int i = 0; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_ex[i]) == ex) {
			atomic_store(&sig_ex[i], NULL);
			if (--sig_users == 0) {
				sigaction(SIGINT, &sig_old_int, NULL);
				sigaction(SIGTERM, &sig_old_term, NULL);
			}
		}
	}
	pthread_mutex_unlock(&sig_mu);
}

void zcast_executor_destroy(zcast_executor *ex)
{
	if (!ex)
		return;
	signals_forget(ex);
	zcast_waitset_destroy(ex->ws);
	zcast_guard_destroy(ex->wake);
	for (int i = 0; i < ex->n; i++)
		free(ex->e[i]);
	free(ex->e);
	pthread_mutex_destroy(&ex->mu);
	pthread_cond_destroy(&ex->cv);
	free(ex);
}
