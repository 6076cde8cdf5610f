/* Services: zcast_request_fail by a live server when the client's response pool at the server is
 * full. The server has one response slot per client; the client holds the response of its first
 * call, then makes a second call with no timeout of its own (zcast_client_call, -1) that the
 * server fails. The failure finds no room: the fail must say ZCAST_ENOSLOT and keep the request
 * taken (it used to drop the notice and return 0: nothing else tells the client, whose call then
 * never ended). The server's room entry reports once the client drops the response; the retried
 * fail ends the client's call with ZCAST_ESRVGONE. */
#include <pthread.h>

#include "zt_svc_room.h"

static const char *service = "/svc/fail_no_room";

struct caller {
	zcast_client *cli;
	zcast_msg *req;
	int r;
};

static void *call_forever(void *arg)
{
	struct caller *c = arg;
	zcast_msg *resp = NULL;
	c->r = zcast_client_call(c->cli, c->req, -1, &resp);
	zcast_msg_drop(resp);
	return NULL;
}

static void *drop_later(void *arg)
{
	zcast_msg_drop(arg); /* the client's response: its slot in the server's pool comes back */
	return NULL;
}

int main(void)
{
	zt_setup("svc_fail_no_room", 60);
	zcast_server *srv = zt_room_server(service, 1, 0); /* one response slot per client */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zcast_waitset *ws = zt_server_room_ws(srv); /* nothing waits for room yet */
	zcast_ws_event ev[4];

	/* The first call answered; the client keeps its response. */
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), NULL), 0);
	zcast_msg *req, *held;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	zt_serve_one(srv, req, -1);
	uint64_t seq;
	CHECK_EQ(zcast_client_wait(cli, -1), 0);
	CHECK_EQ(zcast_response_take(cli, &held, &seq), 0);

	/* The second call, waited for without a timeout, is failed by the live server. */
	struct caller c = {.cli = cli, .req = zt_request(cli, OP_ADD, 3, 4), .r = 1};
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, call_forever, &c), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	uint64_t seq2 = zcast_request_seq(srv, req);
	CHECK(seq2 > seq);
	CHECK_EQ(zcast_request_fail(srv, req), ZCAST_ENOSLOT);
	CHECK_EQ(zcast_request_seq(srv, req), seq2); /* still taken, still ours to answer */
	zcast_msg *resp;
	CHECK_EQ(zcast_response_loan(srv, req, 8, &resp), ZCAST_ENOSLOT);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT); /* no room yet */

	pthread_t dropper;
	CHECK_EQ(pthread_create(&dropper, NULL, drop_later, held), 0);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 4), 1); /* woken by the drop, or room already */
	CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	CHECK(ev[0].user == srv);
	CHECK_EQ(pthread_join(dropper, NULL), 0);
	CHECK_EQ(zcast_request_fail(srv, req), 0);
	CHECK_EQ(zcast_request_fail(srv, req), ZCAST_EINVAL);
	zcast_msg_drop(req);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(c.r, ZCAST_ESRVGONE);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT); /* nothing waits any more */
	CHECK_EQ(zcast_client_pending(cli), 0);

	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_fail_no_room\n");
	return 0;
}
