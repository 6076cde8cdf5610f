/* Servers: a BALANCE_RR subscriber of the request topic; each taken request is recorded (with the
 * library's own reference) until its response is sent. */
#include <stdlib.h>
#include <string.h>

#include "svc_internal.h"

static const char *domain_of(const zcast_server *srv)
{
	return srv->domain[0] ? srv->domain : NULL;
}

int zcast_server_open(const char *service, const zcast_service_opts *opts, zcast_server **out)
{
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	*out = NULL;
	int r = zc_svc_name_check(service);
	if (r)
		return r;
	if (opts && opts->domain && zcast_domain_name_valid(opts->domain) != 0)
		return zc_err(ZCAST_EINVAL, "domain '%s' is not valid", opts->domain);
	zcast_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		return zc_err(ZCAST_ENOMEM, "server handle");
	zc_svc_opts_resolve(opts, &srv->o);
	strcpy(srv->service, service);
	if (srv->o.domain)
		strcpy(srv->domain, srv->o.domain);
	srv->o.domain = NULL; /* the caller's string is not kept */
	char topic[ZC_SVC_TOPIC_MAX];
	zc_svc_request_topic(topic, service);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.domain = domain_of(srv);
	so.type_name = srv->o.type_name;
	memcpy(so.type_hash, srv->o.type_hash, sizeof so.type_hash);
	so.policy = ZCAST_POLICY_BALANCE_RR;
	so.group = "_handover_servers"; /* proto/rr_handover.c */
	so.queue_depth = srv->o.queue_depth;
	srv->o.type_name = NULL;
	if ((r = zcast_sub_open(topic, &so, &srv->sub)) != 0) {
		free(srv);
		return r;
	}
	zc_svc_server_watch(srv);
	zc_svc_room_init(srv);
	*out = srv;
	return 0;
}

struct zc_svc_taken *zc_svc_taken_find(zcast_server *srv, const zcast_msg *req)
{
	for (uint32_t i = 0; req && i < srv->n_taken; i++)
		if (srv->taken[i].req == req)
			return &srv->taken[i];
	return NULL;
}

/* Under srv->mu. */
static void taken_forget(zcast_server *srv, struct zc_svc_taken *tk)
{
	zcast_msg_drop(tk->req);
	*tk = srv->taken[--srv->n_taken];
}

/* Under srv->mu: room for one more taken request. */
static bool taken_room(zcast_server *srv)
{
	if (srv->n_taken < srv->cap_taken)
		return true;
	uint32_t cap = srv->cap_taken ? 2 * srv->cap_taken : 16;
	struct zc_svc_taken *t = realloc(srv->taken, cap * sizeof *t);
	if (!t)
		return false;
	srv->taken = t;
	srv->cap_taken = cap;
	return true;
}

/* A request that failed a check: its client (the member that published it: the core copied that
 * id at take; the header's nonce names its response topic) is told why before the request is
 * released, as a response would be (response-before-release), when that topic exists. A forger
 * publishes with its own id, so it can only be refused itself. Then it is dropped and counted.
 * A refusal that finds no room in the client's response pool or queue is owed, not dropped: its
 * client's call would wait for good (the request released, nothing else tells it). The request
 * stays in the table, never the caller's, until the courier sends the refusal when room comes
 * (svc_courier.c). Only when the table has no memory for it is it dropped. */
static int refuse(zcast_server *srv, zcast_msg *m, const struct zc_svc_hdr *h, uint32_t why,
		  const char *text)
{
	pthread_mutex_lock(&srv->mu);
	srv->rejected++;
	int r = m->size >= sizeof *h
		    ? zc_svc_notify(srv, m->publisher_id, h->nonce, h->seq, ZC_SVC_REFUSED, why)
		    : 0;
	bool owed = r == ZCAST_ENOSLOT && taken_room(srv);
	if (owed) {
		struct zc_svc_taken *tk = &srv->taken[srv->n_taken++];
		*tk = (struct zc_svc_taken){.req = m,
					    .client_id = m->publisher_id,
					    .nonce = h->nonce,
					    .seq = h->seq,
					    .refused = why};
		/* a refusal, like a failure, needs a slot and queue room */
		zc_svc_room_need(srv, tk, ZC_ROOM_SLOT | ZC_ROOM_QUEUE);
	}
	pthread_mutex_unlock(&srv->mu);
	if (owed)
		(void)zc_svc_courier_want(srv);
	else
		zcast_msg_drop(m);
	return zc_err(why == ZC_SVC_WHY_MEMORY ? ZCAST_ENOMEM : ZCAST_ECORRUPT,
		      "service %s: a request was refused: %s", srv->service, text);
}

uint32_t zc_svc_refusals_send(zcast_server *srv)
{
	uint32_t owed = 0;
	pthread_mutex_lock(&srv->mu);
	for (uint32_t i = 0; i < srv->n_taken;) {
		struct zc_svc_taken *tk = &srv->taken[i];
		int r = tk->refused ? zc_svc_notify(srv, tk->client_id, tk->nonce, tk->seq,
						    ZC_SVC_REFUSED, tk->refused)
				    : ZCAST_EINVAL; /* the caller's */
		if (r == ZCAST_ENOSLOT)
			owed++;
		if (r == ZCAST_ENOSLOT || r == ZCAST_EINVAL) {
			i++;
			continue;
		}
		/* SYNC: response-before-release — the refusal is queued (or its client is gone)
		 * before the request's slot is released (client_deaths.c, zc_svc_client_check). */
		taken_forget(srv, tk); /* moves the last entry here: look at i again */
	}
	pthread_mutex_unlock(&srv->mu);
	return owed;
}

int zc_svc_server_adopt(zcast_server *srv, zcast_msg *m)
{
	struct zc_svc_hdr h = {0};
	if (!zc_svc_hdr_read(m, &h) || h.kind != ZC_SVC_REQUEST)
		return refuse(srv, m, &h, ZC_SVC_WHY_HEADER, "no request header");
	if (h.client_id != m->publisher_id) /* the core copied the publisher's id at take */
		return refuse(srv, m, &h, ZC_SVC_WHY_ID, "its client id is not its publisher's");
	pthread_mutex_lock(&srv->mu);
	bool room = taken_room(srv);
	if (room)
		srv->taken[srv->n_taken++] = (struct zc_svc_taken){
		    .req = m, .client_id = h.client_id, .nonce = h.nonce, .seq = h.seq};
	pthread_mutex_unlock(&srv->mu);
	return room ? 0 : refuse(srv, m, &h, ZC_SVC_WHY_MEMORY, "no memory for its table entry");
}

int zcast_request_take(zcast_server *srv, zcast_msg **req)
{
	if (!srv || !req)
		return zc_err(ZCAST_EINVAL, "srv or req is NULL");
	*req = NULL;
	for (;;) {
		zcast_msg *m;
		int r = zcast_take(srv->sub, &m); /* several threads may take: one message each */
		if (r)
			return r;
		/* The caller's reference first: once in the table, another thread may answer it. */
		zcast_msg *mine = zcast_msg_ref(m);
		if ((r = zc_svc_server_adopt(srv, m)) != 0)
			zcast_msg_drop(mine);
		if (r == ZCAST_ENOMEM)
			return r;
		if (r == 0) {
			ZC_CRASH("svc:take:after-adopt");
			*req = mine; /* the caller's; the table keeps its own */
			return 0;
		}
	}
}

int zcast_server_wait(zcast_server *srv, int64_t timeout_ns)
{
	return srv ? zcast_wait(srv->sub, timeout_ns) : zc_err(ZCAST_EINVAL, "srv is NULL");
}

uint64_t zcast_request_seq(zcast_server *srv, const zcast_msg *req)
{
	if (!srv)
		return 0;
	pthread_mutex_lock(&srv->mu);
	struct zc_svc_taken *tk = zc_svc_taken_find(srv, req);
	uint64_t seq = tk ? tk->seq : 0;
	pthread_mutex_unlock(&srv->mu);
	return seq;
}

/* Under srv->mu: the response loan for taken request tk (see zcast_response_loan). */
static int response_loan(zcast_server *srv, struct zc_svc_taken *tk, size_t size, zcast_msg **resp)
{
	zcast_msg *m;
	int r = zc_svc_route_loan(srv, tk->client_id, tk->nonce, size + ZCAST_SERVICE_HEADER, &m);
	if (r == ZCAST_ENOENT) {
		uint64_t id = tk->client_id;
		taken_forget(srv, tk); /* nobody waits for it */
		return zc_err(ZCAST_ENOENT, "service %s: client %llu is gone", srv->service,
			      (unsigned long long)id);
	}
	zc_svc_room_need(srv, tk, r == ZCAST_ENOSLOT ? ZC_ROOM_SLOT : 0);
	if (r)
		return r;
	ZC_CRASH("svc:respond:after-loan");
	for (uint32_t i = 0; i < srv->n_taken; i++)
		if (srv->taken[i].resp == m) /* a dropped loan's handle, reused */
			srv->taken[i].resp = NULL;
	zc_svc_hdr_write(m, ZC_SVC_RESPONSE, tk->client_id, tk->nonce, tk->seq);
	tk->resp = m;
	*resp = m;
	return 0;
}

int zcast_response_loan(zcast_server *srv, zcast_msg *req, size_t size, zcast_msg **resp)
{
	if (!srv || !resp)
		return zc_err(ZCAST_EINVAL, "srv or resp is NULL");
	*resp = NULL;
	if (size > srv->o.response_size)
		return zc_err(ZCAST_EINVAL, "response size %zu exceeds response_size %zu", size,
			      srv->o.response_size);
	pthread_mutex_lock(&srv->mu);
	struct zc_svc_taken *tk = zc_svc_taken_find(srv, req);
	int r = tk ? response_loan(srv, tk, size, resp)
		   : zc_err(ZCAST_EINVAL, "not a request this server took and has not answered");
	pthread_mutex_unlock(&srv->mu);
	return r;
}

int zcast_response_send(zcast_server *srv, zcast_msg *resp)
{
	if (!srv || !resp)
		return zc_err(ZCAST_EINVAL, "srv or resp is NULL");
	pthread_mutex_lock(&srv->mu);
	struct zc_svc_taken *tk = NULL;
	for (uint32_t i = 0; i < srv->n_taken && !tk; i++)
		if (srv->taken[i].resp == resp)
			tk = &srv->taken[i];
	int r = tk ? zcast_publish(resp->pub, resp)
		   : zc_err(ZCAST_EINVAL, "not a response loan of this server's open requests");
	if (tk)
		zc_svc_room_need(srv, tk, r == ZCAST_EAGAIN ? ZC_ROOM_QUEUE : 0); /* queue full */
	if (!r) {
		ZC_CRASH("svc:respond:after-publish");
		/* SYNC: response-before-release — the response is queued before the request's slot
		 * is released, so a client that sees the slot free finds the response ahead of its
		 * marker (client_deaths.c, zc_svc_client_check). */
		taken_forget(srv, tk);
	}
	pthread_mutex_unlock(&srv->mu);
	return r;
}

/* The failure is a message on the client's response topic, like a response: without room for it
 * the request stays taken and the caller tries again when room comes (zcast_waitset_add_server_room).
 * Dropping it instead would leave a live server's client waiting for good: nothing else tells it
 * (a closing server's clients learn it from the membership change). */
int zcast_request_fail(zcast_server *srv, zcast_msg *req)
{
	if (!srv)
		return zc_err(ZCAST_EINVAL, "srv is NULL");
	pthread_mutex_lock(&srv->mu);
	struct zc_svc_taken *tk = zc_svc_taken_find(srv, req);
	int r = tk ? zc_svc_notify(srv, tk->client_id, tk->nonce, tk->seq, ZC_SVC_FAILURE, 0)
		   : ZCAST_EINVAL;
	if (tk)
		zc_svc_room_need(srv, tk, r == ZCAST_ENOSLOT ? ZC_ROOM_SLOT | ZC_ROOM_QUEUE : 0);
	if (r == 0 || r == ZCAST_ENOENT) { /* told, or nobody waits */
		tk->resp = NULL; /* an unsent loan: its slot goes back when the caller drops it */
		taken_forget(srv, tk);
		r = 0;
	}
	pthread_mutex_unlock(&srv->mu);
	if (r == ZCAST_EINVAL)
		return zc_err(r, "not a request this server took and has not answered");
	if (r == ZCAST_ENOSLOT)
		return zc_err(r, "service %s: no room for the failure in the client's response pool "
				 "or queue: the request stays taken, try again",
			      srv->service);
	return r;
}

int zcast_server_close(zcast_server *srv)
{
	if (!srv)
		return zc_err(ZCAST_EINVAL, "srv is NULL");
	zc_svc_server_unwatch(srv); /* the hook no longer sees it */
	zc_svc_server_fail_all(srv); /* refusals owed too: sent, or dropped as failures are */
	zc_svc_courier_forget(srv);
	int r = zcast_sub_close(srv->sub);
	pthread_mutex_lock(&srv->mu);
	zc_svc_routes_close(srv);
	pthread_mutex_unlock(&srv->mu);
	pthread_mutex_destroy(&srv->mu);
	free(srv->taken);
	free(srv);
	return r;
}
