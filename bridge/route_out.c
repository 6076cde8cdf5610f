/* A route from a local zcast topic to DDS: take a typed message, hand its CDR bytes (header
 * included) to dds_forwardcdr with its source timestamp (out_resume.c). The out loop (out_loop.c)
 * takes and forwards without waiting; the pool (pool.c) waits for a route that has to.
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

/* A reliable writer never blocks in dds_forwardcdr (its max_blocking_time is 0, qos.c): without
 * room it returns DDS_RETCODE_TIMEOUT, and with `wait` the route waits here (one round) until the
 * readers acknowledged what the writer holds, as Cyclone's own throttling would have. */
static int write_sample(struct zb_route_rt *rt, struct ddsi_serdata *sd, int wait)
{
	/* dds_forwardcdr keeps our source timestamp and, like dds_writecdr, consumes one reference
	 * on every path; ours keeps the sample for the retry */
	int rc = dds_forwardcdr(rt->endpoint, ddsi_serdata_ref(sd));
	if (rc == DDS_RETCODE_TIMEOUT && wait && !atomic_load(&rt->b->stop)) {
		dds_wait_for_acks(rt->endpoint, DDS_MSECS(100));
		rc = dds_forwardcdr(rt->endpoint, ddsi_serdata_ref(sd));
	}
	return rc;
}

/* Sends one message (its zcast payload d, n bytes). ZB_WOULD_WAIT: not sent (the window or the
 * writer is full; with `wait`, still after one round of waiting): call again. */
static int forward(struct zb_route_rt *rt, uint64_t seq, int64_t time_ns, const uint8_t *d,
		   size_t n, int wait)
{
	/* a message a bridge published came from DDS: never sent back (loops end here, whichever
	 * bridge instance published it); read once, the payload is shared memory */
	uint8_t flags = n ? ZB_READ_ONCE(d[0]) : 0;
	int resend;
	int64_t ts = zb_out_stamp(rt->out, seq, time_ns, &resend);
	if ((flags & ZB_FROM_BRIDGE) || !ts) {
		atomic_fetch_add(&rt->skipped, 1);
		return ZB_DONE;
	}
	if (n >= ZCAST_TYPED_PREFIX && zb_out_window(rt, seq, wait ? 100 : 0) < 0)
		return atomic_load(&rt->b->stop) ? ZB_DONE : ZB_WOULD_WAIT;
	struct ddsi_serdata *sd = NULL;
	if (n >= ZCAST_TYPED_PREFIX)
		sd = zb_serdata_new(rt->sertype, d + ZCAST_TYPED_HEADER_OFFSET,
				    n - ZCAST_TYPED_HEADER_OFFSET);
	int rc = DDS_RETCODE_ERROR;
	if (sd) {
		sd->statusinfo = 0;
		sd->timestamp.v = ts;
		/* recorded before the write: a successor must find it (written again on a retry,
		 * with a newer timestamp: the first was not sent) */
		zb_out_record(rt, seq, time_ns, ts);
		rc = write_sample(rt, sd, wait);
		ddsi_serdata_unref(sd);
	}
	if (rc == DDS_RETCODE_TIMEOUT && !atomic_load(&rt->b->stop))
		return ZB_WOULD_WAIT;
	if (rc < 0) {
		atomic_fetch_add(&rt->dropped, 1);
		return ZB_DONE;
	}
	zb_out_written(rt, seq);
	atomic_fetch_add(resend ? &rt->resent : &rt->forwarded, 1);
	return ZB_DONE;
}

static int forward_msg(struct zb_route_rt *rt, zcast_msg *m, int wait)
{
	return forward(rt, zcast_msg_sequence(m), zcast_msg_time_ns(m), zcast_msg_data(m),
		       zcast_msg_size(m), wait);
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

void zb_route_out_hold(struct zb_route_rt *rt)
{
	zcast_msg *m;
	while (zcast_take(rt->sub, &m) == 0) {
		hold(rt, m);
		zcast_msg_drop(m);
	}
}

/* Taking over: what was held goes first (each decided on as if just taken). */
static int send_held(struct zb_route_rt *rt)
{
	struct zb_out *o = rt->out;
	for (; o->held_next < o->n_held; o->held_next++) {
		struct zb_held *h = o->held[o->held_next];
		if (forward(rt, h->seq, h->time_ns, h->bytes, h->n, 1) == ZB_WOULD_WAIT)
			return ZB_WOULD_WAIT;
		free(h);
	}
	free(o->held);
	o->held = NULL;
	o->n_held = o->held_cap = o->held_next = 0;
	return ZB_DONE;
}

int zb_route_out_forward(struct zb_route_rt *rt, int max)
{
	for (int i = 0; i < max && !atomic_load(&rt->b->stop); i++) {
		zcast_msg *m;
		int e = zcast_take(rt->sub, &m);
		if (e == ZCAST_EAGAIN)
			return ZB_DONE;
		if (e < 0) {
			fprintf(stderr, "zcast-bridge: out %s: take: %s\n", rt->cfg->topic,
				zcast_last_error());
			return ZB_DONE;
		}
		if (forward_msg(rt, m, 0) == ZB_WOULD_WAIT) {
			rt->out->stalled = m;
			return ZB_WOULD_WAIT;
		}
		zcast_msg_drop(m);
	}
	return ZB_DONE;
}

int zb_route_out_task(struct zb_route_rt *rt)
{
	struct zb_out *o = rt->out;
	if (atomic_load(&rt->b->stop))
		return 0;
	if (o->held && send_held(rt) == ZB_WOULD_WAIT)
		return 1;
	if (o->stalled) {
		if (forward_msg(rt, o->stalled, 1) == ZB_WOULD_WAIT)
			return 1;
		zcast_msg_drop(o->stalled);
		o->stalled = NULL;
	}
	zb_outloop_give_back(rt->b, rt);
	return 0;
}

int zb_route_out_open(struct zb_route_rt *rt)
{
	if (!rt->out || zb_route_claim_open(rt) < 0 || zb_route_dds_open(rt, NULL) < 0 ||
	    open_sub(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return -1;
	}
	return 0;
}
