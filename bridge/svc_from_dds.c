/* A DDS / ROS 2 server exposed to zcast ("service <name> <type> dds_to_zcast"): the bridge is a
 * zcast server of the name and a ROS 2 client on DDS. Each zcast request is written to
 * rq<name>Request behind a header with this bridge's request writer handle (guid) and a number of
 * its own (seq); a reply on rr<name>Reply with our guid is matched by seq and answers that zcast
 * call. A call whose DDS server is gone (none matched at the request, or all left while it was in
 * flight) or that is not answered within timeout_ms fails: its zcast caller gets ZCAST_ESRVGONE.
 * A reply or a failure that finds no room at its zcast client (it holds its earlier responses)
 * waits in the call until the server's room entry reports room, or the client is gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "svc_internal.h"

static int open_server(struct zb_svc_rt *rt)
{
	zcast_service_opts o;
	zb_svc_opts(rt, &o);
	o.response_size = rt->cfg->max_size + ZCAST_TYPED_HEADER_OFFSET;
	if (zcast_server_open(rt->cfg->name, &o, &rt->srv) < 0) {
		fprintf(stderr, "zcast-bridge: service %s: %s\n", rt->cfg->name, zcast_last_error());
		return -1;
	}
	return 0;
}

/* Ends a call: its request was answered or failed. */
static void forget(struct zb_svc_rt *rt, struct zb_svc_call *c)
{
	zcast_msg_drop(c->req);
	if (c->reply)
		rt->n_kept--;
	else
		rt->n_calls--;
	free(c->reply);
	c->req = NULL, c->reply = NULL;
	c->used = 0, c->failing = 0;
}

/* Fails call c's request. The failure is a message to its zcast client, which learns of it from
 * nothing else: when it finds no room there (or the route to the client cannot be opened now: no
 * descriptor or memory left) the call stays, failing, and is tried again when room comes or at the
 * next turn (retry_room); counted once. EINVAL: the library let go of it (its client left). */
static void fail_call(struct zb_svc_rt *rt, struct zb_svc_call *c, unsigned kind, const char *what,
		      const char *why)
{
	if (!c->failing)
		zb_svc_fail(rt, kind, what, why);
	c->failing = 1;
	int e = zcast_request_fail(rt->srv, c->req);
	if (e == 0 || e == ZCAST_EINVAL)
		forget(rt, c);
}

static void put8(uint8_t *out, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

/* Writes one zcast request to DDS (c: a free call slot). */
static void forward_request(struct zb_svc_rt *rt, struct zb_svc_call *c, zcast_msg *req)
{
	*c = (struct zb_svc_call){.used = 1, .req = req, .seq = ++rt->next_seq};
	rt->n_calls++;
	const uint8_t *d = zcast_service_data(req);
	size_t n = zcast_service_size(req);
	if (zb_svc_matched(rt) == 0) {
		fail_call(rt, c, ZB_SVC_WARN_NOSERVER, "calls while no DDS server is matched", "");
		return;
	}
	uint8_t hdr[ZB_SVC_HDR];
	put8(hdr, rt->self);
	put8(hdr + 8, (uint64_t)c->seq);
	if (!d || n < ZCAST_TYPED_PREFIX ||
	    zb_svc_write(rt, hdr, d + ZCAST_TYPED_HEADER_OFFSET, n - ZCAST_TYPED_HEADER_OFFSET) < 0) {
		fail_call(rt, c, ZB_SVC_WARN_INVALID, "requests not written to DDS",
			  d && n >= ZCAST_TYPED_PREFIX ? "" : "not a typed message");
		return;
	}
	c->deadline = zb_svc_now() + (int64_t)rt->cfg->timeout_ms * 1000000;
	atomic_fetch_add(&rt->n_sent, 1);
}

static void take_requests(struct zb_svc_rt *rt)
{
	for (uint32_t i = 0; i < rt->cap_calls && rt->n_calls < rt->cfg->pending &&
			     !atomic_load(&rt->b->stop);
	     i++) {
		zcast_msg *req;
		if (rt->calls[i].used)
			continue;
		if (zcast_request_take(rt->srv, &req) != 0)
			return; /* the rest wait in the server's queue (backpressure to the clients) */
		forward_request(rt, &rt->calls[i], req);
	}
}

static struct zb_svc_call *call_of(struct zb_svc_rt *rt, int64_t seq)
{
	for (uint32_t i = 0; i < rt->cap_calls; i++)
		if (rt->calls[i].used && rt->calls[i].seq == seq)
			return &rt->calls[i];
	return NULL;
}

/* Answers call c with the DDS reply b (n bytes): 0 when the call ended (answered, failed, or its
 * client left), 1 when the client's response pool or queue has no room now. */
static int deliver(struct zb_svc_rt *rt, struct zb_svc_call *c, const uint8_t *b, size_t n)
{
	zcast_msg *m = NULL;
	int e = zcast_response_loan(rt->srv, c->req, rt->cfg->max_size + ZCAST_TYPED_HEADER_OFFSET,
				    &m);
	if (e == ZCAST_ENOSLOT)
		return 1;
	if (e == ZCAST_ENOENT) { /* the zcast client left: nobody waits */
		forget(rt, c);
		return 0;
	}
	if (e == 0 && zb_svc_fill(rt, rt->cfg->type->response, m, b, n) < 0) {
		zcast_msg_drop(m);
		zb_svc_drop(rt, ZB_SVC_WARN_INVALID, "invalid replies", rt->why);
		fail_call(rt, c, ZB_SVC_WARN_INVALID, "calls answered with an invalid reply", "");
		return 0;
	}
	if (e == 0 && (e = zcast_response_send(rt->srv, m)) == ZCAST_EAGAIN) {
		zcast_msg_drop(m); /* the client's queue is full: its room is waited for, as above */
		return 1;
	}
	if (e < 0) { /* the loan stays ours */
		if (m)
			zcast_msg_drop(m);
		fail_call(rt, c, ZB_SVC_WARN_CLIENT, "calls whose response was not sent",
			  zcast_strerror(e));
		return 0;
	}
	atomic_fetch_add(&rt->n_answered, 1);
	forget(rt, c);
	return 0;
}

/* One reply sample b (n bytes) from the DDS server. */
static void answer(struct zb_svc_rt *rt, const uint8_t *b, size_t n, const dds_sample_info_t *si)
{
	uint8_t hdr[ZB_SVC_HDR];
	uint64_t guid, seq;
	if (zb_svc_header(rt, b, n, hdr, "replies without a request header") < 0)
		return;
	memcpy(&guid, hdr, 8); /* little endian hosts only, as the rest of zcast */
	memcpy(&seq, hdr + 8, 8);
	if (guid != rt->self)
		return; /* a reply to another client: every client reads every reply */
	struct zb_svc_call *c = call_of(rt, (int64_t)seq);
	if (!c || c->reply || c->failing) {
		zb_svc_drop(rt, ZB_SVC_WARN_SEQ, "replies to no call in flight",
			    "answered already, timed out, or not ours");
		return;
	}
	if (!zb_svc_peer_type_ok(rt, si->publication_handle)) {
		zb_svc_drop(rt, ZB_SVC_WARN_TYPE, "replies of a server of another type", rt->why);
		return; /* the call waits for a reply of its type or its timeout */
	}
	if (deliver(rt, c, b, n) == 0)
		return;
	/* The client has not dropped enough of its earlier responses yet: the reply waits (a copy:
	 * the sample goes back to Cyclone) and is tried again (retry_room), and the call's place
	 * serves the next request: a client that waits for room to send before it takes its
	 * responses would otherwise wait for us while we wait for it. */
	int full = rt->n_kept == ZB_SVC_KEPT * rt->cfg->pending;
	if (full || !(c->reply = malloc(n))) {
		char why[96];
		snprintf(why, sizeof why, "more than %u x pending=%u wait for room", ZB_SVC_KEPT,
			 rt->cfg->pending);
		fail_call(rt, c, ZB_SVC_WARN_ROOM,
			  "calls whose zcast client had no room for the response",
			  full ? why : "out of memory");
		return;
	}
	memcpy(c->reply, b, n);
	c->reply_n = n;
	rt->n_calls--, rt->n_kept++;
}

/* The replies and failures waiting for room at their zcast client, tried again: 1 when some still
 * wait (the route's thread then watches the server's room entry: a client that drops a response,
 * closes or dies wakes it). The call's timeout_ms ends a reply's wait; a failure's ends when it
 * is delivered or its client is gone. */
static int retry_room(struct zb_svc_rt *rt)
{
	int waiting = 0;
	for (uint32_t i = 0; i < rt->cap_calls; i++) {
		struct zb_svc_call *c = &rt->calls[i];
		if (c->used && c->failing)
			fail_call(rt, c, 0, "", "");
		else if (c->used && c->reply)
			deliver(rt, c, c->reply, c->reply_n);
		waiting |= c->used && (c->failing || c->reply);
	}
	return waiting;
}

static void take_replies(struct zb_svc_rt *rt)
{
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t si;
	while (!atomic_load(&rt->b->stop) && dds_takecdr(rt->reader, &sd, 1, &si, DDS_ANY_STATE) > 0) {
		size_t n;
		const uint8_t *b = zb_serdata_bytes(sd, &n);
		if (si.valid_data)
			answer(rt, b, n, &si);
		ddsi_serdata_unref(sd);
	}
}

/* Fails the calls past their deadline, and every call when no DDS server is left. Returns the
 * milliseconds until the next deadline (at most 100). */
static int expire(struct zb_svc_rt *rt)
{
	int64_t now = zb_svc_now(), next = now + 100 * 1000000;
	int gone = rt->n_calls && zb_svc_matched(rt) == 0;
	for (uint32_t i = 0; i < rt->cap_calls; i++) {
		struct zb_svc_call *c = &rt->calls[i];
		if (c->failing) /* failed already: waits for room (retry_room) */
			continue;
		if (c->used && gone && !c->reply) /* a reply kept needs no server any more */
			fail_call(rt, c, ZB_SVC_WARN_GONE, "calls whose DDS server went away", "");
		else if (c->used && c->deadline <= now)
			fail_call(rt, c, c->reply ? ZB_SVC_WARN_ROOM : ZB_SVC_WARN_TIMEOUT,
				  c->reply ? "calls whose zcast client had no room for the response"
					   : "calls the DDS server did not answer",
				  "timeout_ms passed");
		else if (c->used && c->deadline < next)
			next = c->deadline;
	}
	return (int)((next - now) / 1000000) + 1;
}

void *zb_svc_from_dds(void *arg)
{
	struct zb_svc_rt *rt = arg;
	if (zb_svc_activate(rt, open_server(rt) == 0 && zb_svc_watch(rt) == 0) < 0)
		return NULL;
	while (!atomic_load(&rt->b->stop)) {
		take_replies(rt);
		int ms = expire(rt);
		int room = retry_room(rt);
		take_requests(rt);
		zb_svc_wait(rt, rt->n_calls < rt->cfg->pending, room, ms);
	}
	return NULL;
}
