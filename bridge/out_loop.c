/* The out loop: one thread and one zcast wait set serve every OUT route (docs/BRIDGE.md,
 * "Threads"). A subscriber with messages wakes it; it takes them and, standing by, keeps copies
 * (route_out.c), or, active, writes them to DDS without waiting. A route that would wait (DDS has
 * no room, the window of unacknowledged messages is full) or that has just been granted (what it
 * held goes first) goes to the pool: its wait set entry is disabled until the pool hands it back,
 * so the loop never takes from it meanwhile and the other routes go on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ZB_BATCH 64 /* messages of one route per turn: the others are not kept waiting */

struct zb_outloop {
	zcast_waitset *ws;
	zcast_guard *wake; /* a grant, a route handed back, the stop */
	int wake_id;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	struct zb_route_rt *back; /* handed back by the pool, under mu */
};

static void to_pool(struct zcast_bridge *b, struct zb_outloop *l, struct zb_route_rt *rt)
{
	rt->out->busy = 1;
	zcast_waitset_enable(l->ws, rt->out->ws_id, 0);
	zb_pool_submit(b, rt);
}

/* A granted route resumes (out_resume.c); the pool sends what it held. */
static void activate(struct zcast_bridge *b, struct zb_outloop *l, struct zb_route_rt *rt)
{
	if (zb_out_resume(rt) < 0) {
		fprintf(stderr, "zcast-bridge: out %s: out of memory\n", rt->cfg->topic);
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		rt->out->busy = 1; /* never served again */
		zcast_waitset_enable(l->ws, rt->out->ws_id, 0);
		return;
	}
	zb_out_acks_add(rt);
	rt->out->active = 1;
	atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
	to_pool(b, l, rt);
}

static void take_back(struct zb_outloop *l)
{
	pthread_mutex_lock(&l->mu);
	struct zb_route_rt *rt = l->back;
	l->back = NULL;
	pthread_mutex_unlock(&l->mu);
	while (rt) {
		struct zb_route_rt *next = rt->out->next_back;
		rt->out->next_back = NULL;
		rt->out->busy = 0;
		zcast_waitset_enable(l->ws, rt->out->ws_id, 1);
		rt = next;
	}
}

static void *loop_thread(void *arg)
{
	struct zcast_bridge *b = arg;
	struct zb_outloop *l = b->outloop;
	while (!atomic_load(&b->stop)) {
		zcast_ws_event ev[64];
		int n = zcast_waitset_wait(l->ws, 100 * 1000 * 1000, ev, 64);
		take_back(l);
		/* granted routes: looked for on a wake (the claim's guard) and on every timeout */
		int check = n <= 0;
		for (int i = 0; i < n; i++)
			check |= ev[i].kind == ZCAST_WS_GUARD;
		for (size_t i = 0; check && i < b->n_routes; i++) {
			struct zb_route_rt *rt = &b->routes[i];
			if (rt->cfg->dir == ZCAST_BRIDGE_OUT && rt->sub && !rt->out->active &&
			    !rt->out->busy && atomic_load(&rt->claim->granted))
				activate(b, l, rt);
		}
		for (int i = 0; i < n; i++) {
			struct zb_route_rt *rt = ev[i].user;
			if (ev[i].kind != ZCAST_WS_SUB || rt->out->busy)
				continue;
			if (!rt->out->active)
				zb_route_out_hold(rt);
			else if (zb_route_out_forward(rt, ZB_BATCH) == ZB_WOULD_WAIT) {
				to_pool(b, l, rt);
			}
		}
	}
	return NULL;
}

void zb_outloop_give_back(struct zcast_bridge *b, struct zb_route_rt *rt)
{
	struct zb_outloop *l = b->outloop;
	pthread_mutex_lock(&l->mu);
	rt->out->next_back = l->back;
	l->back = rt;
	pthread_mutex_unlock(&l->mu);
	zcast_guard_trigger(l->wake);
}

/* The wait set and its wake guard (the claims of OUT routes trigger it when granted). */
int zb_outloop_new(struct zcast_bridge *b)
{
	struct zb_outloop *l = calloc(1, sizeof *l);
	if (!l)
		return -1;
	pthread_mutex_init(&l->mu, NULL);
	b->outloop = l;
	if (zcast_waitset_create(&l->ws) < 0 || zcast_guard_create(&l->wake) < 0 ||
	    zcast_waitset_add_guard(l->ws, l->wake, NULL, &l->wake_id) < 0) {
		fprintf(stderr, "zcast-bridge: out routes' wait set: %s\n", zcast_last_error());
		return -1;
	}
	return 0;
}

/* Every OUT route's subscriber in the wait set; then the thread. */
int zb_outloop_start(struct zcast_bridge *b)
{
	struct zb_outloop *l = b->outloop;
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		if (rt->cfg->dir != ZCAST_BRIDGE_OUT || !rt->sub)
			continue;
		if (zcast_waitset_add_sub(l->ws, rt->sub, rt, &rt->out->ws_id) < 0) {
			fprintf(stderr, "zcast-bridge: out %s: wait set: %s\n", rt->cfg->topic,
				zcast_last_error());
			return -1;
		}
	}
	int e = pthread_create(&l->thread, NULL, loop_thread, b);
	l->started = e == 0;
	if (e)
		fprintf(stderr, "zcast-bridge: out loop thread: %s\n", strerror(e));
	return e ? -1 : 0;
}

/* The wake guard every claim of an OUT route triggers when granted. */
zcast_guard *zb_outloop_wake(struct zcast_bridge *b)
{
	return b->outloop ? b->outloop->wake : NULL;
}

void zb_outloop_stop(struct zcast_bridge *b)
{
	struct zb_outloop *l = b->outloop;
	if (!l)
		return;
	if (l->started) {
		zcast_guard_trigger(l->wake);
		pthread_join(l->thread, NULL);
	}
	if (l->ws)
		zcast_waitset_destroy(l->ws); /* before the guard: it must be removed first */
	if (l->wake)
		zcast_guard_destroy(l->wake);
	pthread_mutex_destroy(&l->mu);
	free(l);
	b->outloop = NULL;
}
