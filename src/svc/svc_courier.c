/* The courier: sends the refusals a server owes once their clients have room (server.c, refuse).
 * A refusal the library makes by itself (a request that fails a check) has no caller to retry it
 * when the client's response pool or queue is full, yet dropping it would leave the client's call
 * waiting for good. So the process keeps one executor thread, started at the first refusal owed,
 * with a room entry per server that owes one (the executor's room entry, exec/ex_entries.c): it
 * sleeps on those clients' routes (server_room.c, the `owed` source: a drop, a take, a close or a
 * death wakes it) and sends what finds room, wanting again while some are still owed. Nothing
 * runs while nothing is owed: the thread sleeps on its executor's wake guard alone.
 *
 * Fork: a child does not inherit the thread, and its servers are not its own either (the fork
 * rule); a child that opens servers and owes a refusal starts a courier of its own. */
#include <unistd.h>

#include "svc_internal.h"

static pthread_mutex_t courier_mu = PTHREAD_MUTEX_INITIALIZER;
static zcast_executor *courier; /* under courier_mu; kept for the process's life */
static pid_t courier_pid;	/* the process that started it (a forked child: not this one) */

static void *courier_main(void *arg)
{
	zcast_executor *ex = arg;
	while (zcast_executor_spin(ex) != 0) /* never stopped: 0 would be a stop */
		;
	return NULL;
}

static int owed_attach(zcast_waitset *ws, struct ex_entry *en, int *id)
{
	zcast_server *srv = en->room_of;
	return zc_waitset_add_room_src(ws, &srv->owed.src, en, id);
}

static const struct zc_ex_room_ops owed_room;

/* Sends what finds room; wants again while some refusal is still owed (a refusal kept after the
 * send's look wants too: one more call that finds it). ctx: the courier. */
static void owed_run(struct ex_entry *en)
{
	zcast_server *srv = en->room_of;
	if (zc_svc_refusals_send(srv) > 0)
		(void)zc_ex_want_room(en->ctx, srv, &owed_room);
}

static const struct zc_ex_room_ops owed_room = {owed_attach, owed_run};

/* The process's courier, started when missing; NULL when it cannot be. */
static zcast_executor *courier_get(void)
{
	pthread_mutex_lock(&courier_mu);
	/* A forked child: the parent's courier does not run here. */
	if (courier_pid != getpid()) {
		courier = NULL;
		courier_pid = getpid();
	}
	zcast_executor *ex = courier;
	pthread_t th;
	if (!ex && zcast_executor_create(NULL, &ex) == 0 &&
	    zc_thread_start(courier_main, ex, &th, true) != 0) {
		zcast_executor_destroy(ex);
		ex = NULL;
	}
	courier = ex;
	pthread_mutex_unlock(&courier_mu);
	return ex;
}

bool zc_svc_courier_want(zcast_server *srv)
{
	zcast_executor *ex = courier_get();
	if (!ex)
		return false;
	/* The cb is not called (owed_run does the work); the entry needs one. */
	int r = zc_ex_add_room(ex, srv, &owed_room, (void (*)(void))owed_run, ex);
	if (r == 0)
		atomic_store(&srv->couriered, true);
	return (r == 0 || r == ZCAST_EBUSY) && zc_ex_want_room(ex, srv, &owed_room) == 0;
}

void zc_svc_courier_forget(zcast_server *srv)
{
	if (!atomic_load(&srv->couriered))
		return;
	pthread_mutex_lock(&courier_mu);
	zcast_executor *ex = courier_pid == getpid() ? courier : NULL;
	pthread_mutex_unlock(&courier_mu);
	if (ex) /* once it returns, no call of the entry runs: the server may be freed */
		(void)zc_ex_remove_room(ex, srv, &owed_room);
}
