/* Adding and removing executor entries (subscriptions, guards, graph words, room, timers): a
 * remove waits until no callback turn of the entry is queued or running (executor.c). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor_internal.h"

/* ---- add and remove ---- */

/* The live entry of that kind and handle (room entries: and of those ops; others have none). */
static struct ex_entry *find(zcast_executor *ex, int kind, const void *key,
			     const struct zc_ex_room_ops *ops, uint32_t *at)
{
	for (uint32_t i = 0; i < ex->live.n; i++)
		if (ex->live.v[i]->kind == kind && ex->live.v[i]->key == key &&
		    ex->live.v[i]->room_ops == ops) {
			if (at)
				*at = i;
			return ex->live.v[i];
		}
	return NULL;
}

static int add_entry(zcast_executor *ex, struct ex_entry *en)
{
	en->ws_id = -1;
	pthread_mutex_lock(&ex->mu);
	/* Room in `dead` for every entry: a remove never fails for want of memory. */
	int r = find(ex, en->kind, en->key, en->room_ops, NULL)
		    ? zc_err(ZCAST_EBUSY, "already added to this executor")
		    : ex_list_reserve(&ex->dead, ex->dead.n + ex->live.n + 1);
	if (r == 0) /* an entry is owed at most once: owing never fails either */
		r = ex_list_reserve(&ex->owed, ex->live.n + 1);
	if (r == 0 &&
	    en->kind == ZCAST_WS_TIMER) /* timers live in the executor, not the wait set */
		r = ex_list_reserve(&ex->timers, ex->timers.n + 1);
	bool ours = true; /* false: a racing remove took the entry (and frees it) */
	if (r == 0)
		r = ex_list_push(&ex->live, en);
	if (r == 0) {
		if (en->kind == ZCAST_WS_TIMER)
			ex_list_push(&ex->timers, en); /* reserved above */
		else if (ex_owns_ws(ex))
			r = ex_attach(ex, en);
		else {
			en->pins++;
			r = ex_command(ex, CMD_ATTACH, en);
			en->pins--;
		}
		uint32_t at;
		if (r < 0 && atomic_load(&en->removed))
			ours = false; /* a racing remove took it: it is in `dead` */
		else if (r < 0 && find(ex, en->kind, en->key, en->room_ops, &at) == en)
			ex_list_del(&ex->live, at);
	}
	pthread_mutex_unlock(&ex->mu);
	if (r < 0) {
		if (ours)
			ex_free_entry(en);
		return r;
	}
	zcast_guard_trigger(
	    ex->wake); /* a new timer: the spinning thread recomputes its deadline */
	return 0;
}


/* Under mu: takes en's queued turns out of the work ring (workers blocked in a remove must not
 * wait for each other to skip them). */
static void purge_queued(zcast_executor *ex, struct ex_entry *en)
{
	uint32_t kept = 0, n = ex->qlen, dropped = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ex_entry *x = ex->q[(ex->qhead + i) % ex->qcap];
		if (x == en)
			dropped++;
		else
			ex->q[(ex->qhead + kept++) % ex->qcap] = x;
	}
	ex->qlen = kept;
	while (dropped--)
		ex_turn_done(ex, en, true);
}

/* Under mu: does a callback of `from` wait in a remove, directly or through others, for `target`?
 * A depth-first walk that visits each waiter once. */
static bool reaches(zcast_executor *ex, const struct ex_entry *from, const struct ex_entry *target)
{
	for (struct ex_waiter *w = ex->waiters; w; w = w->next) {
		if (w->seen || w->runs != from)
			continue;
		w->seen = true;
		if (w->waits_for == target || reaches(ex, w->waits_for, target))
			return true;
	}
	return false;
}

static bool waits_for(zcast_executor *ex, const struct ex_entry *en, const struct ex_entry *me)
{
	for (struct ex_waiter *w = ex->waiters; w; w = w->next)
		w->seen = false;
	return reaches(ex, en, me);
}

/* Under mu: waits until no turn of `en` is queued or running, unless we run inside one, or inside a
 * callback that a running callback of `en` waits for (two pool callbacks removing each other's
 * entries): waiting then would never end, so we return at once, as from the entry's own
 * callback. */
static void quiesce(zcast_executor *ex, struct ex_entry *en)
{
	struct ex_entry *me = ex_current;
	struct ex_waiter self = {me, en, false, NULL};
	bool listed = false;
	purge_queued(ex, en);
	while (en->inflight > 0 && me != en && !(me && waits_for(ex, en, me))) {
		if (me && !listed) {
			self.next = ex->waiters;
			ex->waiters = &self;
			listed = true;
		}
		pthread_cond_wait(&ex->ctl_cv, &ex->mu);
	}
	for (struct ex_waiter **p = &ex->waiters; listed && *p; p = &(*p)->next)
		if (*p == &self) {
			*p = self.next;
			break;
		}
}

static int remove_entry(zcast_executor *ex, int kind, const void *key,
			const struct zc_ex_room_ops *ops)
{
	if (!ex || !key)
		return zc_err(ZCAST_EINVAL, "executor and handle are required");
	pthread_mutex_lock(&ex->mu);
	uint32_t at;
	struct ex_entry *en = find(ex, kind, key, ops, &at);
	if (!en) {
		pthread_mutex_unlock(&ex->mu);
		return zc_err(ZCAST_ENOENT, "not added to this executor");
	}
	ex_list_del(&ex->live, at);
	for (uint32_t i = 0; i < ex->timers.n; i++)
		if (ex->timers.v[i] == en)
			ex_list_del(&ex->timers, i);
	atomic_store(&en->removed, true);
	for (uint32_t i = 0; en->owed && i < ex->owed.n; i++)
		if (ex->owed.v[i] == en) {
			ex_list_del(&ex->owed, i);
			en->owed = false;
		}
	if (en->want_room) {
		en->want_room = false;
		ex->n_want--;
	}
	if (en->ws_id >= 0) {
		if (ex_owns_ws(ex))
			ex_detach(ex, en);
		else
			ex_command(ex, CMD_DETACH, en);
	}
	quiesce(ex, en);
	/* The spinning thread may still hold it in this turn's events: it frees it next turn. */
	if (!ex->spinning && en->inflight == 0 && en->pins == 0)
		ex_free_entry(en);
	else
		ex_list_push(&ex->dead, en); /* reserved at add: cannot fail */
	pthread_mutex_unlock(&ex->mu);
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
	en->key = en->sub = sub;
	en->cb.sub = cb;
	en->ctx = ctx;
	en->flags = flags;
	return add_entry(ex, en);
}

int zcast_executor_remove_sub(zcast_executor *ex, zcast_sub *sub)
{
	return remove_entry(ex, ZCAST_WS_SUB, sub, NULL);
}

int zcast_executor_add_guard(zcast_executor *ex, zcast_guard *g, zcast_guard_callback cb, void *ctx)
{
	if (!ex || !g || !cb)
		return zc_err(ZCAST_EINVAL, "executor, guard and callback are required");
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_GUARD;
	en->key = en->guard = g;
	en->cb.guard = cb;
	en->ctx = ctx;
	return add_entry(ex, en);
}

int zcast_executor_remove_guard(zcast_executor *ex, zcast_guard *g)
{
	return remove_entry(ex, ZCAST_WS_GUARD, g, NULL);
}

static int add_graph(zcast_executor *ex, zcast_pub *pub, zcast_sub *sub, zcast_graph_callback cb,
		     void *ctx)
{
	if (!ex || (!pub && !sub) || !cb)
		return zc_err(ZCAST_EINVAL, "executor, handle and callback are required");
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_GRAPH;
	en->pub = pub;
	en->sub = sub;
	en->key = pub ? (const void *)pub : (const void *)sub;
	en->cb.graph = cb;
	en->ctx = ctx;
	return add_entry(ex, en); /* reported relative to the add (attach takes the counts) */
}

int zcast_executor_add_pub_graph(zcast_executor *ex, zcast_pub *pub, zcast_graph_callback cb,
				 void *ctx)
{
	if (!pub)
		return zc_err(ZCAST_EINVAL, "pub is NULL");
	return add_graph(ex, pub, NULL, cb, ctx);
}

int zcast_executor_add_sub_graph(zcast_executor *ex, zcast_sub *sub, zcast_graph_callback cb,
				 void *ctx)
{
	if (!sub)
		return zc_err(ZCAST_EINVAL, "sub is NULL");
	return add_graph(ex, NULL, sub, cb, ctx);
}

int zcast_executor_remove_graph(zcast_executor *ex, const void *pub_or_sub)
{
	return remove_entry(ex, ZCAST_WS_GRAPH, pub_or_sub, NULL);
}

int zc_ex_add_room(zcast_executor *ex, void *key, const struct zc_ex_room_ops *ops,
		   void (*cb)(void), void *ctx)
{
	if (!ex || !key || !cb)
		return zc_err(ZCAST_EINVAL, "executor, handle and callback are required");
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_PUB_ROOM;
	en->key = en->room_of = key;
	en->room_ops = ops;
	en->cb.room = cb;
	en->ctx = ctx;
	return add_entry(ex, en);
}

int zc_ex_want_room(zcast_executor *ex, const void *key, const struct zc_ex_room_ops *ops)
{
	if (!ex || !key)
		return zc_err(ZCAST_EINVAL, "executor and handle are required");
	pthread_mutex_lock(&ex->mu);
	struct ex_entry *en = find(ex, ZCAST_WS_PUB_ROOM, key, ops, NULL);
	if (en && !en->want_room) {
		en->want_room = true; /* enabled by the owner of the wait set at its next turn */
		ex->n_want++;
	}
	bool direct = en && !ex->spinning;
	if (direct)
		ex_service(ex);
	pthread_mutex_unlock(&ex->mu);
	if (!en)
		return zc_err(ZCAST_ENOENT, "no room entry for this handle");
	if (!direct)
		zcast_guard_trigger(ex->wake);
	return 0;
}

int zc_ex_remove_room(zcast_executor *ex, const void *key, const struct zc_ex_room_ops *ops)
{
	return remove_entry(ex, ZCAST_WS_PUB_ROOM, key, ops);
}

/* A publisher's room entry: the wait set's room entry of the publisher. */
static int pub_room_attach(zcast_waitset *ws, struct ex_entry *en, int *id)
{
	return zcast_waitset_add_pub_room(ws, en->room_of, en, id);
}

static void pub_room_run(struct ex_entry *en)
{
	((zcast_room_callback)en->cb.room)(en->room_of, en->ctx);
}

static const struct zc_ex_room_ops pub_room = {pub_room_attach, pub_room_run};

int zcast_executor_add_room(zcast_executor *ex, zcast_pub *pub, zcast_room_callback cb, void *ctx)
{
	if (!ex || !pub || !cb)
		return zc_err(ZCAST_EINVAL, "executor, publisher and callback are required");
	return zc_ex_add_room(ex, pub, &pub_room, (void (*)(void))cb, ctx);
}

int zcast_executor_want_room(zcast_executor *ex, zcast_pub *pub)
{
	return zc_ex_want_room(ex, pub, &pub_room);
}

int zcast_executor_remove_room(zcast_executor *ex, zcast_pub *pub)
{
	return zc_ex_remove_room(ex, pub, &pub_room);
}

int zc_ex_add_timer(zcast_executor *ex, zcast_timer *t, zcast_timer **out)
{
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en) {
		free(t);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	en->kind = ZCAST_WS_TIMER;
	en->key = en->timer = t;
	t->en = en;
	int r = add_entry(ex, en); /* frees en and t on failure */
	if (r == 0 && out)
		*out = t;
	return r;
}

int zc_ex_remove_timer(zcast_timer *t)
{
	return remove_entry(t->ex, ZCAST_WS_TIMER, t, NULL);
}

void zc_ex_quiesce_timer(zcast_timer *t)
{
	quiesce(t->ex, t->en);
}
