/* Services: a client's room entry reports a send refused for queue room once a server's queue has
 * room again, even while every slot of the client's request pool is one of its own loans. The
 * refused send holds its loan, so its retry needs no free slot, and nobody else frees the others.
 * Scene: a client with one call slot (a pool of two requests) loans both, and its send of the
 * first finds the only server's queue (of one) filled by another client; the server then takes.
 * The room entry used to wait for a free slot as well: the wait below hung (the watchdog fails it).
 * Without a refused send held, room is still a free slot and queue room (no report for the queue
 * alone, which would make a caller whose loan was refused spin). */
#include "zt_svc_room.h"

static const char *service = "/svc/room_own_loans";

int main(void)
{
	zt_setup("svc_room_own_loans", 60);
	zcast_server *srv = zt_room_server(service, 0, 1); /* a queue of one request */
	zcast_client *other, *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &other), 0);
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 1;
	CHECK_EQ(zcast_client_open(service, &o, &cli), 0);
	zcast_waitset *ws;
	int id;
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	CHECK_EQ(zcast_waitset_add_client_room(ws, cli, cli, &id), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), 1); /* room at first (level-triggered) */

	CHECK_EQ(zcast_request_send(other, zt_request(other, OP_ADD, 1, 2), NULL), 0);
	zcast_msg *r1 = zt_request(cli, OP_ADD, 1, 1), *r2 = zt_request(cli, OP_ADD, 2, 2), *no;
	CHECK_EQ(zcast_request_loan(cli, 8, &no), ZCAST_ENOSLOT); /* the pool: two loans */
	CHECK_EQ(zcast_request_send(cli, r1, NULL), ZCAST_EAGAIN);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	zcast_msg *req;
	CHECK_EQ(zcast_request_take(srv, &req), 0); /* the other client's: queue room */
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1);
	CHECK(ev[0].user == cli);
	uint64_t s1;
	CHECK_EQ(zcast_request_send(cli, r1, &s1), 0);

	/* No refused send is held now (r2 was never sent): a loan needs a slot, and queue room
	 * alone is no report. The queue is full again (r1), then has room; the pool stays full. */
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	zcast_msg_drop(req);
	CHECK_EQ(zcast_request_take(srv, &req), 0); /* r1 held by the server: queue room */
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT); /* still no slot */
	zcast_msg_drop(r2);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), 1); /* a slot */

	zcast_msg_drop(req);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_client_close(other), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_room_own_loans\n");
	return 0;
}
