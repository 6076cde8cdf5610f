/* Services: a client that waits for queue room while its only server's queue is full (that server
 * takes nothing) is woken when a second server joins: the new member of the servers' group is room.
 * Publishers that found every member full sleep on the topic's `space` word, which a join did not
 * move, so both waits below slept until the first server took something, here for ever:
 *  - zcast_request_send_wait without a timeout (no slice: it hung);
 *  - a wait set with the client's room entry (it slept until its guard slice, turned off here).
 * Each join happens once the waiting thread sleeps on a futex (else the wait would see the room
 * before it sleeps, and pass on the old code too). A wait that is not woken hangs: the watchdog
 * fails the test. */
#include "zt_svc_room.h"

static const char *service = "/svc/room_join";

struct send_waiter {
	struct zt_room_sleeper s; /* first: the thread's argument */
	zcast_client *cli;
	zcast_msg *req; /* refused for room */
};

static void *send_wait(void *arg)
{
	struct send_waiter *w = arg;
	w->s.result = zcast_request_send_wait(w->cli, w->req, -1, NULL);
	return NULL;
}

/* A client whose second request finds the only server's queue (of one) full. */
static zcast_msg *fill_queue(zcast_client **cli)
{
	CHECK_EQ(zcast_client_open(service, NULL, cli), 0);
	CHECK_EQ(zcast_request_send(*cli, zt_request(*cli, OP_ADD, 1, 2), NULL), 0);
	zcast_msg *req = zt_request(*cli, OP_ADD, 3, 4);
	CHECK_EQ(zcast_request_send(*cli, req, NULL), ZCAST_EAGAIN);
	return req;
}

static void send_wait_server_joins(void)
{
	zcast_server *s1 = zt_room_server(service, 0, 1);
	struct send_waiter w = {.s.fn = send_wait};
	w.req = fill_queue(&w.cli);
	zt_room_sleeper_start(&w.s);
	zcast_server *s2 = zt_room_server(service, 0, 1);
	CHECK_EQ(zt_room_sleeper_join(&w.s), 0); /* queued at the new server */
	zcast_msg *req;
	CHECK_EQ(zcast_request_take(s2, &req), 0);
	zcast_msg_drop(req);
	CHECK_EQ(zcast_client_close(w.cli), 0);
	CHECK_EQ(zcast_server_close(s2), 0);
	CHECK_EQ(zcast_server_close(s1), 0);
}

static void room_entry_server_joins(void)
{
	zcast_server *s1 = zt_room_server(service, 0, 1);
	zcast_client *cli;
	zcast_msg *pending = fill_queue(&cli);
	struct zt_room_sleeper w = {0};
	int id;
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_create(&w.ws), 0);
	CHECK_EQ(zcast_waitset_add_client_room(w.ws, cli, NULL, &id), 0);
	CHECK_EQ(zcast_waitset_wait(w.ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	zt_room_sleeper_start(&w);
	zcast_server *s2 = zt_room_server(service, 0, 1);
	CHECK_EQ(zt_room_sleeper_join(&w), 1);
	CHECK_EQ(zcast_request_send(cli, pending, NULL), 0);
	zcast_waitset_destroy(w.ws);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(s2), 0);
	CHECK_EQ(zcast_server_close(s1), 0);
}

int main(void)
{
	setenv("ZCAST_NO_GUARD_SLICE", "1", 1); /* a lost wake is a hang, not a 1 s delay */
	zt_setup("svc_room_join", 60);
	RUN(send_wait_server_joins);
	RUN(room_entry_server_joins);
	printf("PASS svc_room_join\n");
	return 0;
}
