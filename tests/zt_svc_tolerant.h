/* A server process for the service crash and chaos tests (tests/svc/): answers ADD requests as
 * zt_serve_one does, but its clients may be gone (killed): their requests are dropped unanswered
 * (zcast_response_loan says ZCAST_ENOENT). It stops after a STOP request or, with `stop` set, once
 * *stop is non-zero (it then waits in slices); `served` (optional) counts the requests it took. */
#ifndef ZT_SVC_TOLERANT_H
#define ZT_SVC_TOLERANT_H

#include "zt_svc.h"

struct zt_tolerant {
	struct zt_server s;      /* service, ready_w */
	_Atomic int *stop;       /* NULL: only a STOP request ends it */
	_Atomic uint64_t *served;
};

/* Answers one request; returns its op. */
static inline uint32_t zt_answer_if_client(zcast_server *srv, zcast_msg *req)
{
	struct add_req in = *(const struct add_req *)zcast_service_data(req);
	zcast_msg *resp;
	int r = zcast_response_loan(srv, req, sizeof(struct add_resp), &resp);
	if (r != ZCAST_ENOENT) {
		CHECK_EQ(r, 0);
		zcast_msg_info ri;
		CHECK_EQ(zcast_msg_info_get(resp, &ri), 0);
		*(struct add_resp *)zcast_service_data(resp) = (struct add_resp){
		    .sum = in.a + in.b, .pid = getpid(), .in_place = 1, .ino = ri.pool_ino,
		    .offset = ri.pool_offset};
		CHECK_EQ(zcast_response_send(srv, resp), 0);
	}
	zcast_msg_drop(req);
	return in.op;
}

static inline int zt_tolerant_server(void *arg)
{
	struct zt_tolerant *t = arg;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(t->s.service, NULL, &srv), 0);
	zt_put_byte(t->s.ready_w);
	for (;;) {
		if (t->stop && atomic_load(t->stop))
			break;
		zcast_msg *req;
		int r = zcast_request_take(srv, &req);
		if (r == ZCAST_EAGAIN) {
			r = zcast_server_wait(srv, t->stop ? 100000000 : -1);
			CHECK(r == 0 || r == ZCAST_ETIMEDOUT);
			continue;
		}
		CHECK_EQ(r, 0);
		if (t->served)
			atomic_fetch_add(t->served, 1);
		if (zt_answer_if_client(srv, req) == OP_STOP)
			break;
	}
	CHECK_EQ(zcast_server_close(srv), 0);
	return 0;
}

static inline int zt_gc_one(const char *topic, void *ctx)
{
	(void)ctx;
	int r = zcast_topic_gc(NULL, topic);
	CHECK(r >= 0 || r == ZCAST_ENOENT); /* ENOENT: removed since it was listed */
	return 0;
}

/* Reclaims the dead members of every topic of the test's domain (what killed processes left). */
static inline void zt_gc_domain(void)
{
	CHECK(zcast_topic_list(NULL, zt_gc_one, NULL) >= 0);
}

#endif
