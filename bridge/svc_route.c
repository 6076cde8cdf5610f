/* Service routes (docs/BRIDGE.md "Services"): one thread each, started after the topic routes. A
 * thread owns its zcast client or server and its DDS endpoints; DDS listeners only wake it. What
 * both directions share: refusing input (counted, each kind reported once per route), the request
 * header of a received sample, and a received message written into a zcast loan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "svc_internal.h"

int64_t zb_svc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void warn_once(struct zb_svc_rt *rt, unsigned kind, const char *verb, const char *what,
		      const char *why)
{
	if (!(atomic_fetch_or(&rt->warned, kind) & kind))
		fprintf(stderr, "zcast-bridge: service %s: %s %s%s%s\n", rt->cfg->name, verb, what,
			*why ? ": " : "", why);
}

void zb_svc_drop(struct zb_svc_rt *rt, unsigned kind, const char *what, const char *why)
{
	atomic_fetch_add(&rt->n_dropped, 1);
	warn_once(rt, kind, "dropping", what, why);
}

void zb_svc_fail(struct zb_svc_rt *rt, unsigned kind, const char *what, const char *why)
{
	atomic_fetch_add(&rt->n_failed, 1);
	warn_once(rt, kind, "failing", what, why);
}

static void get8(uint8_t out[8], const uint8_t *in, int big_endian)
{
	for (int i = 0; i < 8; i++)
		out[i] = in[big_endian ? 7 - i : i];
}

int zb_svc_header(struct zb_svc_rt *rt, const uint8_t *b, size_t n, uint8_t hdr[ZB_SVC_HDR],
		  const char *what)
{
	/* plain CDR only: CDR_BE (0x0000) or CDR_LE (0x0001), as rmw_cyclonedds writes and reads */
	if (n < ZB_SVC_MIN || b[0] != 0 || b[1] > 1) {
		char why[64];
		snprintf(why, sizeof why, "%zu bytes, encapsulation %02x%02x", n, n ? b[0] : 0,
			 n > 1 ? b[1] : 0);
		zb_svc_drop(rt, ZB_SVC_WARN_MALFORMED, what, why);
		return -1;
	}
	get8(hdr, b + ZCAST_CDR_HEADER, b[1] == 0);
	get8(hdr + 8, b + ZCAST_CDR_HEADER + 8, b[1] == 0);
	return 0;
}

/* A big-endian message rewritten in place into little endian (normalize.c). */
static int fill_big_endian(struct zb_svc_rt *rt, const zcast_cdr_type *t, uint8_t *d, size_t cap,
			   size_t *body)
{
	uint8_t *norm;
	size_t nn;
	if (zb_normalize(t, d, ZCAST_CDR_HEADER + *body, &norm, &nn) < 0) {
		snprintf(rt->why, sizeof rt->why, "big-endian CDR not of type %s", t->name);
		return -1;
	}
	if (nn > cap) {
		free(norm);
		snprintf(rt->why, sizeof rt->why, "more than max_size=%zu", rt->cfg->max_size);
		return -1;
	}
	memcpy(d, norm, nn);
	free(norm);
	*body = nn - ZCAST_CDR_HEADER;
	return 0;
}

int zb_svc_fill(struct zb_svc_rt *rt, const zcast_cdr_type *t, zcast_msg *m, const uint8_t *b,
		size_t n)
{
	uint8_t *d = zcast_service_data(m);
	size_t cap = zcast_service_capacity(m), body = n - ZB_SVC_MIN;
	if (!d || ZCAST_TYPED_PREFIX + body > cap) {
		snprintf(rt->why, sizeof rt->why, "%zu bytes, more than max_size=%zu", n - ZB_SVC_HDR,
			 rt->cfg->max_size);
		return -1;
	}
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	memcpy(d + ZCAST_TYPED_HEADER_OFFSET, b, ZCAST_CDR_HEADER);
	memcpy(d + ZCAST_TYPED_PREFIX, b + ZB_SVC_MIN, body);
	d[ZCAST_TYPED_HEADER_OFFSET + 3] &= (uint8_t)~3u; /* no padding in the slot */
	if (b[1] == 0 && fill_big_endian(rt, t, d + ZCAST_TYPED_HEADER_OFFSET,
					  cap - ZCAST_TYPED_HEADER_OFFSET, &body) < 0)
		return -1;
	zcast_cdr_reader rd;
	if (zcast_cdr_read(t, d + ZCAST_TYPED_HEADER_OFFSET, ZCAST_CDR_HEADER + body, &rd, rt->off,
			   rt->len) < 0) {
		snprintf(rt->why, sizeof rt->why, "%s", zcast_last_error());
		return -1;
	}
	/* stored at its CDR size: rmw_cyclonedds pads to 4 without saying so in the options */
	return zcast_service_resize(m, ZCAST_TYPED_PREFIX + rd.end) < 0 ? -1 : 0;
}

void zb_svc_opts(const struct zb_svc_rt *rt, zcast_service_opts *o)
{
	zcast_service_opts_init(o);
	o->domain = zb_zdomain_opt(rt->b->cfg);
	o->type_name = rt->cfg->type->name;
	memcpy(o->type_hash, rt->cfg->type->hash, ZCAST_TYPE_HASH_SIZE);
}

int zb_svc_activate(struct zb_svc_rt *rt, int zcast_open)
{
	if (!zcast_open || zb_svc_dds_open(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return -1;
	}
	/* SYNC: the endpoints are set before ACTIVE (zcast_bridge_service_stat_get) */
	atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
	return 0;
}

int zb_svc_watch(struct zb_svc_rt *rt)
{
	int r = rt->srv ? zcast_waitset_add_server(rt->ws, rt->srv, NULL, &rt->ws_zcast)
			: zcast_waitset_add_client(rt->ws, rt->cli, NULL, &rt->ws_zcast);
	if (r == 0)
		r = rt->srv ? zcast_waitset_add_server_room(rt->ws, rt->srv, NULL, &rt->ws_room)
			    : zcast_waitset_add_client_room(rt->ws, rt->cli, NULL, &rt->ws_room);
	if (r == 0) /* level-triggered: watched only while something waits for room */
		r = zcast_waitset_enable(rt->ws, rt->ws_room, 0);
	if (r < 0)
		fprintf(stderr, "zcast-bridge: service %s: wait set: %s\n", rt->cfg->name,
			zcast_last_error());
	return r < 0 ? -1 : 0;
}

void zb_svc_wait(struct zb_svc_rt *rt, int zcast, int room, int timeout_ms)
{
	zcast_ws_event ev[4];
	zcast_waitset_enable(rt->ws, rt->ws_zcast, zcast);
	zcast_waitset_enable(rt->ws, rt->ws_room, room);
	/* whatever woke it, the route's loop looks at everything again */
	(void)zcast_waitset_wait(rt->ws, (int64_t)timeout_ms * 1000000, ev, 4);
}

static int rt_init(struct zb_svc_rt *rt, struct zcast_bridge *b, size_t i)
{
	rt->cfg = &b->cfg->services[i];
	rt->b = b;
	rt->index = (uint32_t)i;
	int wake_id;
	if (zcast_guard_create(&rt->wake) < 0 || zcast_waitset_create(&rt->ws) < 0 ||
	    zcast_waitset_add_guard(rt->ws, rt->wake, NULL, &wake_id) < 0)
		return -1;
	const zcast_service_type *t = rt->cfg->type;
	uint32_t nf = t->request->n_flat > t->response->n_flat ? t->request->n_flat
								: t->response->n_flat;
	rt->off = calloc(nf ? nf : 1, sizeof *rt->off);
	rt->len = calloc(nf ? nf : 1, sizeof *rt->len);
	int to_dds = rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS;
	rt->cap_calls = rt->cfg->pending * (to_dds ? 1 : 1 + ZB_SVC_KEPT);
	rt->calls = calloc(rt->cap_calls, sizeof *rt->calls);
	rt->parked = to_dds ? calloc(rt->cfg->parked, sizeof *rt->parked) : NULL;
	atomic_store(&rt->writers.stale, 1); /* read at the first look-up */
	atomic_store(&rt->readers.stale, 1);
	int ok = rt->off && rt->len && rt->calls && (!to_dds || rt->parked);
	return ok ? 0 : -1;
}

int zb_svcs_start(struct zcast_bridge *b, char *err, size_t errlen)
{
	size_t n = b->cfg->n_services;
	if (!n)
		return 0;
	if (!(b->svcs = calloc(n, sizeof *b->svcs))) {
		snprintf(err, errlen, "out of memory");
		return ZCAST_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct zb_svc_rt *rt = &b->svcs[i];
		if (rt_init(rt, b, i) < 0) {
			snprintf(err, errlen, "service %s: out of memory", b->cfg->services[i].name);
			return ZCAST_ENOMEM;
		}
		int e = pthread_create(&rt->thread, NULL,
				       rt->cfg->dir == ZCAST_BRIDGE_SVC_TO_DDS ? zb_svc_to_dds
									      : zb_svc_from_dds,
				       rt);
		if (e) {
			snprintf(err, errlen, "thread for line %d: %s", rt->cfg->line, strerror(e));
			return ZCAST_ESYS;
		}
		rt->started = 1;
	}
	return 0;
}

/* After the threads: b->stop is set (zcast_bridge_stop) and each thread is woken. */
void zb_svcs_stop(struct zcast_bridge *b)
{
	for (size_t i = 0; b->svcs && i < b->cfg->n_services; i++) {
		struct zb_svc_rt *rt = &b->svcs[i];
		if (!rt->cfg) /* a start that failed before it */
			continue;
		if (rt->wake)
			zcast_guard_trigger(rt->wake);
		if (rt->started)
			pthread_join(rt->thread, NULL);
		/* the endpoints first: their listeners use rt */
		if (rt->reader > 0)
			dds_delete(rt->reader);
		if (rt->writer > 0)
			dds_delete(rt->writer);
		for (uint32_t k = 0; k < rt->cap_calls && rt->calls; k++)
			if (rt->calls[k].used && rt->calls[k].req)
				zcast_msg_drop(rt->calls[k].req), free(rt->calls[k].reply);
		zcast_waitset_destroy(rt->ws); /* it borrows the client or server */
		if (rt->cli)
			zcast_client_close(rt->cli);
		if (rt->srv) /* fails the requests it still holds: their callers get ZCAST_ESRVGONE */
			zcast_server_close(rt->srv);
		if (rt->wake)
			zcast_guard_destroy(rt->wake);
		free(rt->off), free(rt->len), free(rt->calls), free(rt->buf);
		zb_svc_parked_free(rt);
		zb_svc_peers_free(&rt->writers), zb_svc_peers_free(&rt->readers);
	}
	free(b->svcs);
	b->svcs = NULL;
}

int zcast_bridge_service_stat_get(zcast_bridge *b, size_t i, zcast_bridge_service_stat *st)
{
	if (!b->svcs || i >= b->cfg->n_services)
		return ZCAST_EINVAL;
	struct zb_svc_rt *rt = &b->svcs[i];
	st->state = atomic_load(&rt->state);
	st->calls = atomic_load(&rt->n_sent);
	st->answered = atomic_load(&rt->n_answered);
	st->failed = atomic_load(&rt->n_failed);
	st->dropped = atomic_load(&rt->n_dropped);
	/* SYNC: ACTIVE is stored (seq_cst) after the endpoints are set (zb_svc_activate) */
	st->matched = st->state == ZCAST_BRIDGE_ACTIVE ? zb_svc_matched(rt) : 0;
	return 0;
}
