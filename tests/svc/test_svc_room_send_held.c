/* Services: a server's room entry reports a response send refused for queue room as soon as the
 * queue has room again, even while the route's pool stays full. The send holds its loan, so the
 * retry needs no free slot; the client may keep its other responses as long as it likes (here it
 * holds the first while it waits for the second). Scene: a server with two response slots per
 * client, and a second FULL subscriber of depth one on the client's response topic (an observer,
 * e.g. a recorder), whose full queue refuses the second response. The room entry used to wait for
 * a free slot as well, which nobody would free: the wait below hung (the watchdog fails it). */
#include "zt_svc_room.h"

static const char *service = "/svc/room_send_held";

int main(void)
{
	zt_setup("svc_room_send_held", 60);
	zcast_server *srv = zt_room_server(service, 2, 0);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	char topic[256];
	zt_response_topic(service, topic);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 1;
	zcast_sub *observer;
	CHECK_EQ(zcast_sub_open(topic, &so, &observer), 0);

	zcast_msg *req1, *req2, *resp;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), NULL), 0);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, 4), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req1), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req2), 0);
	zt_serve_one(srv, req1, -1); /* the observer's queue is full now */
	CHECK_EQ(zcast_response_loan(srv, req2, 8, &resp), 0); /* the pool's second slot */
	CHECK_EQ(zcast_response_send(srv, resp), ZCAST_EAGAIN);
	zcast_waitset *ws = zt_server_room_ws(srv);

	zcast_msg *held, *m;
	uint64_t seq;
	CHECK_EQ(zt_next_outcome(cli, &held, &seq), 0); /* kept: its slot stays in use */
	CHECK_EQ(zcast_take(observer, &m), 0);
	zcast_msg_drop(m); /* queue room everywhere; the pool: one held, one loaned */
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	CHECK_EQ(zcast_response_send(srv, resp), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT); /* nothing waits any more */
	zcast_msg_drop(req2);
	CHECK_EQ(zt_next_outcome(cli, &m, &seq), 0);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(held))->sum, 3);
	zcast_msg_drop(m);
	zcast_msg_drop(held);

	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_sub_close(observer), 0);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_room_send_held\n");
	return 0;
}
