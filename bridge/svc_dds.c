/* The DDS side of a service route, in rmw_cyclonedds's conventions: topics rq<name>Request and
 * rr<name>Reply of types <pkg>::srv::dds_::<Type>_Request_ / _Response_; reliable, keep all,
 * volatile endpoints whose USER_DATA says "serviceid=<id>;" (a server's reader and writer) or
 * "clientid=<id>;" (a client's), the id the same on both endpoints of one client or server, then
 * "typehash=RIHS01_<service hash>;". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "svc_internal.h"

/* "rq/add" + "Request"; "pkg/srv/Type" -> "pkg::srv::dds_::Type_Request_". */
static int names(const zcast_bridge_service *s, int request, char topic[256], char type[256])
{
	const char *name = s->dds_name[0] ? s->dds_name : s->name;
	const char *t = s->type->name, *a = strchr(t, '/'), *b = a ? strchr(a + 1, '/') : NULL;
	if (!b)
		return -1;
	int n = snprintf(topic, 256, "%s%s%s", request ? "rq" : "rr", name,
			 request ? "Request" : "Reply");
	int k = snprintf(type, 256, "%.*s::srv::dds_::%s_%s_", (int)(a - t), t, b + 1,
			 request ? "Request" : "Response");
	return n > 0 && n < 256 && k > 0 && k < 256 ? 0 : -1;
}

/* The client / service id as rmw_cyclonedds makes one: the participant's GUID prefix (12 bytes)
 * and a big-endian counter, printed in hex, dot-separated. */
static void user_data(struct zb_svc_rt *rt, char out[256])
{
	dds_guid_t g;
	memset(&g, 0, sizeof g);
	dds_get_guid(rt->b->participant, &g);
	uint32_t x = rt->index + 1;
	for (int i = 0; i < 4; i++)
		g.v[12 + i] = (uint8_t)(x >> (24 - 8 * i));
	int n = snprintf(out, 256, "%s=%2x", rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS ? "serviceid"
										: "clientid",
			 g.v[0]);
	for (int i = 1; i < 16; i++)
		n += snprintf(out + n, 256 - (size_t)n, ".%x", g.v[i]);
	char h[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(rt->cfg->type->hash, h);
	snprintf(out + n, 256 - (size_t)n, ";typehash=%s;", h);
}

static dds_qos_t *qos(struct zb_svc_rt *rt)
{
	dds_qos_t *q = dds_create_qos();
	if (!q)
		return NULL;
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT); /* never calls itself */
	dds_qset_writer_data_lifecycle(q, false);
	char ud[256];
	user_data(rt, ud);
	dds_qset_userdata(q, ud, strlen(ud));
	return q;
}

static dds_entity_t topic(struct zb_svc_rt *rt, int request, struct ddsi_sertype **st)
{
	char tname[256], yname[256];
	if (names(rt->cfg, request, tname, yname) < 0 || !(*st = zb_sertype_new(yname))) {
		fprintf(stderr, "zcast-bridge: service %s: no DDS name for %s\n", rt->cfg->name,
			rt->cfg->type->name);
		return -1;
	}
	dds_entity_t t = dds_create_topic_sertype(rt->b->participant, tname, st, NULL, NULL, NULL);
	if (t < 0)
		fprintf(stderr, "zcast-bridge: service %s: DDS topic %s: %s\n", rt->cfg->name, tname,
			dds_strretcode(t));
	return t;
}

static void on_data(dds_entity_t e, void *arg)
{
	(void)e;
	zcast_guard_trigger(((struct zb_svc_rt *)arg)->wake);
}

/* SYNC: peers-stale — the route's thread reads the matched set again (svc_peers.c refresh) */
static void on_pub_matched(dds_entity_t e, dds_publication_matched_status_t st, void *arg)
{
	(void)st;
	atomic_store(&((struct zb_svc_rt *)arg)->readers.stale, 1);
	on_data(e, arg);
}

static void on_sub_matched(dds_entity_t e, dds_subscription_matched_status_t st, void *arg)
{
	(void)st;
	atomic_store(&((struct zb_svc_rt *)arg)->writers.stale, 1);
	on_data(e, arg);
}

int zb_svc_dds_open(struct zb_svc_rt *rt)
{
	int to_dds = rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS;
	rt->rq_topic = topic(rt, 1, &rt->rq_st);
	rt->rr_topic = rt->rq_topic < 0 ? -1 : topic(rt, 0, &rt->rr_st);
	dds_qos_t *q = rt->rr_topic < 0 ? NULL : qos(rt);
	dds_listener_t *l = q ? dds_create_listener(rt) : NULL;
	if (!l) {
		dds_delete_qos(q);
		return -1;
	}
	dds_lset_data_available(l, on_data);
	dds_lset_publication_matched(l, on_pub_matched);
	dds_lset_subscription_matched(l, on_sub_matched);
	dds_entity_t pp = rt->b->participant;
	rt->reader = dds_create_reader(pp, to_dds ? rt->rq_topic : rt->rr_topic, q, l);
	rt->writer = dds_create_writer(pp, to_dds ? rt->rr_topic : rt->rq_topic, q, l);
	dds_delete_listener(l);
	dds_delete_qos(q);
	if (rt->reader < 0 || rt->writer < 0 ||
	    (!to_dds && dds_get_instance_handle(rt->writer, &rt->self) < 0)) {
		fprintf(stderr, "zcast-bridge: service %s: DDS reader or writer: %s\n", rt->cfg->name,
			dds_strretcode(rt->reader < 0 ? rt->reader : rt->writer));
		return -1;
	}
	return 0;
}

uint32_t zb_svc_matched(struct zb_svc_rt *rt)
{
	dds_publication_matched_status_t w;
	dds_subscription_matched_status_t r;
	if (rt->reader <= 0 || rt->writer <= 0 || dds_get_publication_matched_status(rt->writer, &w) ||
	    dds_get_subscription_matched_status(rt->reader, &r))
		return 0;
	if (rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS)
		return r.current_count;
	return w.current_count < r.current_count ? w.current_count : r.current_count;
}

int zb_svc_write(struct zb_svc_rt *rt, const uint8_t hdr[ZB_SVC_HDR], const uint8_t *enc, size_t n)
{
	if (n < ZCAST_CDR_HEADER)
		return -1;
	size_t need = n + ZB_SVC_HDR;
	if (need > rt->buf_cap) {
		uint8_t *b = realloc(rt->buf, need);
		if (!b)
			return -1;
		rt->buf = b, rt->buf_cap = need;
	}
	memcpy(rt->buf, enc, n); /* shared memory: copied once, the copy is what is sent */
	memmove(rt->buf + ZB_SVC_MIN, rt->buf + ZCAST_CDR_HEADER, n - ZCAST_CDR_HEADER);
	memcpy(rt->buf + ZCAST_CDR_HEADER, hdr, ZB_SVC_HDR);
	rt->buf[3] &= (uint8_t)~3u; /* the padding is ours to announce (zb_serdata_new) */
	struct ddsi_serdata *sd = zb_serdata_new(rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS ? rt->rr_st
											  : rt->rq_st,
						  rt->buf, need);
	if (!sd)
		return -1;
	sd->statusinfo = 0;
	sd->timestamp.v = dds_time();
	return dds_writecdr(rt->writer, sd) < 0 ? -1 : 0;
}
