/* Helpers of the service tests (tests/svc/): a server process that answers sums, and the request
 * and response it uses. */
#ifndef ZT_SVC_H
#define ZT_SVC_H

#include <poll.h>

#include "harness.h"
#include "zcast/service.h"

/* HOLD: take it, tell the test, never answer. WAIT: answer it after a byte on start_r. */
enum { OP_STOP = 0, OP_ADD = 1, OP_HOLD = 2, OP_WAIT = 3 };
static int zt_wait_fd = -1; /* the server's start_r */

struct add_req {
	uint32_t op;
	uint32_t pad;
	int64_t a, b;
	uint64_t ino, offset; /* where the client wrote it (zero-copy proof) */
};
struct add_resp {
	int64_t sum;
	int32_t pid;
	uint32_t in_place; /* the server read the request where the client wrote it */
	uint64_t ino, offset; /* where the server wrote the response */
};

struct zt_server {
	const char *service;
	uint32_t queue_depth;
	int ready_w;  /* a byte: the server is open */
	int took_w;   /* a byte per HOLD request taken (-1: none) */
	int start_r;  /* the server takes nothing until a byte arrives here (-1: at once) */
	int hold_all; /* answer nothing: every request taken is kept (and reported on took_w) */
	int take_limit; /* > 0: after taking that many, take no more (the rest stays queued) */
};

static inline void zt_put_byte(int fd)
{
	char c = 1;
	CHECK_EQ(write(fd, &c, 1), 1);
}

static inline void zt_get_byte(int fd)
{
	char c;
	CHECK_EQ(read(fd, &c, 1), 1);
}

/* Answers one request; returns 0 after a STOP. */
static inline int zt_serve_one(zcast_server *srv, zcast_msg *req, int took_w)
{
	const struct add_req *q = zcast_service_data(req);
	struct add_req in = *q;
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(req, &info), 0);
	if (in.op == OP_HOLD) {
		if (took_w >= 0)
			zt_put_byte(took_w);
		return 1; /* kept, never answered */
	}
	if (in.op == OP_WAIT)
		zt_get_byte(zt_wait_fd);
	zcast_msg *resp;
	int lr = zcast_response_loan(srv, req, sizeof(struct add_resp), &resp);
	if (lr == ZCAST_ENOENT) { /* its client is gone: nobody to answer */
		zcast_msg_drop(req);
		return 1;
	}
	CHECK_EQ(lr, 0);
	struct add_resp *r = zcast_service_data(resp);
	zcast_msg_info ri;
	CHECK_EQ(zcast_msg_info_get(resp, &ri), 0);
	*r = (struct add_resp){.sum = in.a + in.b, .pid = getpid(),
			       .in_place = info.pool_ino == in.ino &&
					   info.pool_offset == in.offset,
			       .ino = ri.pool_ino, .offset = ri.pool_offset};
	CHECK_EQ(zcast_response_send(srv, resp), 0);
	zcast_msg_drop(req);
	return in.op != OP_STOP;
}

static inline int zt_server_main(void *arg)
{
	struct zt_server *s = arg;
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	if (s->queue_depth)
		o.queue_depth = s->queue_depth;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(s->service, &o, &srv), 0);
	zt_put_byte(s->ready_w);
	zt_wait_fd = s->start_r;
	if (s->start_r >= 0)
		zt_get_byte(s->start_r);
	for (int taken = 0;;) {
		if (s->take_limit && taken == s->take_limit)
			pause(); /* until killed */
		CHECK_EQ(zcast_server_wait(srv, -1), 0);
		zcast_msg *req;
		int r = zcast_request_take(srv, &req);
		if (r == ZCAST_EAGAIN)
			continue;
		CHECK_EQ(r, 0);
		taken++;
		if (s->hold_all) {
			zt_put_byte(s->took_w);
			continue;
		}
		if (!zt_serve_one(srv, req, s->took_w))
			break;
	}
	CHECK_EQ(zcast_server_close(srv), 0);
	return 0;
}

/* Starts a server process and waits until it is open. */
static inline pid_t zt_start_server(struct zt_server *s)
{
	int p[2];
	CHECK_EQ(pipe(p), 0);
	s->ready_w = p[1];
	pid_t pid = zt_fork(zt_server_main, s);
	zt_get_byte(p[0]);
	close(p[0]);
	close(p[1]);
	return pid;
}

/* Loans and fills a request (its location recorded in it). */
static inline zcast_msg *zt_request(zcast_client *cli, uint32_t op, int64_t a, int64_t b)
{
	zcast_msg *req;
	CHECK_EQ(zcast_request_loan(cli, sizeof(struct add_req), &req), 0);
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(req, &info), 0);
	struct add_req *q = zcast_service_data(req);
	*q = (struct add_req){.op = op, .a = a, .b = b, .ino = info.pool_ino,
			      .offset = info.pool_offset};
	return req;
}

/* One ADD call, checked (sum, both directions in place). Returns the server's pid. */
static inline int zt_call_add(zcast_client *cli, int64_t a, int64_t b)
{
	zcast_msg *resp;
	CHECK_EQ(zcast_client_call(cli, zt_request(cli, OP_ADD, a, b), 30000000000ll, &resp), 0);
	const struct add_resp *r = zcast_service_data(resp);
	CHECK_EQ(r->sum, a + b);
	CHECK_EQ(r->in_place, 1);
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(resp, &info), 0);
	CHECK_EQ(info.pool_ino, r->ino);
	CHECK_EQ(info.pool_offset, r->offset);
	int pid = r->pid;
	zcast_msg_drop(resp);
	return pid;
}

/* Stops a server process with a STOP call. */
static inline void zt_stop_server(zcast_client *cli, pid_t pid)
{
	zcast_msg *resp;
	CHECK_EQ(zcast_client_call(cli, zt_request(cli, OP_STOP, 0, 0), 30000000000ll, &resp), 0);
	zcast_msg_drop(resp);
	CHECK_CHILD_OK(pid);
}

#endif
