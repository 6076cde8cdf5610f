/* Services: the "room again" wait set entries wake for everything that can end the wait.
 *  - server: a response loan refused for room (the client holds its one response slot) is
 *    reported when the client closes (the retry then finds it gone: ZCAST_ENOENT), and when a
 *    client process is killed (crash cleanup: its slot freed, or the client gone).
 *  - client: a send refused for room (the only server's queue is full) is reported when the server
 *    takes a request, when the server closes, and when a server process is killed (crash
 *    cleanup); with no server left the send then says ZCAST_ENOSERVER.
 * A wait of -1 that is not woken hangs and the test times out. */
#include <pthread.h>

#include "zt_svc_room.h"

static const char *service = "/svc/room_wakes";

/* Server with one response slot per client; the client's first call answered and its response
 * held; its second request taken by the server, whose response loan finds no room. */
static void fill_route(zcast_server *srv, zcast_client *cli, zcast_msg **held, zcast_msg **req)
{
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, req), 0);
	zt_serve_one(srv, *req, -1);
	uint64_t seq;
	CHECK_EQ(zcast_client_wait(cli, -1), 0);
	CHECK_EQ(zcast_response_take(cli, held, &seq), 0);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, 4), NULL), 0);
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, req), 0);
	zcast_msg *resp;
	CHECK_EQ(zcast_response_loan(srv, *req, 8, &resp), ZCAST_ENOSLOT);
}

static void *close_client(void *arg)
{
	CHECK_EQ(zcast_client_close(arg), 0);
	return NULL;
}

/* The server's room entry reports when the client closes (it still holds the response). */
static void server_room_client_closes(void)
{
	zcast_server *srv = zt_room_server(service, 1, 0);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zcast_msg *held, *req;
	fill_route(srv, cli, &held, &req);
	zcast_waitset *ws = zt_server_room_ws(srv);
	zcast_ws_event ev[2];
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, close_client, cli), 0);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	CHECK_EQ(pthread_join(th, NULL), 0);
	zcast_msg *resp;
	CHECK_EQ(zcast_response_loan(srv, req, 8, &resp), ZCAST_ENOENT); /* and let go of */
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	zcast_msg_drop(req);
	zcast_msg_drop(held);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_server_close(srv), 0);
}

/* The server's room entry reports when the client process is killed (reclaimed). */
static void server_room_client_killed(void)
{
	zcast_server *srv = zt_room_server(service, 1, 0);
	pid_t pid = zt_start_doomed(srv, service, 0);
	zcast_msg *req;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	zcast_msg *resp;
	CHECK_EQ(zcast_response_loan(srv, req, 8, &resp), ZCAST_ENOSLOT);
	zcast_waitset *ws = zt_server_room_ws(srv);
	zcast_ws_event ev[2];
	kill(pid, SIGKILL);
	zt_wait(pid);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1); /* the reclaim frees the slot it held */
	CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	/* The reclaim releases the client's slots before it moves the graph word: the retry finds
	 * the slot free (the response then goes to nobody) or the client gone. */
	int r = zcast_response_loan(srv, req, 8, &resp);
	CHECK(r == 0 || r == ZCAST_ENOENT);
	if (r == 0 && zcast_response_send(srv, resp) != 0)
		zcast_msg_drop(resp);
	zcast_msg_drop(req);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_server_close(srv), 0);
}

static void *take_one(void *arg)
{
	zcast_msg *req;
	CHECK_EQ(zcast_request_take(arg, &req), 0);
	zcast_msg_drop(req); /* not answered: the client forgets it below */
	return NULL;
}

static void *close_server(void *arg)
{
	CHECK_EQ(zcast_server_close(arg), 0);
	return NULL;
}

/* A client with its room entry in a wait set (room at first: level-triggered); its first request
 * fills the only server's queue of one, the second (returned, still a loan) finds no room. */
static zcast_msg *fill_queue(zcast_client **cli, zcast_waitset **ws)
{
	int id;
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_client_open(service, NULL, cli), 0);
	CHECK_EQ(zcast_waitset_create(ws), 0);
	CHECK_EQ(zcast_waitset_add_client_room(*ws, *cli, *cli, &id), 0);
	CHECK_EQ(zcast_waitset_wait(*ws, 0, ev, 2), 1);
	CHECK_EQ(zcast_request_send(*cli, zt_request(*cli, OP_ADD, 1, 2), NULL), 0);
	zcast_msg *req = zt_request(*cli, OP_ADD, 3, 4);
	CHECK_EQ(zcast_request_send(*cli, req, NULL), ZCAST_EAGAIN);
	CHECK_EQ(zcast_waitset_wait(*ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	return req;
}

/* The client's room entry reports when the server takes a request, and when it closes. */
static void client_room(void)
{
	zcast_server *srv = zt_room_server(service, 0, 1); /* a queue of one request */
	zcast_client *cli;
	zcast_waitset *ws;
	zcast_ws_event ev[2];
	zcast_msg *req = fill_queue(&cli, &ws);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, take_one, srv), 0);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1);
	CHECK(ev[0].user == cli);
	CHECK_EQ(pthread_join(th, NULL), 0);
	uint64_t s2;
	CHECK_EQ(zcast_request_send(cli, req, &s2), 0);
	req = zt_request(cli, OP_ADD, 5, 6);
	CHECK_EQ(zcast_request_send(cli, req, NULL), ZCAST_EAGAIN);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	CHECK_EQ(pthread_create(&th, NULL, close_server, srv), 0);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(zcast_request_send(cli, req, NULL), ZCAST_ENOSERVER);
	zcast_msg_drop(req);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_client_close(cli), 0);
}

/* The client's room entry reports when the only server, its queue full, is killed. */
static void client_room_server_killed(void)
{
	int start[2];
	CHECK_EQ(pipe(start), 0);
	/* takes nothing until killed: its queue of one stays full */
	struct zt_server s = {.service = service, .queue_depth = 1, .took_w = -1, .start_r = start[0]};
	pid_t pid = zt_start_server(&s);
	zcast_client *cli;
	zcast_waitset *ws;
	zcast_ws_event ev[2];
	zcast_msg *req = fill_queue(&cli, &ws);
	kill(pid, SIGKILL);
	zt_wait(pid);
	CHECK_EQ(zcast_waitset_wait(ws, -1, ev, 2), 1); /* the reclaim of the dead server */
	CHECK_EQ(zcast_request_send(cli, req, NULL), ZCAST_ENOSERVER);
	zcast_msg_drop(req);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(start[0]), close(start[1]);
}

int main(void)
{
	zt_setup("svc_room_wakes", 90);
	server_room_client_closes();
	server_room_client_killed();
	client_room();
	client_room_server_killed();
	printf("PASS svc_room_wakes\n");
	return 0;
}
