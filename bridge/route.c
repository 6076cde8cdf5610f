/* What both directions of a route share: waiting for the topic's claim, the DDS topic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int64_t zb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *zdomain(const zcast_bridge_config *c)
{
	if (c->zcast_domain[0])
		return c->zcast_domain;
	const char *e = getenv("ZCAST_DOMAIN");
	return e && *e ? e : "default";
}

int zb_route_claim(struct zb_route_rt *rt)
{
	const zcast_bridge_config *c = rt->b->cfg;
	int warned = 0;
	while (!atomic_load(&rt->b->stop)) {
		int r = zb_claim_try(rt->claim, zdomain(c), rt->cfg->topic);
		if (r == 1)
			return 0;
		if (r < 0 && !warned++)
			fprintf(stderr, "zcast-bridge: %s: cannot claim %s: %s (retrying)\n",
				rt->cfg->topic, rt->claim->path, strerror(-r));
		if (r == 0)
			atomic_store(&rt->state, ZCAST_BRIDGE_STANDBY);
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return -1;
}

const char *zb_zdomain_opt(const zcast_bridge_config *c)
{
	return c->zcast_domain[0] ? c->zcast_domain : NULL;
}

int zb_route_dds_open(struct zb_route_rt *rt, const dds_listener_t *reader_listener)
{
	const zcast_bridge_route *r = rt->cfg;
	char tname[256], yname[256];
	if (zb_dds_topic_name(r->topic, tname, sizeof tname) < 0 ||
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
	char src[ZB_SOURCE_LEN];
	zb_source_id(zdomain(rt->b->cfg), src);
	dds_qos_t *q = zb_route_qos(r, r->dir == ZCAST_BRIDGE_OUT ? src : NULL);
	if (!q)
		return -1;
	if (r->dir == ZCAST_BRIDGE_OUT)
		rt->endpoint = dds_create_writer(rt->b->participant, rt->topic, q, NULL);
	else
		rt->endpoint = dds_create_reader(rt->b->participant, rt->topic, q, reader_listener);
	dds_delete_qos(q);
	if (rt->endpoint < 0) {
		fprintf(stderr, "zcast-bridge: %s: DDS %s: %s\n", r->topic,
			r->dir == ZCAST_BRIDGE_OUT ? "writer" : "reader",
			dds_strretcode(rt->endpoint));
		return -1;
	}
	return 0;
}
