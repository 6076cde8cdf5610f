/* Services: a server answered by several threads, one of which sleeps in a wait set with the
 * server's room entry. Another thread's response loan for a second client is refused for room while
 * it sleeps, then that client frees a slot: the entry must report (level-triggered: the second
 * request's retry gets further now). The sleeper had looked up only the first client's route
 * before it slept, and nothing it slept on moved: it slept on (here for ever: guard slice off;
 * the watchdog fails the test). The refusal happens once the sleeper sleeps on a futex (else its
 * look-up would find the second route, and the old code passes too). */
#include "zt_svc_room.h"

static const char *service = "/svc/room_threads";

/* The client's first call answered, its response taken and kept in *held; its second request
 * taken by the server into *req (not answered: the server's one response slot is held). */
static void fill_route(zcast_server *srv, zcast_client *cli, zcast_msg **held, zcast_msg **req)
{
	uint64_t seq;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, req), 0);
	zt_serve_one(srv, *req, -1);
	CHECK_EQ(zt_next_outcome(cli, held, &seq), 0);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, 4), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, req), 0);
}

int main(void)
{
	setenv("ZCAST_NO_GUARD_SLICE", "1", 1); /* a lost wake is a hang, not a 1 s delay */
	zt_setup("svc_room_threads", 60);
	zcast_server *srv = zt_room_server(service, 1, 0); /* one response slot per client */
	zcast_client *c1, *c2;
	CHECK_EQ(zcast_client_open(service, NULL, &c1), 0);
	CHECK_EQ(zcast_client_open(service, NULL, &c2), 0);
	zcast_msg *held1, *req1, *held2, *req2, *resp;
	fill_route(srv, c1, &held1, &req1);
	fill_route(srv, c2, &held2, &req2);
	CHECK_EQ(zcast_response_loan(srv, req1, 8, &resp), ZCAST_ENOSLOT);

	struct zt_room_sleeper s = {.ws = zt_server_room_ws(srv)};
	zt_room_sleeper_start(&s);
	CHECK_EQ(zcast_response_loan(srv, req2, 8, &resp), ZCAST_ENOSLOT); /* another thread's */
	zcast_msg_drop(held2); /* c2's slot comes back */
	CHECK_EQ(zt_room_sleeper_join(&s), 1);
	CHECK_EQ(zcast_response_loan(srv, req2, 8, &resp), 0);
	CHECK_EQ(zcast_response_send(srv, resp), 0);

	zcast_msg_drop(req2);
	zcast_msg_drop(req1);
	zcast_msg_drop(held1);
	zcast_waitset_destroy(s.ws);
	CHECK_EQ(zcast_client_close(c2), 0);
	CHECK_EQ(zcast_client_close(c1), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_room_threads\n");
	return 0;
}
