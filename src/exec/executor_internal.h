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
/* What a "room again" entry waits for and calls: a publisher's (zcast_executor_add_room), or one
 * of the layer above (a server's or a client's, svc/svc_exec_room.c). `attach` adds the wait set's
 * level-triggered room entry (user: en); `run` makes the entry's one callback. */
struct zc_ex_room_ops {
	int (*attach)(zcast_waitset *ws, struct ex_entry *en, int *id);
	void (*run)(struct ex_entry *en);
};
/* Room entries of any kind (ex_entries.c): add (`cb` is the caller's callback, cast back by
 * ops->run), want and remove, each naming the entry by its handle `key` and its ops. */
ZC_HIDDEN int zc_ex_add_room(zcast_executor *ex, void *key, const struct zc_ex_room_ops *ops,
			     void (*cb)(void), void *ctx);
ZC_HIDDEN int zc_ex_want_room(zcast_executor *ex, const void *key,
			      const struct zc_ex_room_ops *ops);
ZC_HIDDEN int zc_ex_remove_room(zcast_executor *ex, const void *key,
				const struct zc_ex_room_ops *ops);

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

struct ex_entry {
	int kind;	 /* enum zcast_ws_kind */
	const void *key; /* what add and remove name: the sub, guard, pub (graph), timer, or the
			  * handle of a room entry (pub, server, client) */
	zcast_sub *sub;
	zcast_pub *pub;
	zcast_guard *guard;
	zcast_timer *timer;
	union {
		zcast_sub_callback sub;
		zcast_guard_callback guard;
		zcast_graph_callback graph;
		void (*room)(void); /* the room callback of its kind, cast back by room_ops->run */
	} cb;
	const struct zc_ex_room_ops *room_ops; /* room entries: their kind ... */
	void *room_of;			       /* ... and handle (key): pub, server or client */
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
ZC_HIDDEN extern _Thread_local struct ex_entry *ex_current;

/* Shared by the executor's files (executor.c, ex_*.c). */
ZC_HIDDEN int ex_list_reserve(struct ex_list *l, uint32_t n);
ZC_HIDDEN int ex_list_push(struct ex_list *l, struct ex_entry *en);
ZC_HIDDEN void ex_list_del(struct ex_list *l, uint32_t i);
ZC_HIDDEN void ex_free_entry(struct ex_entry *en);
ZC_HIDDEN bool ex_owns_ws(zcast_executor *ex);
ZC_HIDDEN uint32_t ex_peers_died(const struct ex_entry *en);
ZC_HIDDEN int ex_attach(zcast_executor *ex, struct ex_entry *en);
ZC_HIDDEN void ex_detach(zcast_executor *ex, struct ex_entry *en);
ZC_HIDDEN int ex_command(zcast_executor *ex, int op, struct ex_entry *en);
ZC_HIDDEN void ex_service(zcast_executor *ex);
ZC_HIDDEN void ex_turn_done(zcast_executor *ex, struct ex_entry *en, bool pool);
ZC_HIDDEN void ex_signals_forget(zcast_executor *ex);

#endif
