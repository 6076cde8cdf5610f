/* A server's publishers on its clients' response topics (one per client it answers), and what a
 * closing server owes its clients: a failure for every request it took, or had queued and could
 * not hand over to another server. */
#include <stdlib.h>
#include <string.h>

#include "svc_internal.h"

/* Leaves a client's response topic; a killed client's records there are reclaimed and the topic
 * removed when nobody else is left (nobody else would: its name is never used again). */
void zc_svc_route_drop(zcast_server *srv, uint32_t i)
{
	struct zc_svc_route rt = srv->routes[i];
	srv->routes[i] = srv->routes[--srv->n_routes];
	zcast_pub_close(rt.pub);
	char topic[ZC_SVC_TOPIC_MAX];
	zc_svc_response_topic(topic, srv->service, rt.client_id, rt.nonce);
	(void)zcast_topic_gc(srv->domain[0] ? srv->domain : NULL, topic);
}

/* Does the route's client still subscribe? Probed (zcast_pub_matched: a lock probe per member)
 * only when the topic's graph word moved since the last probe that found it: a client that closes
 * or is reclaimed moves it. One killed and not reclaimed yet gets its response queued to nobody's
 * use; its reclaim (the death watcher) takes the slot back and moves the word. */
bool zc_svc_route_live(struct zc_svc_route *rt)
{
	/* SYNC: graph-word — zc_topic_graph_changed bumps it (read before the probe) */
	uint32_t g = atomic_load(&rt->pub->t.hdr->graph);
	if (g == rt->graph)
		return true;
	if (zcast_pub_matched(rt->pub) <= 0)
		return false;
	rt->graph = g;
	return true;
}

/* Opens a publisher on the client's response topic, only if the topic exists (a forged or stale
 * client id never makes one) and its client still subscribes: 0, ZCAST_ENOENT when the client is
 * gone, or the error that kept us from looking (out of descriptors or memory: the client may well
 * be there, and its call is not let go of for it). */
static int route_open(zcast_server *srv, uint64_t client_id, uint32_t nonce, uint32_t *graph,
		      zcast_pub **out)
{
	char topic[ZC_SVC_TOPIC_MAX];
	zc_svc_response_topic(topic, srv->service, client_id, nonce);
	const char *domain = srv->domain[0] ? srv->domain : NULL;
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(domain, topic, &st);
	if (r == 0 && st.subscribers == 0) /* a killed client's: reclaimed and removed */
		(void)zcast_topic_gc(domain, topic);
	if (r == ZCAST_ENOENT || (r == 0 && st.subscribers == 0))
		return ZCAST_ENOENT;
	if (r != 0)
		return r;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.domain = domain;
	po.slot_size = srv->o.response_size + ZCAST_SERVICE_HEADER;
	po.slot_count = srv->o.slot_count;
	zcast_pub *pub;
	if ((r = zcast_pub_open(topic, &po, &pub)) != 0)
		return r;
	*graph = atomic_load(&pub->t.hdr->graph); /* SYNC: graph-word (route_live) */
	int matched = zcast_pub_matched(pub);
	if (matched <= 0) { /* the client left meanwhile */
		zcast_pub_close(pub);
		return matched < 0 ? matched : ZCAST_ENOENT;
	}
	*out = pub;
	return 0;
}

int zc_svc_route_get(zcast_server *srv, uint64_t client_id, uint32_t nonce, zcast_pub **pub)
{
	for (uint32_t i = 0; i < srv->n_routes; i++) {
		struct zc_svc_route *rt = &srv->routes[i];
		if (rt->client_id != client_id || rt->nonce != nonce)
			continue;
		if (zc_svc_route_live(rt)) {
			*pub = rt->pub;
			return 0;
		}
		zc_svc_route_drop(srv, i); /* its client is gone: so is the topic once we leave */
		return ZCAST_ENOENT;
	}
	if (srv->n_routes == srv->cap_routes) {
		uint32_t cap = srv->cap_routes ? 2 * srv->cap_routes : 8;
		struct zc_svc_route *r = realloc(srv->routes, cap * sizeof *r);
		if (!r)
			return zc_err(ZCAST_ENOMEM, "service %s: out of memory", srv->service);
		srv->routes = r;
		srv->cap_routes = cap;
	}
	uint32_t graph = 0;
	int r = route_open(srv, client_id, nonce, &graph, pub);
	if (r == 0)
		srv->routes[srv->n_routes++] = (struct zc_svc_route){
		    .client_id = client_id, .nonce = nonce, .pub = *pub, .graph = graph};
	return r;
}

void zc_svc_routes_close(zcast_server *srv)
{
	while (srv->n_routes)
		zc_svc_route_drop(srv, srv->n_routes - 1);
	free(srv->routes);
	srv->routes = NULL;
	srv->cap_routes = 0;
}

int zc_svc_notify(zcast_server *srv, uint64_t client_id, uint32_t nonce, uint64_t seq,
		  uint32_t kind, uint32_t why)
{
	zcast_msg *m;
	int r = zc_svc_route_loan(srv, client_id, nonce, ZCAST_SERVICE_HEADER, &m);
	if (r)
		return r;
	zc_svc_hdr_write(m, kind, client_id, nonce, seq);
	((struct zc_svc_hdr *)(void *)m->data)->why = why; /* our loan, unpublished */
	if ((r = zcast_publish(m->pub, m)) != 0)
		zcast_msg_drop(m);
	return r == ZCAST_EAGAIN ? ZCAST_ENOSLOT : r;
}

void zc_svc_server_fail_all(zcast_server *srv)
{
	/* No new request comes; the queued ones go to other live servers with room (as at a kill). */
	zc_sub_retire(srv->sub);
	zcast_msg *m;
	while (zcast_take(srv->sub, &m) == 0) /* what nobody took: the table owns them */
		(void)zc_svc_server_adopt(srv, m);
	pthread_mutex_lock(&srv->mu);
	for (uint32_t i = 0; i < srv->n_taken; i++) {
		struct zc_svc_taken *tk = &srv->taken[i];
		/* Dropped when there is no room: the close is a membership change, so the client's
		 * hook finds the request released and settles the call (client_deaths.c). */
		(void)zc_svc_notify(srv, tk->client_id, tk->nonce, tk->seq,
				    tk->refused ? ZC_SVC_REFUSED : ZC_SVC_FAILURE, tk->refused);
		if (tk->resp) /* an unsent loan: its slot goes back when the caller drops it */
			tk->resp = NULL;
		zcast_msg_drop(tk->req);
	}
	srv->n_taken = 0;
	pthread_mutex_unlock(&srv->mu);
}
