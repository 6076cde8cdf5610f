/* Executor: callbacks per subscription, timer, guard, graph entry and publisher room, on top of one
 * wait set (docs/WAITSETS.md, "Executor").
 *
 * Single-threaded: the spinning thread waits and runs callbacks itself.
 * Pool: the spinning thread only waits and dispatches. A ready entry is disabled in the wait set
 * (so it neither wakes us again nor costs its publishers a wake) and queued for the workers; the
 * worker that finishes it hands it back through `done` and the wake guard, and the dispatcher
 * enables it again. So one entry is never handled by two threads at once, unless
 * ZCAST_EXEC_CONCURRENT, where up to `threads` workers take from one subscription in parallel.
 *
 * Adding and removing while spinning. The wait set belongs to one thread: the spinning thread while
 * spin runs, else whoever holds `mu`. Another thread asks the spinning thread through a command
 * (queued under `mu`, the wake guard triggered) and waits for it; the spinning thread applies
 * commands at the start of each turn, when no wait is in progress. `inflight` counts the callback
 * turns of an entry that are queued or running (under `mu`): a remove marks the entry removed, has
 * it detached, and waits until inflight is 0 — unless it runs inside that entry's own callback. A
 * removed entry is freed by the spinning thread at the start of a turn (nothing of the previous
 * turn refers to it then), or at once when nobody spins.
 *
 * The wake guard rings the wait set's doorbell like the subscriptions and user guards do (guard.c),
 * so an executor of those sleeps on one futex word: without futex_waitv, a plain FUTEX_WAIT. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor_internal.h"

int ex_list_reserve(struct ex_list *l, uint32_t n)
{
	if (n <= l->cap)
		return 0;
	uint32_t cap = l->cap ? l->cap : 16;
	while (cap < n)
		cap *= 2;
	struct ex_entry **v = realloc(l->v, cap * sizeof *v);
	if (!v)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	l->v = v;
	l->cap = cap;
	return 0;
}

int ex_list_push(struct ex_list *l, struct ex_entry *en)
{
	int r = ex_list_reserve(l, l->n + 1);
	if (r == 0)
		l->v[l->n++] = en;
	return r;
}

void ex_list_del(struct ex_list *l, uint32_t i)
{
	l->v[i] = l->v[--l->n];
}

void ex_free_entry(struct ex_entry *en)
{
	free(en->timer);
	free(en);
}

void zc_ex_lock(zcast_executor *ex)
{
	pthread_mutex_lock(&ex->mu);
}

void zc_ex_unlock(zcast_executor *ex)
{
	pthread_mutex_unlock(&ex->mu);
}

void zc_ex_poke(zcast_executor *ex)
{
	zcast_guard_trigger(ex->wake);
}

void zcast_executor_opts_init(zcast_executor_opts *o)
{
	if (!o)
		return; /* nothing to fill (create takes NULL options as the defaults) */
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
	ex->cmds_tail = &ex->cmds;
	pthread_mutex_init(&ex->mu, NULL);
	pthread_cond_init(&ex->work_cv, NULL);
	pthread_cond_init(&ex->ctl_cv, NULL);
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

void zcast_executor_destroy(zcast_executor *ex)
{
	if (!ex)
		return;
	ex_signals_forget(ex);
	pthread_mutex_lock(&ex->mu);
	ex->quit = true;
	pthread_cond_broadcast(&ex->work_cv);
	pthread_mutex_unlock(&ex->mu);
	for (uint32_t i = 0; i < ex->n_th; i++)
		pthread_join(ex->th[i], NULL);
	free(ex->th);
	free(ex->q);
	zcast_waitset_destroy(ex->ws);
	zcast_guard_destroy(ex->wake);
	for (uint32_t i = 0; i < ex->live.n; i++)
		ex_free_entry(ex->live.v[i]);
	for (uint32_t i = 0; i < ex->dead.n; i++)
		ex_free_entry(ex->dead.v[i]);
	free(ex->live.v);
	free(ex->timers.v);
	free(ex->dead.v);
	free(ex->done.v);
	free(ex->due.v);
	free(ex->owed.v);
	pthread_mutex_destroy(&ex->mu);
	pthread_cond_destroy(&ex->work_cv);
	pthread_cond_destroy(&ex->ctl_cv);
	free(ex);
}
