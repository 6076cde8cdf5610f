/* Services in the executor: a client that never blocks for room. A send refused for room (the
 * only server's queue of one is full) keeps its request and asks for one room callback
 * (zcast_executor_want_client_room, from the main thread while the executor spins in another);
 * the callback sends it again. The callback comes when the server takes a request (the send then
 * succeeds) and when the server closes (the send then says ZCAST_ENOSERVER). Removed while wanted:
 * no callback after remove returns. No timeouts: a missing callback is a watchdog failure. */
#include "zt_svc_app.h"

static const char *service = "/svc/exec_client_room";

struct app {
	zcast_client *cli;
	zcast_msg *req; /* the request waiting for room, or NULL */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int rooms, last; /* callbacks; the result of the latest send there */
};

static void on_room(zcast_client *cli, void *ctx)
{
	struct app *a = ctx;
	CHECK(cli == a->cli);
	pthread_mutex_lock(&a->mu);
	zcast_msg *req = a->req;
	a->req = NULL;
	pthread_mutex_unlock(&a->mu);
	int r = req ? zcast_request_send(cli, req, NULL) : 1;
	if (r != 0)
		zcast_msg_drop(req);
	pthread_mutex_lock(&a->mu);
	a->rooms++;
	a->last = r;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static void wait_rooms(struct app *a, int n)
{
	pthread_mutex_lock(&a->mu);
	while (a->rooms < n)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
}

static _Atomic pid_t spin_tid; /* the thread that spins */

static void *spin(void *arg)
{
	spin_tid = gettid();
	CHECK_EQ(zcast_executor_spin(arg), 0);
	return NULL;
}

/* A request the full queue refuses, kept for the room callback, which is asked for once the
 * spinning thread sleeps: the want itself must wake it. */
static void refuse_one(zcast_executor *ex, struct app *a)
{
	zcast_msg *req = zt_request(a->cli, OP_ADD, 3, 4);
	CHECK_EQ(zcast_request_send(a->cli, req, NULL), ZCAST_EAGAIN);
	pthread_mutex_lock(&a->mu);
	a->req = req;
	pthread_mutex_unlock(&a->mu);
	while (spin_tid == 0 || !zt_futex_asleep(getpid(), spin_tid))
		sched_yield();
	CHECK_EQ(zcast_executor_want_client_room(ex, a->cli), 0);
}

int main(void)
{
	zt_setup("svc_exec_client_room", 120);
	zcast_service_opts so;
	zcast_service_opts_init(&so);
	so.queue_depth = 1;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(service, &so, &srv), 0);
	struct app a = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	CHECK_EQ(zcast_client_open(service, NULL, &a.cli), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_want_client_room(ex, a.cli), ZCAST_ENOENT);
	CHECK_EQ(zcast_executor_add_client_room(ex, a.cli, on_room, &a), 0);
	CHECK_EQ(zcast_executor_add_client_room(ex, a.cli, on_room, &a), ZCAST_EBUSY);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, spin, ex), 0);

	/* The server takes: room. */
	CHECK_EQ(zcast_request_send(a.cli, zt_request(a.cli, OP_ADD, 1, 2), NULL), 0);
	refuse_one(ex, &a);
	zcast_msg *req, *req2;
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	wait_rooms(&a, 1);
	CHECK_EQ(a.last, 0); /* sent from the callback */
	CHECK_EQ(zcast_request_take(srv, &req2), 0);

	/* Removed while wanted: the take makes room, and nothing runs. */
	CHECK_EQ(zcast_request_send(a.cli, zt_request(a.cli, OP_ADD, 5, 6), NULL), 0);
	refuse_one(ex, &a);
	CHECK_EQ(zcast_executor_remove_client_room(ex, a.cli), 0);
	CHECK_EQ(zcast_executor_want_client_room(ex, a.cli), ZCAST_ENOENT);
	zcast_msg *req3;
	CHECK_EQ(zcast_request_take(srv, &req3), 0);
	CHECK_EQ(zcast_executor_stop(ex), 0); /* the spin's last turns are done when it returns */
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(a.rooms, 1);
	CHECK_EQ(zcast_executor_reset(ex), 0);
	CHECK_EQ(zcast_executor_add_client_room(ex, a.cli, on_room, &a), 0);
	spin_tid = 0;
	CHECK_EQ(pthread_create(&th, NULL, spin, ex), 0);
	while (spin_tid == 0 || !zt_futex_asleep(getpid(), spin_tid))
		sched_yield();
	CHECK_EQ(zcast_executor_want_client_room(ex, a.cli), 0); /* room now: the next turn */
	wait_rooms(&a, 2);
	CHECK_EQ(a.last, 0);

	/* The server closes (its queue full): the callback's send finds no server. */
	refuse_one(ex, &a);
	zcast_msg_drop(req); /* taken, never answered: the close fails them */
	zcast_msg_drop(req2);
	zcast_msg_drop(req3);
	CHECK_EQ(zcast_server_close(srv), 0);
	wait_rooms(&a, 3);
	CHECK_EQ(a.last, ZCAST_ENOSERVER);

	CHECK_EQ(zcast_executor_stop(ex), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(zcast_executor_remove_client_room(ex, a.cli), 0);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_client_close(a.cli), 0);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_exec_client_room\n");
	return 0;
}
