/* A bridge: one DDS participant, a pool of workers for its routes (pool.c) or one thread per route
 * (`threads 0`) (docs/BRIDGE.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

static struct zb_claim *claim_for(struct zcast_bridge *b, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(b->routes[k].cfg->topic, b->routes[i].cfg->topic) == 0)
			return b->routes[k].claim;
	struct zb_claim *c = &b->claims[i];
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->granted_cv, NULL);
	c->fd = -1;
	c->sb = b->standby; /* NULL (out of memory): the claim gets a thread of its own */
	c->peers = b->peers;
	c->bridge = b;
	return c;
}

static struct zb_out *out_new(void)
{
	struct zb_out *o = calloc(1, sizeof *o);
	if (o) {
		pthread_mutex_init(&o->own_mu, NULL);
		pthread_cond_init(&o->own_cv, NULL);
		o->mu = &o->own_mu, o->cv = &o->own_cv; /* the pool points them at its group's */
	}
	return o;
}

static void out_free(struct zb_out *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n_held; i++)
		free(o->held[i]);
	free(o->held);
	free(o->resume);
	pthread_mutex_destroy(&o->own_mu);
	pthread_cond_destroy(&o->own_cv);
	free(o);
}

int zcast_bridge_start(const zcast_bridge_config *c, zcast_bridge **out, char *err, size_t errlen)
{
	struct zcast_bridge *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return ZCAST_ENOMEM;
	}
	b->cfg = c;
	pthread_mutex_init(&b->graph_mu, NULL);
	b->graph_standby = -1;
	b->cpu_latency_fd = -1;
	uint32_t domain = c->dds_domain;
	if (!c->dds_domain_set && zb_ros_domain_id(&domain, err, errlen) < 0) {
		free(b);
		return ZCAST_EINVAL;
	}
	/* asked for explicitly: a request that cannot be made stops the start (cpu_latency.c) */
	if (c->cpu_latency_us >= 0 &&
	    (b->cpu_latency_fd =
		 zb_cpu_latency_hold(c->cpu_latency_us, c->global_line[4], err, errlen)) < 0) {
		free(b);
		return ZCAST_ESYS;
	}
	/* the USER_DATA rmw_cyclonedds gives a participant (the ROS 2 graph, graph.c) */
	dds_qos_t *pq = dds_create_qos();
	if (pq)
		dds_qset_userdata(pq, "enclave=/;", strlen("enclave=/;"));
	b->domain = zb_domain_create(domain);
	b->participant = dds_create_participant(domain, pq, NULL);
	dds_delete_qos(pq);
	if (b->participant < 0) {
		snprintf(err, errlen, "DDS participant on domain %u: %s", domain,
			 dds_strretcode(b->participant));
		zb_domain_release(b->domain);
		zb_cpu_latency_release(b->cpu_latency_fd);
		free(b);
		return ZCAST_ESYS;
	}
	if (!(b->peers = zb_peers_new(b->participant))) { /* before the claims (claim_for) */
		snprintf(err, errlen, "out of memory");
		dds_delete(b->participant);
		zb_domain_release(b->domain);
		zb_cpu_latency_release(b->cpu_latency_fd);
		free(b);
		return ZCAST_ENOMEM;
	}
	b->standby = zb_standby_new();
	int pooled = zb_pool_threads(c) > 0;
	for (size_t i = 0; i < c->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		rt->cfg = &c->routes[i];
		rt->b = b;
		rt->claim = claim_for(b, i);
		pthread_mutex_init(&rt->mu, NULL);
		pthread_cond_init(&rt->cv, NULL);
		if ((!pooled && zcast_guard_create(&rt->wake) < 0) ||
		    (rt->cfg->dir == ZCAST_BRIDGE_OUT && !(rt->out = out_new()))) {
			snprintf(err, errlen, "out of memory");
			b->n_routes = i + 1;
			zcast_bridge_stop(b);
			return ZCAST_ENOMEM;
		}
	}
	b->n_routes = c->n_routes;
	if (zb_graph_open(b) < 0) {
		snprintf(err, errlen, "DDS writer of ros_discovery_info");
		zcast_bridge_stop(b);
		return ZCAST_ESYS;
	}
	if (zb_peers_start(b->peers, b->graph_sertype) < 0) { /* before any claim is granted */
		snprintf(err, errlen, "DDS participant discovery");
		zcast_bridge_stop(b);
		return ZCAST_ESYS;
	}
	if (pooled) {
		int e = zb_pool_start(b, err, errlen);
		if (e < 0) {
			zcast_bridge_stop(b);
			return e;
		}
	}
	for (size_t i = 0; i < b->n_routes && !pooled; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		int e = pthread_create(
		    &rt->thread, NULL,
		    rt->cfg->dir == ZCAST_BRIDGE_OUT ? zb_route_out : zb_route_in, rt);
		if (e) {
			snprintf(err, errlen, "thread for line %d: %s", rt->cfg->line, strerror(e));
			zcast_bridge_stop(b);
			return ZCAST_ESYS;
		}
		rt->started = 1;
	}
	int e = zb_svcs_start(b, err, errlen); /* svc_route.c */
	if (e < 0) {
		zcast_bridge_stop(b);
		return e;
	}
	*out = b;
	return 0;
}

int zcast_bridge_stat_get(zcast_bridge *b, size_t route, zcast_bridge_stat *st)
{
	if (route >= b->n_routes)
		return ZCAST_EINVAL;
	struct zb_route_rt *rt = &b->routes[route];
	st->state = atomic_load(&rt->state);
	st->forwarded = atomic_load(&rt->forwarded);
	st->skipped = atomic_load(&rt->skipped);
	st->dropped = atomic_load(&rt->dropped);
	st->resent = atomic_load(&rt->resent);
	st->matched = 0;
	/* a standby's endpoints are open and matched too (the route thread sets endpoint once) */
	dds_entity_t ep = __atomic_load_n(&rt->endpoint, __ATOMIC_ACQUIRE);
	if (ep > 0 && rt->cfg->dir == ZCAST_BRIDGE_OUT) {
		dds_publication_matched_status_t m;
		if (dds_get_publication_matched_status(ep, &m) == 0)
			st->matched = m.current_count;
	} else if (ep > 0) {
		dds_subscription_matched_status_t m;
		if (dds_get_subscription_matched_status(ep, &m) == 0)
			st->matched = m.current_count;
	}
	return 0;
}

int zcast_bridge_refused_get(zcast_bridge *b, size_t route, uint32_t *count, uint32_t *policy)
{
	if (route >= b->n_routes)
		return ZCAST_EINVAL;
	struct zb_route_rt *rt = &b->routes[route];
	*count = *policy = 0;
	/* SYNC: partner the release store in zb_route_dds_open (route.c) */
	dds_entity_t ep = __atomic_load_n(&rt->endpoint, __ATOMIC_ACQUIRE);
	if (ep > 0 && rt->cfg->dir == ZCAST_BRIDGE_OUT) {
		dds_offered_incompatible_qos_status_t q;
		if (dds_get_offered_incompatible_qos_status(ep, &q) == 0)
			*count = q.total_count, *policy = q.last_policy_id;
	} else if (ep > 0) {
		/* the route's reader only: the catch-up reader refuses volatile writers */
		dds_requested_incompatible_qos_status_t q;
		if (dds_get_requested_incompatible_qos_status(ep, &q) == 0)
			*count = q.total_count, *policy = q.last_policy_id;
	}
	return 0;
}

void zcast_bridge_stop(zcast_bridge *b)
{
	atomic_store(&b->stop, 1);
	if (b->peers)
		zb_peers_kick(b->peers); /* an IN route waiting for its claim's announcement */
	for (size_t i = 0; i < b->n_routes; i++) {
		if (b->routes[i].wake)
			zcast_guard_trigger(b->routes[i].wake);
		if (b->routes[i].claim)
			zb_claim_kick(b->routes[i].claim);
	}
	for (size_t i = 0; i < b->n_routes; i++)
		if (b->routes[i].started)
			pthread_join(b->routes[i].thread, NULL);
	zb_pool_stop(b); /* pool.c: its workers and ack threads, if any */
	zb_standby_free(b->standby); /* its watchers grant claims, which triggers the routes' guards */
	zb_svcs_stop(b); /* svc_route.c: its threads, endpoints and zcast handles */
	zb_peers_stop(b->peers); /* peers.c: its thread waits on the participant's entities */
	/* DDS first: a reader must not deliver into a publisher that is gone */
	dds_delete(b->participant);
	zb_domain_release(b->domain);
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		if (rt->pending)
			ddsi_serdata_unref(rt->pending);
		zb_sources_free(rt->sources);
		free(rt->in_off);
		free(rt->in_len);
		pthread_mutex_destroy(&rt->mu);
		pthread_cond_destroy(&rt->cv);
		if (rt->sub)
			zcast_sub_close(rt->sub);
		if (rt->pub)
			zcast_pub_close(rt->pub);
		out_free(rt->out);
		if (rt->wake)
			zcast_guard_destroy(rt->wake);
	}
	for (size_t i = 0; i < b->n_routes; i++) { /* after every route of the claim closed */
		struct zb_route_rt *rt = &b->routes[i];
		if (rt->claim == &b->claims[i]) {
			zb_claim_release(rt->claim);
			pthread_mutex_destroy(&rt->claim->lock);
			pthread_cond_destroy(&rt->claim->granted_cv);
		}
	}
	zb_pool_free(b);
	zb_peers_free(b->peers); /* after the claims: a granted waiter announces through it */
	pthread_mutex_destroy(&b->graph_mu);
	zb_cpu_latency_release(b->cpu_latency_fd); /* the last: nothing of ours runs any more */
	free(b);
}
