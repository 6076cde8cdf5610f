/* A zcast server exposed to DDS ("service <name> <type> zcast_to_dds"): the bridge serves
 * rq<name>Request as a ROS 2 server does and calls the zcast server as a zcast client, many calls
 * in flight (`pending=`). Each request's header is kept with its zcast call and written back in
 * front of the response, so the DDS client takes the reply as its own. A zcast call that fails
 * (no server, the server died or closed) or that the zcast server does not answer within
 * timeout_ms (the bridge's client forgets it: its place serves the next request) gets no reply: a
 * ROS 2 service has no error reply, its client times out. A call the zcast server refused
 * (ZCAST_EREFUSED: the request failed its checks there) is one of those: no reply, its place freed
 * at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "svc_internal.h"

static int open_client(struct zb_svc_rt *rt)
{
	zcast_service_opts o;
	zb_svc_opts(rt, &o);
	o.request_size = rt->cfg->max_size + ZCAST_TYPED_HEADER_OFFSET;
	/* Twice the calls the route has in flight (pending): a call given up at timeout_ms keeps its
	 * request slot while the server holds the request, and an answered one until the server
	 * releases it just after; the pool (2 x slot_count) has room for both and still `pending`
	 * calls. The server's response slots see at most `pending` calls of ours. */
	o.slot_count = 2 * rt->cfg->pending;
	if (zcast_client_open(rt->cfg->name, &o, &rt->cli) < 0) {
		fprintf(stderr, "zcast-bridge: service %s: %s\n", rt->cfg->name, zcast_last_error());
		return -1;
	}
	return 0;
}

static struct zb_svc_call *call_free(struct zb_svc_rt *rt)
{
	for (uint32_t i = 0; i < rt->cfg->pending; i++)
		if (!rt->calls[i].used)
			return &rt->calls[i];
	return NULL;
}

/* Sends call c's request loan. When every server's queue is full it stays ours (rt->unsent) and
 * is tried again when the client's room entry reports room: the route must not wait (in
 * zcast_request_send_wait) while it has responses to take, or the server, its response slots for
 * us full, could not answer; the requests behind it wait in the DDS reader. */
static void send_request(struct zb_svc_rt *rt, struct zb_svc_call *c)
{
	uint64_t zseq;
	int e = zcast_request_send(rt->cli, c->req, &zseq);
	rt->unsent = e == ZCAST_EAGAIN ? c : NULL;
	if (e == ZCAST_EAGAIN)
		return;
	if (e < 0) {
		zcast_msg_drop(c->req);
		zb_svc_fail(rt, ZB_SVC_WARN_NOSERVER, "requests finding no zcast server",
			    zcast_strerror(e));
		*c = (struct zb_svc_call){0};
		rt->n_calls--;
		return;
	}
	c->req = NULL;
	c->zseq = zseq;
	atomic_fetch_add(&rt->n_sent, 1);
}

/* Sends the request in sample b (n bytes) to the zcast server. */
static void forward_request(struct zb_svc_rt *rt, const uint8_t *b, size_t n,
			    const dds_sample_info_t *si)
{
	struct zb_svc_call *c = call_free(rt);
	uint8_t hdr[ZB_SVC_HDR];
	if (!c || zb_svc_header(rt, b, n, hdr, "requests without a request header") < 0)
		return;
	if (!zb_svc_peer_type_ok(rt, si->publication_handle)) {
		zb_svc_drop(rt, ZB_SVC_WARN_TYPE, "requests of a client of another type", rt->why);
		return;
	}
	zcast_msg *m;
	int e = zcast_request_loan(rt->cli, rt->cfg->max_size + ZCAST_TYPED_HEADER_OFFSET, &m);
	if (e < 0) {
		zb_svc_fail(rt, ZB_SVC_WARN_NOSERVER, "requests finding no request slot",
			    zcast_strerror(e));
		return;
	}
	if (zb_svc_fill(rt, rt->cfg->type->request, m, b, n) < 0) {
		zcast_msg_drop(m);
		zb_svc_drop(rt, ZB_SVC_WARN_INVALID, "invalid requests", rt->why);
		return;
	}
	*c = (struct zb_svc_call){.used = 1, .req = m, .writer = si->publication_handle,
				  .deadline = zb_svc_now() + (int64_t)rt->cfg->timeout_ms * 1000000};
	memcpy(c->hdr, hdr, ZB_SVC_HDR);
	rt->n_calls++;
	send_request(rt, c);
}

/* Takes requests while a call slot is free and no request waits for a server's room (the rest
 * wait in the DDS reader). */
static void take_requests(struct zb_svc_rt *rt)
{
	while (!rt->unsent && rt->n_calls < rt->cfg->pending && !atomic_load(&rt->b->stop)) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		if (dds_takecdr(rt->reader, &sd, 1, &si, DDS_ANY_STATE) <= 0)
			return;
		size_t n;
		const uint8_t *b = zb_serdata_bytes(sd, &n);
		if (si.valid_data)
			forward_request(rt, b, n, &si);
		ddsi_serdata_unref(sd);
	}
}

static void reply(struct zb_svc_rt *rt, const struct zb_svc_call *c, zcast_msg *resp)
{
	uint8_t *d = zcast_service_data(resp);
	size_t n = zcast_service_size(resp);
	if (!d || n < ZCAST_TYPED_PREFIX || n - ZCAST_TYPED_HEADER_OFFSET > rt->cfg->max_size) {
		zb_svc_fail(rt, ZB_SVC_WARN_INVALID, "zcast responses of a size out of range", "");
		return;
	}
	zb_svc_reply(rt, c, d + ZCAST_TYPED_HEADER_OFFSET, n - ZCAST_TYPED_HEADER_OFFSET);
}

/* The outcomes of our calls: a response is written back to its DDS client; a call whose zcast
 * server went away or refused the request gets no reply (the DDS client times out, as with a ROS 2
 * server that does not answer), and its place serves the next request at once. */
static void take_responses(struct zb_svc_rt *rt)
{
	for (;;) {
		zcast_msg *resp = NULL;
		uint64_t zseq = 0;
		int e = zcast_response_take(rt->cli, &resp, &zseq);
		if (e != 0 && e != ZCAST_ESRVGONE && e != ZCAST_EREFUSED)
			return;
		struct zb_svc_call *c = NULL;
		for (uint32_t i = 0; i < rt->cfg->pending && !c; i++)
			if (rt->calls[i].used && !rt->calls[i].req && rt->calls[i].zseq == zseq)
				c = &rt->calls[i];
		if (c && e == 0)
			reply(rt, c, resp);
		else if (c && e == ZCAST_ESRVGONE)
			zb_svc_fail(rt, ZB_SVC_WARN_GONE, "calls whose zcast server went away",
				    "the DDS client gets no reply");
		else if (c)
			zb_svc_fail(rt, ZB_SVC_WARN_REFUSED, "calls the zcast server refused",
				    "the DDS client gets no reply");
		if (resp)
			zcast_msg_drop(resp);
		if (c)
			c->used = 0, rt->n_calls--;
	}
}

/* Gives up the calls past their deadline: a zcast server that holds a request and never answers
 * would keep the call's place (and the DDS client waiting) for good. Returns the milliseconds
 * until the next deadline (at most 100). */
static int expire(struct zb_svc_rt *rt)
{
	int64_t now = zb_svc_now(), next = now + 100 * 1000000;
	for (uint32_t i = 0; i < rt->cfg->pending; i++) {
		struct zb_svc_call *c = &rt->calls[i];
		if (c->used && c->deadline <= now && c->req) { /* never sent */
			zcast_msg_drop(c->req);
			zb_svc_fail(rt, ZB_SVC_WARN_TIMEOUT, "requests no zcast server had room for",
				    "timeout_ms passed");
			*c = (struct zb_svc_call){0};
			rt->n_calls--, rt->unsent = NULL;
		} else if (c->used && c->deadline <= now) {
			(void)zcast_client_forget(rt->cli, c->zseq); /* a late response is dropped */
			zb_svc_fail(rt, ZB_SVC_WARN_TIMEOUT, "calls the zcast server did not answer",
				    "timeout_ms passed");
			c->used = 0, rt->n_calls--;
		} else if (c->used && c->deadline < next) {
			next = c->deadline;
		}
	}
	return (int)((next - now) / 1000000) + 1;
}

void *zb_svc_to_dds(void *arg)
{
	struct zb_svc_rt *rt = arg;
	if (zb_svc_activate(rt, open_client(rt) == 0 && zb_svc_watch(rt) == 0) < 0)
		return NULL;
	while (!atomic_load(&rt->b->stop)) {
		int parked_ms = zb_svc_parked_flush(rt); /* a reply reader's match wakes us too */
		take_responses(rt);
		int ms = expire(rt);
		if (rt->unsent)
			send_request(rt, rt->unsent);
		take_requests(rt);
		ms = ms < parked_ms ? ms : parked_ms;
		zb_svc_wait(rt, 1, rt->unsent != NULL, ms);
	}
	return NULL;
}
