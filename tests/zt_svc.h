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
	int close_r;    /* > 0: at take_limit, close the server after a byte here (else wait to be
			 * killed) */
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
		if (s->take_limit && taken == s->take_limit && s->close_r > 0) {
			zt_get_byte(s->close_r);
			break; /* closes with the taken ones unanswered and the rest queued */
		}
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

struct zt_topic_find {
	char prefix[256];
	char *out; /* 256 bytes */
};

static inline int zt_topic_find_cb(const char *topic, void *ctx)
{
	struct zt_topic_find *f = ctx;
	if (strncmp(topic, f->prefix, strlen(f->prefix)) == 0)
		snprintf(f->out, 256, "%s", topic);
	return 0;
}

/* The response topic of the one client of `service` into buf (256 bytes). */
static inline void zt_response_topic(const char *service, char *buf)
{
	struct zt_topic_find f = {.out = buf};
	snprintf(f.prefix, sizeof f.prefix, "%s/_rs/", service);
	buf[0] = 0;
	CHECK(zcast_topic_list(zt_domain(), zt_topic_find_cb, &f) >= 0);
	CHECK(buf[0] != 0);
}

/* Messages published on a topic so far (a response topic: responses, failures and markers). */
static inline uint64_t zt_published(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(zt_domain(), topic, &st), 0);
	return st.last_sequence;
}

/* Waits for the client's next outcome (without timeout: a hang fails the test) and takes it:
 * 0 with *resp, or the call's error (ZCAST_ESRVGONE, ...); *seq is its call. */
static inline int zt_next_outcome(zcast_client *cli, zcast_msg **resp, uint64_t *seq)
{
	for (;;) {
		CHECK_EQ(zcast_client_wait(cli, -1), 0);
		int r = zcast_response_take(cli, resp, seq);
		if (r != ZCAST_EAGAIN)
			return r;
	}
}

/* A client process (zt_fork) with one call that its server takes and never answers: sends it,
 * tells the test (a byte on sent_w), then expects ZCAST_ESRVGONE for it, whose text has `text`. */
struct zt_lost_call {
	const char *service;
	int sent_w;
	const char *text;
};

static inline int zt_lost_call_client(void *arg)
{
	const struct zt_lost_call *c = arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(c->service, NULL, &cli), 0);
	uint64_t seq, got;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 1), &seq), 0);
	zt_put_byte(c->sent_w);
	zcast_msg *resp;
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), ZCAST_ESRVGONE);
	CHECK_EQ(got, seq);
	CHECK(resp == NULL);
	CHECK(strstr(zcast_last_error(), c->text) != NULL);
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

/* The scene of the server-loss tests: a server process (s: hold_all, take_limit 2) takes two
 * calls and answers neither, the first from `cli` (its seq in *held), the second from a client
 * process (zt_lost_call_client, its failure text `text`; returned in *other); then `cli` queues
 * two more (their seqs in queued[]) behind them. Returns the server's pid. */
static inline pid_t zt_two_taken_two_queued(struct zt_server *s, zcast_client *cli,
					    const char *text, uint64_t *held, uint64_t *queued,
					    pid_t *other)
{
	int took[2], sent[2];
	CHECK_EQ(pipe(took), 0);
	CHECK_EQ(pipe(sent), 0);
	s->took_w = took[1];
	pid_t srv = zt_start_server(s);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 2, 2), held), 0);
	zt_get_byte(took[0]);
	struct zt_lost_call lost = {.service = s->service, .sent_w = sent[1], .text = text};
	*other = zt_fork(zt_lost_call_client, &lost);
	zt_get_byte(sent[0]);
	zt_get_byte(took[0]); /* both taken: the server takes no more */
	for (int i = 0; i < 2; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, i), &queued[i]), 0);
	for (int i = 0; i < 2; i++)
		close(took[i]), close(sent[i]);
	return srv;
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
