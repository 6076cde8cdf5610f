/* zcast: one topic per channel ("/<name>") in a per-run domain. Writer = zcast_pub (loan, fill in
 * place, publish); reader = zcast_sub with FULL policy (backpressure, no loss). Event mode sleeps
 * in zcast_wait / zcast_loan_wait / zcast_publish_wait; busy-poll mode loops on the non-blocking
 * calls until they stop returning ZCAST_EAGAIN / ZCAST_ENOSLOT. try_send makes one attempt of
 * each: no free slot or no room in the FULL queue = full, the loan is dropped unpublished.
 * $ZB_ZCAST_WAITSET=1: a reader waits in a wait set of its own (zcast_waitset_wait) instead of
 * zcast_wait, as a process that waits for many subscriptions does (fan-out to wait sets). */
#include "transport.h"

#include <stdlib.h>
#include <string.h>
#include <zcast/waitset.h>
#include <zcast/zcast.h>

struct zb_chan {
	const zb_chan_params *p;
	zcast_pub *pub;
	zcast_sub *sub;
	zcast_waitset *ws; /* $ZB_ZCAST_WAITSET=1 readers */
};

static int z_prepare(zb_chan_params *p, void **shared, char *why, size_t n)
{
	*shared = NULL;
	if (p->wake != ZB_WAKE_ALL) {
		snprintf(why, n, "no --wake %s in zcast", zb_wake_names[p->wake]);
		return -1;
	}
	return 0;
}

static int z_open(const zb_chan_params *p, void *shared, int reader, zb_chan **out)
{
	(void)shared;
	char topic[64];
	snprintf(topic, sizeof topic, "/%s", p->name);
	zb_chan *c = calloc(1, sizeof *c);
	c->p = p;
	int r;
	if (reader < 0) {
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.domain = p->run_id;
		o.slot_size = p->max_size;
		o.slot_count = (uint32_t)p->depth + 4;
		r = zcast_pub_open(topic, &o, &c->pub);
	} else {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.domain = p->run_id;
		o.policy = p->drop_old ? ZCAST_POLICY_DROP_OLD : ZCAST_POLICY_FULL;
		o.queue_depth = (uint32_t)p->depth;
		o.spin_ns = (uint64_t)p->spin_ns;
		r = zcast_sub_open(topic, &o, &c->sub);
		const char *e = getenv("ZB_ZCAST_WAITSET");
		int id;
		if (!r && e && e[0] == '1' &&
		    ((r = zcast_waitset_create(&c->ws)) || (r = zcast_waitset_add_sub(c->ws, c->sub, NULL, &id))))
			zcast_sub_close(c->sub);
	}
	if (r) {
		fprintf(stderr, "zcast %s_open(%s): %s: %s\n", reader < 0 ? "pub" : "sub", topic,
		        zcast_strerror(r), zcast_last_error());
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

static int64_t left(int64_t deadline)
{
	int64_t l = deadline - zb_now();
	return l > 0 ? l : 0;
}

static int z_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	zcast_msg *m;
	int r;
	while ((r = zcast_loan(c->pub, size, &m)) == ZCAST_ENOSLOT) {
		if (zb_now() > deadline)
			return -1;
		if (!c->p->spin && (r = zcast_loan_wait(c->pub, size, left(deadline), &m)) != ZCAST_ENOSLOT)
			break;
	}
	if (r) {
		fprintf(stderr, "zcast_loan: %s: %s\n", zcast_strerror(r), zcast_last_error());
		return -1;
	}
	zb_fill(zcast_msg_data(m), size, h, mode);
	while ((r = zcast_publish(c->pub, m)) == ZCAST_EAGAIN) {
		if (zb_now() > deadline)
			break;
		if (!c->p->spin && (r = zcast_publish_wait(c->pub, m, left(deadline))) != ZCAST_EAGAIN)
			break;
	}
	if (r) {
		fprintf(stderr, "zcast_publish: %s: %s\n", zcast_strerror(r), zcast_last_error());
		zcast_msg_drop(m);
		return -1;
	}
	return 0;
}

static int z_try_send(zb_chan *c, const zb_hdr *h, size_t size, int mode)
{
	zcast_msg *m;
	int r = zcast_loan(c->pub, size, &m);
	if (r == ZCAST_ENOSLOT)
		return 1;
	if (r) {
		fprintf(stderr, "zcast_loan: %s: %s\n", zcast_strerror(r), zcast_last_error());
		return -1;
	}
	/* filled before the attempt: a zcast publish needs the finished message */
	zb_fill(zcast_msg_data(m), size, h, mode);
	r = zcast_publish(c->pub, m);
	if (r == 0)
		return 0;
	zcast_msg_drop(m);
	if (r == ZCAST_EAGAIN)
		return 1;
	fprintf(stderr, "zcast_publish: %s: %s\n", zcast_strerror(r), zcast_last_error());
	return -1;
}

static int z_recv(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	zcast_msg *m;
	int r;
	unsigned spins = 0;
	int woke = 0;
	zb_take_ns = -1;
	for (;;) {
		int64_t t0 = zb_take_begin(woke);
		r = zcast_take(c->sub, &m);
		zb_take_end(t0);
		if (r != ZCAST_EAGAIN)
			break;
		if (c->p->spin) {
			if ((++spins & 1023) == 0 && zb_now() > deadline)
				return -1;
			continue;
		}
		if (c->ws) {
			zcast_ws_event ev;
			r = zcast_waitset_wait(c->ws, left(deadline), &ev, 1);
			r = r > 0 ? 0 : r;
		} else {
			r = zcast_wait(c->sub, left(deadline));
		}
		if (r && r != ZCAST_ETIMEDOUT)
			break;
		woke = 1;
		if (zb_now() > deadline)
			return -1;
	}
	if (r) {
		fprintf(stderr, "zcast_take/wait: %s: %s\n", zcast_strerror(r), zcast_last_error());
		return -1;
	}
	zb_sink += zb_consume(zcast_msg_data(m), size, h, mode);
	zcast_msg_drop(m);
	return 0;
}

static void z_close(zb_chan *c)
{
	if (c->pub)
		zcast_pub_close(c->pub);
	zcast_waitset_destroy(c->ws);
	if (c->sub)
		zcast_sub_close(c->sub);
	free(c);
}

static void z_cleanup(zb_chan_params *p, void *shared)
{
	(void)shared;
	char topic[64];
	snprintf(topic, sizeof topic, "/%s", p->name);
	zcast_topic_remove(p->run_id, topic); /* usually gone already (not retained) */
}

const zb_system zb_sys_zcast = {"zcast", z_prepare, z_open, NULL, z_send, z_try_send, z_recv, z_close,
                                z_cleanup};
