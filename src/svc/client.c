/* Clients: a publisher of the request topic (its member id is the client id), a subscriber and a
 * marker publisher of the client's own response topic, and the table of calls. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "svc_internal.h"

static const char *domain_of(const zcast_client *cli)
{
	return cli->o.domain;
}

static void client_free(zcast_client *cli)
{
	for (uint32_t i = 0; cli->calls && i < cli->o.slot_count; i++)
		zcast_msg_drop(cli->calls[i].resp); /* responses nobody took */
	if (cli->self_pub)
		zcast_pub_close(cli->self_pub);
	if (cli->resp_sub)
		zcast_sub_close(cli->resp_sub);
	if (cli->req_pub)
		zcast_pub_close(cli->req_pub);
	pthread_mutex_destroy(&cli->mu);
	free(cli->refused);
	free(cli->calls);
	free((char *)cli->o.domain);
	free(cli);
}

static int open_request_pub(zcast_client *cli, const zcast_service_opts *o)
{
	char topic[ZC_SVC_TOPIC_MAX];
	zc_svc_request_topic(topic, cli->service);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.domain = domain_of(cli);
	po.type_name = o->type_name;
	memcpy(po.type_hash, o->type_hash, sizeof po.type_hash);
	po.slot_size = o->request_size + ZCAST_SERVICE_HEADER;
	/* Twice the calls: a server releases a request just after its response is sent, so a slot
	 * may still be held when the call's outcome is taken already. */
	po.slot_count = 2 * o->slot_count;
	int r = zcast_pub_open(topic, &po, &cli->req_pub);
	if (!r)
		cli->req_pub->needs_rr = true; /* no server: the publish fails (publish_req) */
	return r;
}

/* The response topic: named after the client id and a nonce of this instance, so a later client
 * with a reused record never meets this one's responses. */
static int open_response_topic(zcast_client *cli, const zcast_service_opts *o)
{
	char topic[ZC_SVC_TOPIC_MAX];
	zc_svc_response_topic(topic, cli->service, cli->id, cli->nonce);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.domain = domain_of(cli);
	so.queue_depth = 2 * o->slot_count + 1; /* a response per call, a marker per marker slot */
	so.topic.max_queue_depth = so.queue_depth > 256 ? so.queue_depth : 0;
	int r = zcast_sub_open(topic, &so, &cli->resp_sub);
	if (r)
		return r;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.domain = domain_of(cli);
	po.slot_size = ZCAST_SERVICE_HEADER;
	/* A marker slot more than calls: an executor holds the marker it hands to the client's
	 * callback (svc_wait.c) until the callback returns, so a marker owed or a nudge made in that
	 * callback needs another slot, or it is never published (test svc_marker_exec). */
	po.slot_count = o->slot_count + 1;
	return zcast_pub_open(topic, &po, &cli->self_pub);
}

int zcast_client_open(const char *service, const zcast_service_opts *opts, zcast_client **out)
{
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	*out = NULL;
	int r = zc_svc_name_check(service);
	if (r)
		return r;
	zcast_service_opts o;
	zc_svc_opts_resolve(opts, &o);
	if (o.slot_count > 512)
		return zc_err(ZCAST_EINVAL, "slot_count %u: at most 512 calls per client", o.slot_count);
	zcast_client *cli = calloc(1, sizeof *cli);
	if (!cli)
		return zc_err(ZCAST_ENOMEM, "client handle");
	pthread_mutex_init(&cli->mu, NULL);
	strcpy(cli->service, service);
	cli->o = o;
	cli->o.type_name = NULL; /* the caller's strings are not kept */
	cli->o.domain = o.domain ? strdup(o.domain) : NULL;
	cli->calls = calloc(o.slot_count, sizeof *cli->calls);
	if ((o.domain && !cli->o.domain) || !cli->calls) {
		client_free(cli);
		return zc_err(ZCAST_ENOMEM, "client handle");
	}
	if (getrandom(&cli->nonce, sizeof cli->nonce, 0) != sizeof cli->nonce)
		cli->nonce = (uint32_t)zc_now_ns() ^ (uint32_t)getpid();
	if ((r = open_request_pub(cli, &o)) != 0 || (r = zc_svc_client_room_init(cli)) != 0 ||
	    (cli->id = zcast_pub_id(cli->req_pub), (r = open_response_topic(cli, &o)) != 0)) {
		client_free(cli);
		return r;
	}
	zc_svc_clients_add(cli);
	*out = cli;
	return 0;
}

int zcast_client_close(zcast_client *cli)
{
	if (!cli)
		return zc_err(ZCAST_EINVAL, "cli is NULL");
	zc_svc_clients_remove(cli); /* the death watcher's hook no longer sees it */
	for (uint32_t i = 0; i < cli->o.slot_count; i++)
		if (cli->calls[i].state == ZC_CALL_FAILED)
			cli->calls[i].state = ZC_CALL_FREE;
	client_free(cli); /* leaving the response topic: later responses go to nobody */
	return 0;
}

static struct zc_svc_call *free_call(zcast_client *cli)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++)
		if (cli->calls[i].state == ZC_CALL_FREE)
			return &cli->calls[i];
	return NULL;
}

int zcast_request_loan(zcast_client *cli, size_t size, zcast_msg **req)
{
	if (!cli || !req)
		return zc_err(ZCAST_EINVAL, "cli or req is NULL");
	*req = NULL;
	if (size > cli->o.request_size)
		return zc_err(ZCAST_EINVAL, "request size %zu exceeds request_size %zu", size,
			      cli->o.request_size);
	pthread_mutex_lock(&cli->mu);
	bool room = free_call(cli) != NULL;
	int r = room ? zcast_loan(cli->req_pub, size + ZCAST_SERVICE_HEADER, req) : 0;
	pthread_mutex_unlock(&cli->mu);
	if (!room)
		return zc_err(ZCAST_ENOSLOT, "service %s: %u calls pending: take their outcomes first",
			      cli->service, cli->o.slot_count);
	return r;
}

/* One try, under mu: the request publisher is one thread at a time. */
static int publish_once(zcast_client *cli, zcast_msg *req)
{
	pthread_mutex_lock(&cli->mu);
	int r = zcast_publish(cli->req_pub, req);
	pthread_mutex_unlock(&cli->mu);
	return r;
}

/* Publishes the request. Whether a server is there is the publish's own answer, under the topic
 * lock (ZCAST_ENOSERVER, the loan kept: core/publish.c, needs_rr), not a liveness probe before
 * it: a server killed and not yet reclaimed still gets the request, and its reclaim fails the
 * call (client_deaths.c). With a deadline, sleeps without mu (other threads send meanwhile) until
 * the graph word moves (no server: every join and leave bumps it) or the space word does (every
 * server queue full: a take, close or reclaim bumps it), and tries again. */
static int publish_req(zcast_client *cli, zcast_msg *req, int64_t deadline)
{
	struct zc_topic *t = &cli->req_pub->t;
	for (;;) {
		uint32_t g = atomic_load(&t->hdr->graph); /* SYNC: graph-word — zc_topic_graph_changed bumps it */
		int r = publish_once(cli, req);
		if (r == ZCAST_EAGAIN && deadline != 0) {
			/* SYNC: space; partner proto/wake.c zc_wake_space (announce, retry, sleep) */
			uint32_t v = zc_space_arm(t, cli->req_pub->index);
			r = publish_once(cli, req);
			if (r == ZCAST_EAGAIN)
				(void)zc_futex_wait(&t->hdr->space, v, deadline);
			zc_space_disarm(t, cli->req_pub->index);
		} else if (r == ZCAST_ENOSERVER && deadline != 0 &&
			   (deadline < 0 || zc_now_ns() < deadline)) {
			(void)zc_futex_wait(&t->hdr->graph, g, deadline);
		}
		if (r != ZCAST_EAGAIN && r != ZCAST_ENOSERVER)
			return r;
		if (deadline == 0 && r == ZCAST_EAGAIN)
			return r; /* the publish said which queue is full */
		if (deadline == 0)
			return zc_err(r, "service %s has no live server", cli->service);
		if (deadline >= 0 && zc_now_ns() >= deadline)
			return r == ZCAST_ENOSERVER
				   ? zc_err(ZCAST_ETIMEDOUT, "service %s: no server came", cli->service)
				   : zc_err(ZCAST_ETIMEDOUT, "service %s: no queue room in time",
					    cli->service);
	}
}

int zc_svc_send(zcast_client *cli, zcast_msg *req, int64_t deadline, bool waited, uint64_t *seq)
{
	if (!cli || !req)
		return zc_err(ZCAST_EINVAL, "cli or req is NULL");
	if (req->pub != cli->req_pub || atomic_load(&req->kind) != ZC_MSG_LOAN)
		return zc_err(ZCAST_EINVAL, "not a request loan of this client");
	pthread_mutex_lock(&cli->mu);
	struct zc_svc_call *c = free_call(cli);
	if (!c) {
		pthread_mutex_unlock(&cli->mu);
		return zc_err(ZCAST_ENOSLOT, "service %s: %u calls pending", cli->service,
			      cli->o.slot_count);
	}
	uint64_t s = ++cli->next_seq, hooks = cli->hooks_run;
	*c = (struct zc_svc_call){.state = ZC_CALL_SENDING, .seq = s, .slot = req->slot,
				  .gen = req->gen, .waited = waited};
	pthread_mutex_unlock(&cli->mu);
	zc_svc_hdr_write(req, ZC_SVC_REQUEST, cli->id, cli->nonce, s);
	int r = publish_req(cli, req, deadline);
	if (!r) {
		ZC_CRASH("svc:send:after-publish");
		ZC_PAUSE("svc:send:after-publish"); /* tests: a server answers first (svc_answered_no_marker) */
	}
	pthread_mutex_lock(&cli->mu);
	if (c->seq == s && c->state == ZC_CALL_SENDING) /* its response may be taken already */
		c->state = r ? ZC_CALL_FREE : ZC_CALL_PENDING;
	if (r) /* the loan stays the caller's: a retry needs no free slot */
		zc_svc_client_room_refused(cli, req);
	/* A hook that ran while the call was SENDING passed it by (a reclaim of its server right
	 * after the publish): check now. A hook that runs later sees it PENDING. Not on every send:
	 * a fast server has released the request of an answered call already, which would look
	 * suspect and cost a marker per call (model/service.pml, SEND_CHECK_SLOT). */
	if (!r && cli->hooks_run != hooks)
		zc_svc_client_check(cli);
	pthread_mutex_unlock(&cli->mu);
	if (!r && seq)
		*seq = s;
	return r;
}

int zcast_request_send(zcast_client *cli, zcast_msg *req, uint64_t *seq)
{
	return zc_svc_send(cli, req, 0, false, seq);
}

int zcast_request_send_wait(zcast_client *cli, zcast_msg *req, int64_t timeout_ns, uint64_t *seq)
{
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	return zc_svc_send(cli, req, deadline ? deadline : 1, false, seq);
}

int zcast_client_pending(const zcast_client *cli)
{
	if (!cli)
		return zc_err(ZCAST_EINVAL, "cli is NULL");
	int n = 0;
	pthread_mutex_lock((pthread_mutex_t *)&cli->mu);
	for (uint32_t i = 0; i < cli->o.slot_count; i++)
		n += cli->calls[i].state != ZC_CALL_FREE;
	pthread_mutex_unlock((pthread_mutex_t *)&cli->mu);
	return n;
}

int zcast_client_servers(zcast_client *cli)
{
	if (!cli)
		return zc_err(ZCAST_EINVAL, "cli is NULL");
	pthread_mutex_lock(&cli->mu); /* the request publisher is one thread at a time */
	int n = zcast_pub_matched(cli->req_pub);
	pthread_mutex_unlock(&cli->mu);
	return n;
}

uint64_t zcast_client_id(const zcast_client *cli)
{
	return cli ? cli->id : 0;
}
