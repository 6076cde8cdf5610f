/* Helpers of the service tests that wait for room (tests/svc/test_svc_fail_no_room.c,
 * test_svc_room_wakes.c, test_svc_exec_server_room.c, test_svc_refused_no_room.c). */
#ifndef ZT_SVC_ROOM_H
#define ZT_SVC_ROOM_H

#include <pthread.h>
#include <sys/syscall.h>

#include "zt_svc.h"

/* A server of `service` with `slots` response slots per client and a queue of `depth` (0: the
 * defaults). */
static inline zcast_server *zt_room_server(const char *service, uint32_t slots, uint32_t depth)
{
	zcast_service_opts so;
	zcast_service_opts_init(&so);
	so.slot_count = slots;
	so.queue_depth = depth;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(service, &so, &srv), 0);
	return srv;
}

/* A wait set with the server's room entry (user: srv), not ready yet. */
static inline zcast_waitset *zt_server_room_ws(zcast_server *srv)
{
	zcast_waitset *ws;
	int id;
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	CHECK_EQ(zcast_waitset_add_server_room(ws, srv, srv, &id), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	return ws;
}

/* A thread that waits in a wait set without timeout (a room entry: test_svc_room_join.c,
 * test_svc_room_threads.c): started, then the test goes on once it sleeps on a futex (else the wait
 * would see the room before it sleeps); joined with the wait's result. */
struct zt_room_sleeper {
	zcast_waitset *ws;
	void *(*fn)(void *); /* the thread's own wait instead (NULL: the wait set's) */
	_Atomic pid_t tid;
	int result;
	pthread_t th;
};

static inline void *zt_room_sleeper_main(void *arg)
{
	struct zt_room_sleeper *s = arg;
	atomic_store(&s->tid, (pid_t)syscall(SYS_gettid));
	if (s->fn)
		return s->fn(s);
	zcast_ws_event ev[2];
	s->result = zcast_waitset_wait(s->ws, -1, ev, 2);
	if (s->result == 1)
		CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	return NULL;
}

static inline void zt_room_sleeper_start(struct zt_room_sleeper *s)
{
	CHECK_EQ(pthread_create(&s->th, NULL, zt_room_sleeper_main, s), 0);
	while (!atomic_load(&s->tid) || !zt_futex_asleep(getpid(), atomic_load(&s->tid)))
		zt_sleep_ms(1); /* polls for the event (the thread asleep), bounds nothing */
}

static inline int zt_room_sleeper_join(struct zt_room_sleeper *s)
{
	CHECK_EQ(pthread_join(s->th, NULL), 0);
	return s->result;
}

/* A client process (zt_fork): its first call answered and the response held, then a second call
 * sent (its kind spoilt after the send when `spoil`: a server refuses it); reports on ready_w and
 * waits to be killed. */
struct zt_doomed {
	const char *service;
	int ready_w;
	int spoil;
};

static inline int zt_doomed_client(void *arg)
{
	const struct zt_doomed *d = arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(d->service, NULL, &cli), 0);
	zcast_msg *resp, *req = zt_request(cli, OP_ADD, 3, 4);
	CHECK_EQ(zcast_client_call(cli, zt_request(cli, OP_ADD, 1, 2), -1, &resp), 0);
	uint8_t *h = (uint8_t *)zcast_service_data(req) - ZCAST_SERVICE_HEADER;
	CHECK_EQ(zcast_request_send(cli, req, NULL), 0);
	uint32_t kind = 9; /* struct zc_svc_hdr: magic, kind, ... */
	if (d->spoil)
		memcpy(h + 4, &kind, sizeof kind);
	zt_put_byte(d->ready_w);
	pause();
	return 0;
}

/* Starts a zt_doomed_client whose first call srv answers here; returns once its second call is
 * sent. */
static inline pid_t zt_start_doomed(zcast_server *srv, const char *service, int spoil)
{
	int p[2];
	CHECK_EQ(pipe(p), 0);
	struct zt_doomed d = {service, p[1], spoil};
	pid_t pid = zt_fork(zt_doomed_client, &d);
	zcast_msg *req;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	zt_serve_one(srv, req, -1);
	zt_get_byte(p[0]);
	close(p[0]), close(p[1]);
	return pid;
}

#endif
