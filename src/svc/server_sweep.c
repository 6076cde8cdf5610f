/* A server lets go of the response topics of clients that are gone, promptly: after every change
 * of the request topic's members (a client closed, or was killed and reclaimed), the death
 * watcher's hook closes the server's routes to clients no longer listed on the request topic and
 * removes their response topics when nobody is left on them, also those of clients this server
 * never answered (a client killed before any answer). A live client is always a member of its
 * topic, and a topic with a live member is never removed (zcast_topic_gc), so a live client's
 * topic stays whatever the request topic's records say. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_internal.h"

/* Is a member of the request topic's publishers (a client) named by id? Shared records, each
 * field read once: a wrong answer only spares a topic, or lets gc look at one it then keeps. */
static bool client_listed(struct zc_topic *t, uint64_t id)
{
	for (uint32_t i = 0; i < t->max_pubs; i++)
		if (atomic_load(&t->pubs[i].state) != ZC_REC_FREE && ZC_READ_ONCE(t->pubs[i].id) == id)
			return true;
	return false;
}

struct orphans {
	zcast_server *srv;
	char prefix[ZC_SVC_TOPIC_MAX]; /* "<service>/_rs/c" */
};

/* A response topic whose client is not listed: removed if nobody is left on it. */
static int gc_orphan(const char *topic, void *ctx)
{
	struct orphans *o = ctx;
	size_t n = strlen(o->prefix);
	if (strncmp(topic, o->prefix, n) != 0)
		return 0;
	char *end;
	uint64_t id = strtoull(topic + n, &end, 10);
	if (end != topic + n && *end == '_' && !client_listed(&o->srv->sub->t, id))
		(void)zcast_topic_gc(o->srv->domain[0] ? o->srv->domain : NULL, topic);
	return 0;
}

static void server_changed(struct zc_svc_handle *h)
{
	zcast_server *srv = (zcast_server *)(void *)((char *)h - offsetof(zcast_server, link));
	struct zc_topic *t = &srv->sub->t;
	uint32_t g = atomic_load(&t->hdr->graph);
	if (g == srv->swept_graph)
		return; /* the request topic's members did not change */
	srv->swept_graph = g;
	pthread_mutex_lock(&srv->mu);
	for (uint32_t i = 0; i < srv->n_routes;) {
		struct zc_svc_route *rt = &srv->routes[i];
		/* A route with a response loan out stays until the loan is sent or dropped. */
		if (!client_listed(t, rt->client_id) && atomic_load(&rt->pub->refs) == 1)
			zc_svc_route_drop(srv, i);
		else
			i++;
	}
	pthread_mutex_unlock(&srv->mu);
	struct orphans o = {.srv = srv};
	snprintf(o.prefix, sizeof o.prefix, "%s/_rs/c", srv->service); /* zc_svc_response_topic */
	(void)zcast_topic_list(srv->domain[0] ? srv->domain : NULL, gc_orphan, &o);
}

void zc_svc_server_watch(zcast_server *srv)
{
	pthread_mutex_init(&srv->mu, NULL);
	srv->link.changed = server_changed;
	zc_svc_handle_add(&srv->link);
}

void zc_svc_server_unwatch(zcast_server *srv)
{
	zc_svc_handle_remove(&srv->link);
}

int zc_svc_route_loan(zcast_server *srv, uint64_t client_id, uint32_t nonce, size_t size,
		      zcast_msg **m)
{
	zcast_pub *pub;
	int r = zc_svc_route_get(srv, client_id, nonce, &pub);
	return r ? r : zcast_loan(pub, size, m);
}
