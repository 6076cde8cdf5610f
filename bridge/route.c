/* What both directions of a route share: waiting for the topic's claim, the DDS topic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static const char *zdomain(const zcast_bridge_config *c)
{
	if (c->zcast_domain[0])
		return c->zcast_domain;
	const char *e = getenv("ZCAST_DOMAIN");
	return e && *e ? e : "default";
}

int zb_route_claim_open(struct zb_route_rt *rt)
{
	int e = zb_claim_open(rt->claim, zdomain(rt->b->cfg), rt->cfg->topic, zb_route_wake(rt));
	if (e < 0)
		fprintf(stderr, "zcast-bridge: %s: cannot open %s: %s\n", rt->cfg->topic,
			rt->claim->path, strerror(-e));
	return e < 0 ? -1 : 0;
}

int zb_route_claim(struct zb_route_rt *rt)
{
	/* an unclaimed topic is granted in a moment: "standby" only if it is not */
	for (int i = 0; i < 20 && !atomic_load(&rt->claim->granted); i++)
		usleep(1000);
	if (!atomic_load(&rt->claim->granted))
		atomic_store(&rt->state, ZCAST_BRIDGE_STANDBY);
	return zb_claim_wait(rt->claim, &rt->b->stop);
}

const char *zb_zdomain_opt(const zcast_bridge_config *c)
{
	return c->zcast_domain[0] ? c->zcast_domain : NULL;
}

int zb_route_dds_open(struct zb_route_rt *rt, const dds_listener_t *reader_listener)
{
	const zcast_bridge_route *r = rt->cfg;
	char tname[256], yname[256];
	if (zb_dds_topic_name(r->dds_topic[0] ? r->dds_topic : r->topic, tname, sizeof tname) < 0 ||
	    zb_dds_type_name(r->type->name, yname, sizeof yname) < 0) {
		fprintf(stderr, "zcast-bridge: %s: type %s has no DDS name\n", r->topic,
			r->type->name);
		return -1;
	}
	if (!(rt->sertype = zb_sertype_new(yname)))
		return -1;
	/* Cyclone may swap in an equal sertype it already has; it owns the one it keeps */
	rt->topic =
	    dds_create_topic_sertype(rt->b->participant, tname, &rt->sertype, NULL, NULL, NULL);
	if (rt->topic < 0) {
		fprintf(stderr, "zcast-bridge: %s: DDS topic %s: %s\n", r->topic, tname,
			dds_strretcode(rt->topic));
		return -1;
	}
	dds_qos_t *q = zb_route_qos(r, r->dir == ZCAST_BRIDGE_OUT ? rt->claim->source : 0);
	if (!q)
		return -1;
	dds_entity_t ep = r->dir == ZCAST_BRIDGE_OUT
			      ? dds_create_writer(rt->b->participant, rt->topic, q, NULL)
			      : dds_create_reader(rt->b->participant, rt->topic, q, reader_listener);
	/* SYNC: zcast_bridge_stat_get, zcast_bridge_refused_get and zb_graph_publish load it
	 * (acquire) */
	__atomic_store_n(&rt->endpoint, ep, __ATOMIC_RELEASE);
	if (ep > 0)
		zb_graph_publish(rt->b);
	dds_delete_qos(q);
	if (rt->endpoint < 0) {
		fprintf(stderr, "zcast-bridge: %s: DDS %s: %s\n", r->topic,
			r->dir == ZCAST_BRIDGE_OUT ? "writer" : "reader",
			dds_strretcode(rt->endpoint));
		return -1;
	}
	return 0;
}
