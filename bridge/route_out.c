/* A route from a local zcast topic to DDS: take a typed message, hand its CDR bytes (header
 * included) to dds_forwardcdr with its source timestamp (out_resume.c).
 *
 * The route's writer and subscriber are open from the start, also while another bridge holds the
 * topic: the writer is then already matched by the remote readers when this bridge takes over, and
 * the subscriber has received everything the holder may still owe them. Standing by, the route
 * keeps a copy of what it takes until the holder's readers acknowledged it; taking over, it sends
 * what the holder did not see acknowledged and goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

#define ZB_HELD_MAX 65536 /* messages kept while standing by (the oldest go beyond) */

struct zb_held {
	uint64_t seq;
	int64_t time_ns;
	size_t n;
	unsigned char bytes[]; /* the zcast payload: reserved bytes, CDR header, CDR */
};

/* Opens the route's subscriber: FULL or DROP_OLD as the QoS says, with the history if any. */
static int open_sub(struct zb_route_rt *rt)
{
	const zcast_bridge_route *r = rt->cfg;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = zb_zdomain_opt(rt->b->cfg);
	zcast_typed_sub_opts(&o, r->type);
	o.policy = r->reliable ? ZCAST_POLICY_FULL : ZCAST_POLICY_DROP_OLD;
	/* The queue holds the history at join (a subscriber cannot ask for more than its depth). */
	o.queue_depth = r->depth > r->history ? r->depth : r->history;
	o.history = r->history;
	int e = zcast_sub_open(r->topic, &o, &rt->sub);
	if (e < 0)
		fprintf(stderr, "zcast-bridge: out %s: %s\n", r->topic, zcast_last_error());
	return e;
}

/* The copy about to be sent is a message of the route's type: the payload was the publisher's
 * shared memory, and a zcast subscriber's read checks the same. The first failure per route is
 * reported. */
static int valid_copy(struct zb_route_rt *rt, struct ddsi_serdata *sd)
{
	size_t n;
	const unsigned char *b = zb_serdata_bytes(sd, &n);
	zcast_cdr_reader rd;
	/* with the padding zb_serdata_new added and announced in the options */
	if (zcast_cdr_read(rt->cfg->type, b, n + (b[3] & 3u), &rd, rt->in_off, rt->in_len) == 0)
		return 1;
	if (!(atomic_fetch_or(&rt->warned, 1u) & 1u))
		fprintf(stderr, "zcast-bridge: out %s: dropping messages that are not a %s: %s\n",
			rt->cfg->topic, rt->cfg->type->name, zcast_last_error());
	return 0;
}

/* Sends one message (its zcast payload d, n bytes). */
static void forward(struct zb_route_rt *rt, uint64_t seq, int64_t time_ns, const uint8_t *d,
		    size_t n)
{
	/* a message a bridge published came from DDS: never sent back (loops end here, whichever
	 * bridge instance published it); read once, the payload is shared memory */
	uint8_t flags = n ? ZB_READ_ONCE(d[0]) : 0;
	int resend;
	int64_t ts = zb_out_stamp(rt->out, seq, time_ns, &resend);
	if ((flags & ZB_FROM_BRIDGE) || !ts) {
		atomic_fetch_add(&rt->skipped, 1);
		return;
	}
	struct ddsi_serdata *sd = NULL;
	if (n >= ZCAST_TYPED_PREFIX && zb_out_window(rt, seq) == 0)
		sd = zb_serdata_new(rt->sertype, d + ZCAST_TYPED_HEADER_OFFSET,
				    n - ZCAST_TYPED_HEADER_OFFSET);
	if (sd && !valid_copy(rt, sd)) {
		ddsi_serdata_unref(sd);
		sd = NULL; /* dropped, as a message too short to hold a header */
	}
	/* dds_forwardcdr keeps our source timestamp and, like dds_writecdr, consumes one reference
	 * on every path; ours keeps the sample for a retry when a reliable writer had no room for a
	 * second (the bound lets a stop end the wait) */
	int rc = DDS_RETCODE_ERROR;
	if (sd) {
		sd->statusinfo = 0;
		sd->timestamp.v = ts;
		zb_out_record(rt, seq, time_ns, ts);
		do
			rc = dds_forwardcdr(rt->endpoint, ddsi_serdata_ref(sd));
		while (rc == DDS_RETCODE_TIMEOUT && !atomic_load(&rt->b->stop));
		ddsi_serdata_unref(sd);
	}
	if (rc < 0) {
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	zb_out_written(rt, seq);
	atomic_fetch_add(resend ? &rt->resent : &rt->forwarded, 1);
}

static void forward_msg(struct zb_route_rt *rt, zcast_msg *m)
{
	forward(rt, zcast_msg_sequence(m), zcast_msg_time_ns(m), zcast_msg_data(m),
		zcast_msg_size(m));
}

/* Standing by: keeps a copy of each message until the holder's readers acknowledged it. */
static void hold(struct zb_route_rt *rt, zcast_msg *m)
{
	struct zb_out *o = rt->out;
	uint64_t acked = ZB_READ_ONCE(rt->claim->state->out_acked);
	size_t keep = 0;
	for (size_t i = 0; i < o->n_held; i++)
		if (o->held[i]->seq <= acked)
			free(o->held[i]);
		else
			o->held[keep++] = o->held[i];
	o->n_held = keep;
	if (o->n_held == ZB_HELD_MAX) { /* the holder is far behind: the oldest go */
		free(o->held[0]);
		memmove(o->held, o->held + 1, --o->n_held * sizeof *o->held);
		atomic_fetch_add(&rt->dropped, 1);
	}
	if (o->n_held == o->held_cap) {
		size_t cap = o->held_cap ? 2 * o->held_cap : 64;
		struct zb_held **h = realloc(o->held, cap * sizeof *h);
		if (!h)
			return;
		o->held = h, o->held_cap = cap;
	}
	size_t n = zcast_msg_size(m);
	struct zb_held *h = malloc(sizeof *h + n);
	if (!h)
		return;
	h->seq = zcast_msg_sequence(m);
	h->time_ns = zcast_msg_time_ns(m);
	h->n = n;
	memcpy(h->bytes, zcast_msg_data(m), n);
	o->held[o->n_held++] = h;
}

/* Until the claim is granted (or the bridge stops): take and hold. 0 granted, -1 stopping. */
static int stand_by(struct zb_route_rt *rt)
{
	zcast_waitset *ws = NULL;
	int sub_id, wake_id;
	if (zcast_waitset_create(&ws) < 0 || zcast_waitset_add_sub(ws, rt->sub, NULL, &sub_id) < 0 ||
	    zcast_waitset_add_guard(ws, rt->wake, NULL, &wake_id) < 0) {
		/* without it the subscriber would hold back the publishers: none while standing by */
		fprintf(stderr, "zcast-bridge: out %s: standby wait set: %s\n", rt->cfg->topic,
			zcast_last_error());
		if (ws)
			zcast_waitset_destroy(ws);
		zcast_sub_close(rt->sub);
		rt->sub = NULL;
		if (zb_route_claim(rt) < 0 || open_sub(rt) < 0)
			return -1;
		return 0;
	}
	int granted = 0, rounds = 0;
	while (!atomic_load(&rt->b->stop) && !(granted = atomic_load(&rt->claim->granted))) {
		if (rounds++) /* not at once: an unclaimed topic is granted in a moment */
			atomic_store(&rt->state, ZCAST_BRIDGE_STANDBY);
		zcast_ws_event ev[2];
		zcast_waitset_wait(ws, 100 * 1000 * 1000, ev, 2);
		zcast_msg *m;
		while (zcast_take(rt->sub, &m) == 0) {
			hold(rt, m);
			zcast_msg_drop(m);
		}
	}
	zcast_waitset_destroy(ws);
	return granted ? 0 : -1;
}

/* Taking over: what was held goes first (each decided on as if just taken). */
static void send_held(struct zb_route_rt *rt)
{
	struct zb_out *o = rt->out;
	for (size_t i = 0; i < o->n_held; i++) {
		struct zb_held *h = o->held[i];
		forward(rt, h->seq, h->time_ns, h->bytes, h->n);
		free(h);
	}
	free(o->held);
	o->held = NULL;
	o->n_held = o->held_cap = 0;
}

static void run(struct zb_route_rt *rt)
{
	while (!atomic_load(&rt->b->stop)) {
		zcast_msg *m;
		int e = zcast_take(rt->sub, &m);
		if (e == ZCAST_EAGAIN) {
			zcast_wait(rt->sub, 100 * 1000 * 1000);
			continue;
		}
		if (e < 0) {
			fprintf(stderr, "zcast-bridge: out %s: take: %s\n", rt->cfg->topic,
				zcast_last_error());
			zcast_wait(rt->sub, 100 * 1000 * 1000);
			continue;
		}
		forward_msg(rt, m);
		zcast_msg_drop(m);
	}
}

int zb_out_open(struct zb_route_rt *rt)
{
	uint32_t nf = rt->cfg->type->n_flat ? rt->cfg->type->n_flat : 1;
	rt->in_off = calloc(nf, sizeof *rt->in_off); /* valid_copy's reader slots */
	rt->in_len = calloc(nf, sizeof *rt->in_len);
	if (!rt->in_off || !rt->in_len || !rt->out || zb_route_claim_open(rt) < 0 ||
	    zb_route_dds_open(rt, NULL) < 0 || open_sub(rt) < 0)
		return -1;
	return 0;
}

void zb_out_hold_queued(struct zb_route_rt *rt)
{
	zcast_msg *m;
	while (zcast_take(rt->sub, &m) == 0) {
		hold(rt, m);
		zcast_msg_drop(m);
	}
}

int zb_out_take_over(struct zb_route_rt *rt)
{
	if (zb_out_resume(rt) < 0 || zb_out_acks_start(rt) < 0)
		return -1;
	send_held(rt);
	return 0;
}

int zb_out_forward_one(struct zb_route_rt *rt)
{
	zcast_msg *m;
	int e = zcast_take(rt->sub, &m);
	if (e == ZCAST_EAGAIN)
		return 0;
	if (e < 0) {
		fprintf(stderr, "zcast-bridge: out %s: take: %s\n", rt->cfg->topic,
			zcast_last_error());
		return 0;
	}
	forward_msg(rt, m);
	zcast_msg_drop(m);
	return 1;
}

void *zb_route_out(void *arg)
{
	struct zb_route_rt *rt = arg;
	if (zb_out_open(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return NULL;
	}
	if (stand_by(rt) < 0)
		return NULL;
	atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
	if (zb_out_take_over(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return NULL;
	}
	run(rt);
	zb_out_acks_stop(rt);
	return NULL;
}
