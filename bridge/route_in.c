/* A route from DDS to a local zcast topic: take the CDR bytes of a sample (dds_takecdr) and write
 * them into a zcast loan behind the 4 reserved bytes of a typed message; validate; publish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

static int open_pub(struct zb_route_rt *rt)
{
	const zcast_bridge_route *r = rt->cfg;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = zb_zdomain_opt(rt->b->cfg);
	o.type_name = r->type->name;
	memcpy(o.type_hash, r->type->hash, ZCAST_TYPE_HASH_SIZE);
	o.slot_size = r->max_size + ZCAST_TYPED_HEADER_OFFSET;
	o.slot_count = r->slots;
	o.history_depth = r->history;
	int e = zcast_pub_open(r->topic, &o, &rt->pub);
	if (e < 0) {
		fprintf(stderr, "zcast-bridge: in %s: %s\n", r->topic, zcast_last_error());
		return e;
	}
	atomic_store(&rt->pub_id, zcast_pub_id(rt->pub));
	return 0;
}

struct in_ctx {
	struct zb_route_rt *rt;
	uint32_t *off, *len; /* reader slots for validation */
	int64_t resume_ts;   /* source timestamps up to this were written by an earlier holder */
};

/* Copies the sample into a loan and publishes it; reliable routes wait for room (backpressure:
 * while we wait, nothing more is taken from DDS), best-effort routes drop instead. */
static void deliver(struct in_ctx *c, const void *bytes, size_t n, int64_t ts)
{
	struct zb_route_rt *rt = c->rt;
	const zcast_bridge_route *r = rt->cfg;
	if (ts <= c->resume_ts) { /* replayed history a previous holder already delivered */
		atomic_fetch_add(&rt->skipped, 1);
		return;
	}
	if (n < ZCAST_CDR_HEADER || n > r->max_size) {
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	zcast_msg *m = NULL;
	int e;
	do
		e = r->reliable ? zcast_loan_wait(rt->pub, n + 4, 100 * 1000 * 1000, &m)
				: zcast_loan(rt->pub, n + 4, &m);
	while (r->reliable && e == ZCAST_ETIMEDOUT && !atomic_load(&rt->b->stop));
	if (e < 0) {
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	uint8_t *d = zcast_msg_data(m);
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	memcpy(d + ZCAST_TYPED_HEADER_OFFSET, bytes, n);
	d[ZCAST_TYPED_HEADER_OFFSET + 3] &= (uint8_t)~3u; /* no padding in the slot */
	zcast_cdr_reader rd;
	if (zcast_cdr_read(r->type, d + ZCAST_TYPED_HEADER_OFFSET, n, &rd, c->off, c->len) < 0) {
		static int warned;
		if (!warned++)
			fprintf(stderr, "zcast-bridge: in %s: dropping invalid samples: %s\n",
				r->topic, zcast_last_error());
		zcast_msg_drop(m);
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	do
		e = r->reliable ? zcast_publish_wait(rt->pub, m, 100 * 1000 * 1000)
				: zcast_publish(rt->pub, m);
	while (r->reliable && (e == ZCAST_ETIMEDOUT || e == ZCAST_EAGAIN) &&
	       !atomic_load(&rt->b->stop));
	if (e < 0) {
		zcast_msg_drop(m);
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	rt->claim->state->in_last_ts = ts;
	atomic_fetch_add(&rt->forwarded, 1);
}

static void run(struct in_ctx *c, dds_entity_t ws)
{
	struct zb_route_rt *rt = c->rt;
	while (!atomic_load(&rt->b->stop)) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		int n = dds_takecdr(rt->endpoint, &sd, 1, &si, DDS_ANY_STATE);
		if (n <= 0) {
			dds_waitset_wait(ws, NULL, 0, DDS_MSECS(100));
			continue;
		}
		if (si.valid_data) {
			size_t len;
			const void *bytes = zb_serdata_bytes(sd, &len);
			deliver(c, bytes, len, si.source_timestamp);
		}
		ddsi_serdata_unref(sd);
	}
}

void *zb_route_in(void *arg)
{
	struct zb_route_rt *rt = arg;
	if (zb_route_claim(rt) < 0)
		return NULL;
	struct in_ctx c = {rt, NULL, NULL, ZB_READ_ONCE(rt->claim->state->in_last_ts)};
	uint32_t nf = rt->cfg->type->n_flat ? rt->cfg->type->n_flat : 1;
	c.off = calloc(nf, sizeof *c.off);
	c.len = calloc(nf, sizeof *c.len);
	dds_entity_t ws = 0, rc = 0;
	/* the publisher first: its id must be known before anything arrives that an OUT route of
	 * the same topic could send back */
	if (!c.off || !c.len || open_pub(rt) < 0 || zb_route_dds_open(rt) < 0 ||
	    (ws = dds_create_waitset(rt->b->participant)) < 0 ||
	    (rc = dds_create_readcondition(rt->endpoint, DDS_ANY_STATE)) < 0 ||
	    dds_waitset_attach(ws, rc, 0) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
	} else {
		atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
		run(&c, ws);
	}
	free(c.off);
	free(c.len);
	return NULL;
}
