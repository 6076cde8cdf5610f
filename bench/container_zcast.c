/* Case container, system zcast: the container's publishers, and its subscriptions in ONE wait set
 * (the doorbell: the thread sleeps on one word and is handed the ready subscriptions).
 * Subscriptions are DROP_OLD with depth 4 (keep-last, like most ROS 2 QoS): a container never
 * blocks its only thread on a slow peer. A loan that finds no free slot drops the message (counted,
 * never waits). */
#include "container.h"

#include <stdlib.h>
#include <zcast/waitset.h>
#include <zcast/zcast.h>

#define CT_DEPTH 4
#define CT_EVENTS 64

typedef struct zc_ctx {
	zcast_waitset *ws;
	zcast_pub **pubs; /* per plan topic; NULL where this container does not publish */
	zcast_sub **subs; /* per plan subscription; NULL where not this container's */
	int mode;
} zc_ctx;

static void zc_close(void *arg)
{
	zc_ctx *c = arg;
	if (c->ws)
		zcast_waitset_destroy(c->ws);
	for (int i = 0; c->subs && i < ct.plan.nsubs; i++)
		if (c->subs[i])
			zcast_sub_close(c->subs[i]);
	for (int t = 0; c->pubs && t < ct.plan.ntopics; t++)
		if (c->pubs[t])
			zcast_pub_close(c->pubs[t]);
	free(c->subs), free(c->pubs), free(c);
}

static int zc_open(zb_bench *b, int idx, void **out)
{
	const cp_plan *p = &ct.plan;
	zc_ctx *c = calloc(1, sizeof *c);
	char name[32];
	int r = 0;
	if (!c || !(c->pubs = calloc((size_t)p->ntopics, sizeof *c->pubs)) ||
	    !(c->subs = calloc((size_t)p->nsubs, sizeof *c->subs)))
		return ct_fail("out of memory"), 1;
	c->mode = b->mode;
	if ((r = zcast_waitset_create(&c->ws)))
		return ct_fail("zcast_waitset_create: %s", zcast_strerror(r)), 1;
	for (int t = 0; t < p->ntopics; t++) {
		if (p->topics[t].pub != idx)
			continue;
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.domain = b->ch[0].run_id;
		o.slot_size = p->topics[t].size;
		o.slot_count = CT_DEPTH + 4;
		ct_topic_name(name, sizeof name, t);
		if ((r = zcast_pub_open(name, &o, &c->pubs[t])))
			return ct_fail("zcast_pub_open(%s): %s: %s", name, zcast_strerror(r),
				       zcast_last_error()),
			       1;
	}
	for (int i = 0; i < p->nsubs; i++) {
		if (p->subs[i].container != idx)
			continue;
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.domain = b->ch[0].run_id;
		o.policy = ZCAST_POLICY_DROP_OLD;
		o.queue_depth = CT_DEPTH;
		int id;
		ct_topic_name(name, sizeof name, p->subs[i].topic);
		if ((r = zcast_sub_open(name, &o, &c->subs[i])) ||
		    (r = zcast_waitset_add_sub(c->ws, c->subs[i], (void *)(intptr_t)i, &id)))
			return ct_fail("zcast_sub_open/waitset_add_sub(%s): %s: %s", name,
				       zcast_strerror(r), zcast_last_error()),
			       1;
	}
	*out = c;
	return 0;
}

static int zc_publish(void *arg, int topic, const zb_hdr *h)
{
	zc_ctx *c = arg;
	zcast_msg *m;
	int r = zcast_loan(c->pubs[topic], h->size, &m);
	if (r == ZCAST_ENOSLOT)
		return 1;
	if (r)
		return ct_fail("zcast_loan (topic %d): %s", topic, zcast_strerror(r)), -1;
	zb_fill(zcast_msg_data(m), h->size, h, c->mode);
	if (!(r = zcast_publish(c->pubs[topic], m)))
		return 0;
	zcast_msg_drop(m);
	if (r == ZCAST_EAGAIN)
		return 1;
	return ct_fail("zcast_publish (topic %d): %s", topic, zcast_strerror(r)), -1;
}

static int zc_wait(void *arg, int64_t timeout_ns)
{
	zc_ctx *c = arg;
	zcast_ws_event ev[CT_EVENTS];
	int n = zcast_waitset_wait(c->ws, timeout_ns, ev, CT_EVENTS);
	if (n == ZCAST_ETIMEDOUT)
		return 0;
	if (n < 0)
		return ct_fail("zcast_waitset_wait: %s: %s", zcast_strerror(n), zcast_last_error()),
		       -1;
	for (int e = 0; e < n; e++) {
		if (ev[e].kind != ZCAST_WS_SUB)
			continue;
		int i = (int)(intptr_t)ev[e].user;
		size_t size = ct.plan.topics[ct.plan.subs[i].topic].size;
		zcast_msg *m;
		int r;
		while (!(r = zcast_take(c->subs[i], &m))) {
			int64_t t = zb_now(); /* the container has the message */
			zb_hdr h;
			zb_sink += zb_consume(zcast_msg_data(m), size, &h, c->mode);
			zcast_msg_drop(m);
			ct_received(&h, t);
		}
		if (r != ZCAST_EAGAIN)
			return ct_fail("zcast_take: %s: %s", zcast_strerror(r), zcast_last_error()),
			       -1;
	}
	return 0;
}

const ct_ops ct_zcast_ops = {zc_open, zc_publish, zc_wait, zc_close};
