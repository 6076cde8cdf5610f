/* Services: a refusal that finds no room in the client's response pool is owed, not dropped. The
 * server has one response slot per client; the client holds the response of its first call, then
 * makes a call without a timeout of its own (zcast_client_call, -1) whose request is spoilt in
 * shared memory after the send (its kind: not a request), so the server refuses it. The refusal
 * finds the only slot held: it used to be dropped with the request released, and nothing else
 * ever told the client (no membership change, no marker), so the call never ended (a watchdog
 * failure). Now the library keeps it and its courier thread sends it when the client drops the
 * held response: the call ends with ZCAST_EREFUSED. Four scenes:
 *  - the server takes with zcast_request_take; the client drops its response;
 *  - the server takes in an executor (the refusal is made in a request callback);
 *  - the refusal is still owed when the server closes: the call ends all the same (the close is a
 *    membership change: its hook finds the request released, ZCAST_ESRVGONE);
 *  - the refusal is owed to a client process killed -9: the courier lets go of it (no leak: the
 *    test ends with no shared memory left). */
#include <pthread.h>

#include "zt_svc_room.h"

static const char *service = "/svc/refused_no_room";

struct caller {
	zcast_client *cli;
	zcast_msg *req;
	int r;
	char text[256];
};

static void *call_forever(void *arg)
{
	struct caller *c = arg;
	zcast_msg *resp = NULL;
	c->r = zcast_client_call(c->cli, c->req, -1, &resp);
	snprintf(c->text, sizeof c->text, "%s", zcast_last_error());
	zcast_msg_drop(resp);
	return NULL;
}

/* A call answered by srv (taken here), its response returned: it holds the only slot. */
static zcast_msg *hold_slot(zcast_server *srv, zcast_client *cli)
{
	zcast_msg *req, *held;
	uint64_t seq;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	zt_serve_one(srv, req, -1);
	CHECK_EQ(zt_next_outcome(cli, &held, &seq), 0);
	return held;
}

/* Starts a call without timeout in a thread; once its request is queued at srv, spoils its
 * kind so that the server refuses it. */
static void spoilt_call(zcast_server *srv, struct caller *c, pthread_t *th)
{
	c->req = zt_request(c->cli, OP_ADD, 3, 4);
	uint8_t *h = (uint8_t *)zcast_service_data(c->req) - ZCAST_SERVICE_HEADER;
	c->r = 1;
	CHECK_EQ(pthread_create(th, NULL, call_forever, c), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0); /* queued: the send wrote its header */
	uint32_t kind = 9;			 /* struct zc_svc_hdr: magic, kind, ... */
	memcpy(h + 4, &kind, sizeof kind);
}

static void expect_refused(pthread_t th, struct caller *c)
{
	CHECK_EQ(pthread_join(th, NULL), 0);
	printf("# %s\n", c->text);
	CHECK_EQ(c->r, ZCAST_EREFUSED);
	CHECK(strstr(c->text, "service header") != NULL);
}

/* A server (one response slot per client) that owes c's call a refusal: the client holds the
 * response of its first call (*held), the call runs in *th. */
static zcast_server *refusal_owed(struct caller *c, pthread_t *th, zcast_msg **held)
{
	zcast_server *srv = zt_room_server(service, 1, 0);
	CHECK_EQ(zcast_client_open(service, NULL, &c->cli), 0);
	*held = hold_slot(srv, c->cli);
	spoilt_call(srv, c, th);
	zcast_msg *req;
	CHECK_EQ(zcast_request_take(srv, &req), ZCAST_EAGAIN); /* refused (no room for it) */
	CHECK_EQ(zcast_client_pending(c->cli), 1);
	return srv;
}

static void take_then_drop(void)
{
	struct caller c = {0};
	pthread_t th;
	zcast_msg *held;
	zcast_server *srv = refusal_owed(&c, &th, &held);
	zcast_msg_drop(held); /* room: the courier sends the refusal */
	expect_refused(th, &c);
	CHECK_EQ(zcast_client_pending(c.cli), 0);
	zcast_msg_drop(hold_slot(srv, c.cli)); /* the server serves on */
	CHECK_EQ(zcast_client_close(c.cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
}

static void on_request(zcast_server *srv, zcast_msg *req, void *ctx)
{
	(void)ctx;
	zt_serve_one(srv, zcast_msg_ref(req), -1);
}

static void *spin(void *arg)
{
	CHECK_EQ(zcast_executor_spin(arg), 0);
	return NULL;
}

static void executor_server(void)
{
	zcast_server *srv = zt_room_server(service, 1, 0);
	struct caller c = {0};
	CHECK_EQ(zcast_client_open(service, NULL, &c.cli), 0);
	zcast_msg *held = hold_slot(srv, c.cli);
	pthread_t th, spinner;
	spoilt_call(srv, &c, &th);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_server(ex, srv, on_request, NULL), 0);
	CHECK_EQ(pthread_create(&spinner, NULL, spin, ex), 0);
	while (zcast_server_wait(srv, 0) == 0) /* until the executor took it */
		sched_yield();
	zcast_msg_drop(held);
	expect_refused(th, &c);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	CHECK_EQ(pthread_join(spinner, NULL), 0);
	CHECK_EQ(zcast_executor_remove_server(ex, srv), 0);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_client_close(c.cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
}

static void server_closes(void)
{
	struct caller c = {0};
	pthread_t th;
	zcast_msg *held;
	zcast_server *srv = refusal_owed(&c, &th, &held);
	CHECK_EQ(zcast_server_close(srv), 0); /* still no room: the refusal cannot go */
	CHECK_EQ(pthread_join(th, NULL), 0);
	printf("# %s\n", c.text);
	CHECK(c.r == ZCAST_ESRVGONE || c.r == ZCAST_EREFUSED);
	zcast_msg_drop(held);
	CHECK_EQ(zcast_client_close(c.cli), 0);
}

static void client_killed(void)
{
	zcast_server *srv = zt_room_server(service, 1, 0);
	pid_t pid = zt_start_doomed(srv, service, 1); /* its second call spoilt */
	zcast_msg *req;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), ZCAST_EAGAIN); /* refused */
	kill(pid, SIGKILL);
	zt_wait(pid);
	CHECK_EQ(zcast_server_close(srv), 0);
}

int main(void)
{
	zt_setup("svc_refused_no_room", 60);
	take_then_drop();
	executor_server();
	server_closes();
	client_killed();
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_refused_no_room\n");
	return 0;
}
