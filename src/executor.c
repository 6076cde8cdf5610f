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

struct ex_entry {
	int kind;	 /* enum zcast_ws_kind */
	const void *key; /* what add and remove name: the sub, guard, pub (room, graph) or timer */
	zcast_sub *sub;
	zcast_pub *pub;
	zcast_guard *guard;
	zcast_timer *timer;
	union {
		zcast_sub_callback sub;
		zcast_guard_callback guard;
		zcast_room_callback room;
		zcast_graph_callback graph;
	} cb;
	void *ctx;
	unsigned flags;
	int ws_id;	      /* -1: not in the wait set (timers, or detached) */
	int graph_prev;	      /* graph: the count handed to the last call */
	uint32_t died_prev;   /* graph: the topic's died counter of the peers' kind, at that call */
	_Atomic bool removed; /* set under mu; read without it to end a batch early */
	/* Under mu: */
	uint32_t inflight; /* callback turns queued or running */
	uint32_t pins;	   /* an add waiting for its attach command: not freed meanwhile */
	bool want_room;	   /* room: a callback was asked for and the entry is not enabled yet */
	bool owed;	   /* in ex->owed: a reported turn a stop kept from running */
	uint64_t due_gen;  /* timers: the timer's gen when this expiry was found due */
	uint64_t missed;   /* timers: expiries missed before this one */
};

enum { CMD_ATTACH, CMD_DETACH };
struct ex_cmd {
	int op, result;
	bool done;
	char why[256]; /* the failure's message, for the caller's zcast_last_error */
	struct ex_entry *en;
	struct ex_cmd *next;
};

/* A callback waiting in a remove: the entry it runs for, the entry it waits for. Per thread, not
 * per entry: callbacks of one ZCAST_EXEC_CONCURRENT subscription may wait for different entries. */
struct ex_waiter {
	const struct ex_entry *runs, *waits_for;
	bool seen; /* reaches(): visited */
	struct ex_waiter *next;
};

/* A growable list of entry pointers. */
struct ex_list {
	struct ex_entry **v;
	uint32_t n, cap;
};

struct zcast_executor {
	zcast_waitset *ws;
	zcast_guard *wake; /* stop requests, commands, finished work, timer changes */
	uint32_t threads, batch;
	_Atomic int stop;
	pthread_mutex_t mu;
	pthread_cond_t work_cv; /* workers: work queued, or quit */
	pthread_cond_t ctl_cv;	/* commands done, inflight reached 0, commands queued (drain) */
	/* Under mu: */
	bool spinning;
	pthread_t spin_thread;
	struct ex_list live;   /* entries added and not removed */
	struct ex_list timers; /* the timers among them: a turn scans only these */
	struct ex_list dead;   /* removed, freed once inflight is 0 (by the spinning thread) */
	struct ex_list done;   /* pool: entries whose last queued turn finished */
	struct ex_list due;    /* timers found due this turn, and owed turns (spinning thread only) */
	struct ex_list owed;   /* guard, graph and timer turns reported but not run (a stop) */
	struct ex_cmd *cmds, **cmds_tail;
	struct ex_waiter *waiters; /* callbacks waiting in a remove (quiesce) */
	uint32_t n_want; /* room entries with want_room set */
	uint32_t busy;	 /* sum of inflight */
	/* Pool: a ring of queued turns (an entry appears up to `threads` times), workers started at
	 * the first spin and kept until destroy. */
	struct ex_entry **q;
	uint32_t qhead, qlen, qcap;
	bool quit;
	pthread_t *th;
	uint32_t n_th;
	/* Under mu: the first take that failed in a turn (not EAGAIN or ELIMIT), and its text, until
	 * the spinning thread returns it. */
	int take_error;
	char take_error_text[256];
};

/* The entry whose callback this thread runs (a remove from inside it must not wait for itself). */
static _Thread_local struct ex_entry *tls_current;

static int list_reserve(struct ex_list *l, uint32_t n)
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

static int list_push(struct ex_list *l, struct ex_entry *en)
{
	int r = list_reserve(l, l->n + 1);
	if (r == 0)
		l->v[l->n++] = en;
	return r;
}

static void list_del(struct ex_list *l, uint32_t i)
{
	l->v[i] = l->v[--l->n];
}

static void free_entry(struct ex_entry *en)
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

/* ---- the wait set, by its owner ---- */

/* Under mu: may this thread touch the wait set itself? */
static bool owns_ws(zcast_executor *ex)
{
	return !ex->spinning || pthread_equal(ex->spin_thread, pthread_self());
}

/* The topic's count of dead peers of the kind a graph entry watches: subscribers for a publisher's
 * entry, publishers for a subscriber's. Read once; the caller bounds the difference. */
static uint32_t peers_died(const struct ex_entry *en)
{
	return en->pub ? atomic_load(&en->pub->t.hdr->subs_died)
		       : atomic_load(&en->sub->t.hdr->pubs_died);
}

static int attach(zcast_executor *ex, struct ex_entry *en)
{
	switch (en->kind) {
	case ZCAST_WS_SUB:
		return zcast_waitset_add_sub(ex->ws, en->sub, en, &en->ws_id);
	case ZCAST_WS_GUARD:
		return zcast_waitset_add_guard(ex->ws, en->guard, en, &en->ws_id);
	case ZCAST_WS_GRAPH: {
		int r = en->pub ? zcast_waitset_add_pub_graph(ex->ws, en->pub, en, &en->ws_id)
				: zcast_waitset_add_sub_graph(ex->ws, en->sub, en, &en->ws_id);
		/* Counted after the wait set read the graph word: a join or leave in between is
		 * in the count, or bumps the word later and is reported, never lost. */
		en->graph_prev = en->pub ? zcast_pub_matched(en->pub) : zcast_sub_matched(en->sub);
		en->died_prev = peers_died(en);
		return r;
	}
	case ZCAST_WS_PUB_ROOM: {
		int r = zcast_waitset_add_pub_room(ex->ws, en->pub, en, &en->ws_id);
		if (r == 0) /* level-triggered: watched only after zcast_executor_want_room */
			zcast_waitset_enable(ex->ws, en->ws_id, 0);
		return r;
	}
	}
	return 0; /* timers are not in the wait set */
}

static void detach(zcast_executor *ex, struct ex_entry *en)
{
	if (en->ws_id >= 0)
		zcast_waitset_remove(ex->ws, en->ws_id);
	en->ws_id = -1;
}

/* Under mu, by a thread that does not own the wait set: has the spinning thread apply `op`. */
static int command(zcast_executor *ex, int op, struct ex_entry *en)
{
	struct ex_cmd c = {.op = op, .en = en};
	*ex->cmds_tail = &c;
	ex->cmds_tail = &c.next;
	pthread_cond_broadcast(&ex->ctl_cv); /* a spinning thread that drains waits there */
	zcast_guard_trigger(ex->wake);
	while (!c.done)
		pthread_cond_wait(&ex->ctl_cv, &ex->mu);
	return c.result < 0 ? zc_err(c.result, "%s", c.why) : c.result;
}

/* Under mu, by the owner: what other threads asked for, finished work, wanted room, the dead. */
ZC_HOT static void service(zcast_executor *ex)
{
	for (struct ex_cmd *c = ex->cmds; c; c = c->next) {
		if (c->op == CMD_DETACH)
			detach(ex, c->en);
		else /* removed while the attach waited: never attach it */
			c->result = atomic_load(&c->en->removed)
					? zc_err(ZCAST_ENOENT, "entry removed while being added")
					: attach(ex, c->en);
		if (c->result < 0)
			snprintf(c->why, sizeof c->why, "%s", zcast_last_error());
		c->done = true;
	}
	if (ex->cmds) {
		ex->cmds = NULL;
		ex->cmds_tail = &ex->cmds;
		pthread_cond_broadcast(&ex->ctl_cv);
	}
	for (uint32_t i = 0; i < ex->done.n; i++) {
		struct ex_entry *en = ex->done.v[i];
		if (!atomic_load(&en->removed) && en->ws_id >= 0 && en->kind != ZCAST_WS_PUB_ROOM)
			zcast_waitset_enable(ex->ws, en->ws_id, 1);
	}
	ex->done.n = 0;
	for (uint32_t i = 0; ex->n_want && i < ex->live.n; i++) {
		struct ex_entry *en = ex->live.v[i];
		if (en->want_room && en->inflight == 0 && en->ws_id >= 0) {
			en->want_room = false;
			ex->n_want--;
			zcast_waitset_enable(ex->ws, en->ws_id, 1);
		}
	}
	for (uint32_t i = 0; i < ex->dead.n;) {
		if (ex->dead.v[i]->inflight == 0 && ex->dead.v[i]->pins == 0) {
			free_entry(ex->dead.v[i]);
			list_del(&ex->dead, i);
		} else {
			i++;
		}
	}
}

/* ---- add and remove ---- */

static struct ex_entry *find(zcast_executor *ex, int kind, const void *key, uint32_t *at)
{
	for (uint32_t i = 0; i < ex->live.n; i++)
		if (ex->live.v[i]->kind == kind && ex->live.v[i]->key == key) {
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
	int r = find(ex, en->kind, en->key, NULL)
		    ? zc_err(ZCAST_EBUSY, "already added to this executor")
		    : list_reserve(&ex->dead, ex->dead.n + ex->live.n + 1);
	if (r == 0) /* an entry is owed at most once: owing never fails either */
		r = list_reserve(&ex->owed, ex->live.n + 1);
	if (r == 0 &&
	    en->kind == ZCAST_WS_TIMER) /* timers live in the executor, not the wait set */
		r = list_reserve(&ex->timers, ex->timers.n + 1);
	bool ours = true; /* false: a racing remove took the entry (and frees it) */
	if (r == 0)
		r = list_push(&ex->live, en);
	if (r == 0) {
		if (en->kind == ZCAST_WS_TIMER)
			list_push(&ex->timers, en); /* reserved above */
		else if (owns_ws(ex))
			r = attach(ex, en);
		else {
			en->pins++;
			r = command(ex, CMD_ATTACH, en);
			en->pins--;
		}
		uint32_t at;
		if (r < 0 && atomic_load(&en->removed))
			ours = false; /* a racing remove took it: it is in `dead` */
		else if (r < 0 && find(ex, en->kind, en->key, &at) == en)
			list_del(&ex->live, at);
	}
	pthread_mutex_unlock(&ex->mu);
	if (r < 0) {
		if (ours)
			free_entry(en);
		return r;
	}
	zcast_guard_trigger(
	    ex->wake); /* a new timer: the spinning thread recomputes its deadline */
	return 0;
}

static void turn_done(zcast_executor *ex, struct ex_entry *en, bool pool);

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
		turn_done(ex, en, true);
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
	struct ex_entry *me = tls_current;
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

static int remove_entry(zcast_executor *ex, int kind, const void *key)
{
	if (!ex || !key)
		return zc_err(ZCAST_EINVAL, "executor and handle are required");
	pthread_mutex_lock(&ex->mu);
	uint32_t at;
	struct ex_entry *en = find(ex, kind, key, &at);
	if (!en) {
		pthread_mutex_unlock(&ex->mu);
		return zc_err(ZCAST_ENOENT, "not added to this executor");
	}
	list_del(&ex->live, at);
	for (uint32_t i = 0; i < ex->timers.n; i++)
		if (ex->timers.v[i] == en)
			list_del(&ex->timers, i);
	atomic_store(&en->removed, true);
	for (uint32_t i = 0; en->owed && i < ex->owed.n; i++)
		if (ex->owed.v[i] == en) {
			list_del(&ex->owed, i);
			en->owed = false;
		}
	if (en->want_room) {
		en->want_room = false;
		ex->n_want--;
	}
	if (en->ws_id >= 0) {
		if (owns_ws(ex))
			detach(ex, en);
		else
			command(ex, CMD_DETACH, en);
	}
	quiesce(ex, en);
	/* The spinning thread may still hold it in this turn's events: it frees it next turn. */
	if (!ex->spinning && en->inflight == 0 && en->pins == 0)
		free_entry(en);
	else
		list_push(&ex->dead, en); /* reserved at add: cannot fail */
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
	return remove_entry(ex, ZCAST_WS_SUB, sub);
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
	return remove_entry(ex, ZCAST_WS_GUARD, g);
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
	return remove_entry(ex, ZCAST_WS_GRAPH, pub_or_sub);
}

int zcast_executor_add_room(zcast_executor *ex, zcast_pub *pub, zcast_room_callback cb, void *ctx)
{
	if (!ex || !pub || !cb)
		return zc_err(ZCAST_EINVAL, "executor, publisher and callback are required");
	struct ex_entry *en = calloc(1, sizeof *en);
	if (!en)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	en->kind = ZCAST_WS_PUB_ROOM;
	en->key = en->pub = pub;
	en->cb.room = cb;
	en->ctx = ctx;
	return add_entry(ex, en);
}

int zcast_executor_want_room(zcast_executor *ex, zcast_pub *pub)
{
	if (!ex || !pub)
		return zc_err(ZCAST_EINVAL, "executor and publisher are required");
	pthread_mutex_lock(&ex->mu);
	struct ex_entry *en = find(ex, ZCAST_WS_PUB_ROOM, pub, NULL);
	if (en && !en->want_room) {
		en->want_room = true; /* enabled by the owner of the wait set at its next turn */
		ex->n_want++;
	}
	bool direct = en && !ex->spinning;
	if (direct)
		service(ex);
	pthread_mutex_unlock(&ex->mu);
	if (!en)
		return zc_err(ZCAST_ENOENT, "no room entry for this publisher");
	if (!direct)
		zcast_guard_trigger(ex->wake);
	return 0;
}

int zcast_executor_remove_room(zcast_executor *ex, zcast_pub *pub)
{
	return remove_entry(ex, ZCAST_WS_PUB_ROOM, pub);
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
	return remove_entry(t->ex, ZCAST_WS_TIMER, t);
}

void zc_ex_quiesce_timer(zcast_timer *t)
{
	quiesce(t->ex, t->en);
}

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
	list_push(&ex->owed, en); /* reserved at add */
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
		if (n && list_push(&ex->due, en) == 0) {
			en->missed = n - 1;
			en->due_gen = en->timer->gen;
		}
	}
	for (uint32_t i = 0; i < ex->owed.n; i++) {
		ex->owed.v[i]->owed = false;
		list_push(&ex->due, ex->owed.v[i]);
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
	struct ex_entry *outer = tls_current;
	tls_current = en;
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
		en->cb.room(en->pub, en->ctx);
		break;
	case ZCAST_WS_GRAPH: {
		int now = en->pub ? zcast_pub_matched(en->pub) : zcast_sub_matched(en->sub);
		uint32_t died = peers_died(en), crashed = died - en->died_prev;
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
	tls_current = outer;
}

/* Under mu: is this turn still wanted? (not removed; a timer not changed since it was due) */
ZC_HOT static bool turn_wanted(struct ex_entry *en)
{
	return !atomic_load(&en->removed) &&
	       (en->kind != ZCAST_WS_TIMER || en->due_gen == en->timer->gen);
}

/* Under mu: one turn of en ended. */
ZC_HOT static void turn_done(zcast_executor *ex, struct ex_entry *en, bool pool)
{
	ex->busy--;
	if (--en->inflight > 0)
		return;
	if (pool && !atomic_load(&en->removed) && list_push(&ex->done, en) == 0)
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
	turn_done(ex, en, false);
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
		turn_done(ex, en, true);
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
				list_push(&ex->done, en); /* watched again */
			owe(ex, en);
		}
		pthread_cond_broadcast(&ex->ctl_cv); /* a remove may wait for a dropped turn */
	}
	for (;;) {
		service(ex);
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
	service(ex);
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
	service(ex);
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

/* ---- signals ---- */

#define SIG_SLOTS 8
static zcast_executor *_Atomic sig_ex[SIG_SLOTS];
static pthread_mutex_t sig_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction sig_old_int, sig_old_term;
static int sig_users;
/* Handlers between loading an executor and leaving it: a destroy that cleared its slot waits for
 * them, or a handler in another thread would stop an executor already freed. */
static atomic_int sig_in_handler;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&sig_in_handler, 1); /* before the loads: see signals_forget */
	for (int i = 0; i < SIG_SLOTS; i++) {
		zcast_executor *ex = atomic_load(&sig_ex[i]);
		if (ex) {
			ZC_PAUSE("signal:before-stop");
			zcast_executor_stop(ex);
		}
	}
	atomic_fetch_sub(&sig_in_handler, 1);
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

/* Gives `sig` its handler from before stop_on_signals back, unless the program installed one of
 * its own since: that one stays. */
static void give_back(int sig, const struct sigaction *old)
{
	struct sigaction now;
	if (sigaction(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
	    now.sa_handler == on_signal)
		sigaction(sig, old, NULL);
}

static void signals_forget(zcast_executor *ex)
{
	bool had_slot = false;
	pthread_mutex_lock(&sig_mu);
	for (int i = 0; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_ex[i]) == ex) {
			had_slot = true;
			atomic_store(&sig_ex[i], NULL);
			if (--sig_users == 0) {
				give_back(SIGINT, &sig_old_int);
				give_back(SIGTERM, &sig_old_term);
			}
		}
	}
	pthread_mutex_unlock(&sig_mu);
	/* The slot is cleared (seq_cst), so a handler that comes in now loads NULL; one that came in
	 * before may hold `ex` until it leaves. A handler never blocks, so this wait is short; in this
	 * thread no handler can be in the middle of its run. */
	while (had_slot && atomic_load(&sig_in_handler) > 0)
		sched_yield();
}

void zcast_executor_destroy(zcast_executor *ex)
{
	if (!ex)
		return;
	signals_forget(ex);
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
		free_entry(ex->live.v[i]);
	for (uint32_t i = 0; i < ex->dead.n; i++)
		free_entry(ex->dead.v[i]);
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
