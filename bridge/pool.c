/* The pool (docs/BRIDGE.md, "Threads"): `threads N` workers serve every route, whatever their
 * number, where a thread per route would need one (or two) per line.
 *
 * A worker owns a group of routes and one zcast wait set: the subscribers of its OUT routes, the
 * "room again" entries of its IN routes (enabled only while a route waits for room) and one guard,
 * which the claim files' waiters trigger when a topic is granted and the DDS listener triggers when
 * an IN route has to wait (route_in.c). The worker never sleeps anywhere else: it takes one message
 * per ready subscriber per round (the wait set's scan starts after the last entry it reported, so a
 * busy route does not starve the others of its group) and delivers IN samples without waiting. The
 * one blocking call left is a reliable DDS write that finds no room (max_blocking_time, qos.c): a
 * route of large messages therefore gets a worker of its own when there are workers enough, so
 * that its writes do not hold small messages up (the one out loop of an earlier design was 4x
 * slower at p50 for that reason, docs/BENCHMARKS.md).
 *
 * Each group also has an acknowledgment thread (out_acks.c records what the DDS readers
 * acknowledged; Cyclone can wait for one writer's acknowledgments only): it waits on the group's
 * condition variable until a route wrote something unacknowledged, then in dds_wait_for_acks, for
 * 100 ms when one route is unacknowledged, 5 ms per route in turn when several are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* An OUT route whose messages may be larger than this (max_size) is "large": it shares a worker
 * with large routes only. The default max_size (64K) is small. */
#define ZB_LARGE (64 * 1024)
#define ZB_STANDBY_NS (20 * 1000 * 1000) /* not granted by then: "standby" (as zb_route_claim) */
#define ZB_SWEEP_NS (100 * 1000 * 1000)	 /* IN routes drained this often (nothing relies on it) */

struct zb_group {
	struct zcast_bridge *b;
	struct zb_route_rt **routes;
	size_t n_routes;
	zcast_guard *wake; /* stop, a claim granted, an IN route handed over by its listener */
	zcast_waitset *ws; /* the worker's only */
	pthread_t worker, acker;
	int worker_started, acker_started;
	pthread_mutex_t mu; /* the OUT routes' written / acked (their zb_out mu and cv) */
	pthread_cond_t cv;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t topic_routes(const zcast_bridge_config *c)
{
	const zcast_bridge_route *r;
	return zcast_bridge_config_routes(c, &r);
}

size_t zb_pool_threads(const zcast_bridge_config *c)
{
	size_t n = topic_routes(c);
	size_t k = c->threads >= 0 ? (size_t)c->threads : ZB_THREADS_DEFAULT;
	return k < n ? k : n;
}

zcast_guard *zb_route_wake(struct zb_route_rt *rt)
{
	return rt->group ? rt->group->wake : rt->wake;
}

void zb_pool_wake(struct zb_route_rt *rt)
{
	zcast_guard_trigger(rt->group->wake);
}

static void set_failed(struct zb_group *g, struct zb_route_rt *rt)
{
	atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
	if (rt->opened && rt->ws_id >= 0)
		zcast_waitset_enable(g->ws, rt->ws_id, 0); /* a level-triggered entry would spin */
}

/* At start: the claim files, and the OUT routes' writers and subscribers (standing by until
 * granted, as a route thread does). IN routes open when granted (step). */
static void open_routes(struct zb_group *g)
{
	for (size_t i = 0; i < g->n_routes && !atomic_load(&g->b->stop); i++) {
		struct zb_route_rt *rt = g->routes[i];
		rt->ws_id = -1;
		if (rt->cfg->dir == ZCAST_BRIDGE_IN) {
			if (zb_route_claim_open(rt) < 0)
				set_failed(g, rt);
			continue;
		}
		if (zb_out_open(rt) < 0 ||
		    zcast_waitset_add_sub(g->ws, rt->sub, rt, &rt->ws_id) < 0) {
			if (rt->ws_id < 0 && rt->sub)
				fprintf(stderr, "zcast-bridge: out %s: wait set: %s\n",
					rt->cfg->topic, zcast_last_error());
			set_failed(g, rt);
			continue;
		}
		rt->opened = 1;
	}
}

/* An IN route delivers what waits; while it must wait for room, its room entry is enabled. */
static void in_drain(struct zb_group *g, struct zb_route_rt *rt)
{
	int waiting = zb_in_drain(rt);
	if (waiting != rt->room_on) {
		zcast_waitset_enable(g->ws, rt->ws_id, waiting);
		rt->room_on = waiting;
	}
}

/* After a wake (or the sweep): topics granted are taken over, IN routes handed over by their
 * listener wait for room, every IN route delivers what its readers hold. */
static void step(struct zb_group *g)
{
	for (size_t i = 0; i < g->n_routes && !atomic_load(&g->b->stop); i++) {
		struct zb_route_rt *rt = g->routes[i];
		int st = atomic_load(&rt->state);
		if (st == ZCAST_BRIDGE_FAILED)
			continue;
		int granted = atomic_load(&rt->claim->granted);
		if (rt->cfg->dir == ZCAST_BRIDGE_OUT) {
			if (st != ZCAST_BRIDGE_ACTIVE && granted) {
				atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
				if (zb_out_take_over(rt) < 0)
					set_failed(g, rt);
			}
			continue;
		}
		if (!rt->opened && granted) {
			if (zb_in_open(rt) < 0 ||
			    zcast_waitset_add_pub_room(g->ws, rt->pub, rt, &rt->ws_id) < 0 ||
			    zcast_waitset_enable(g->ws, rt->ws_id, 0) < 0) {
				set_failed(g, rt);
				continue;
			}
			rt->opened = 1;
		}
		if (rt->opened)
			in_drain(g, rt);
	}
}

static void mark_standby(struct zb_group *g)
{
	for (size_t i = 0; i < g->n_routes; i++) {
		struct zb_route_rt *rt = g->routes[i];
		int st = ZCAST_BRIDGE_STARTING;
		if (!atomic_load(&rt->claim->granted))
			atomic_compare_exchange_strong(&rt->state, &st, ZCAST_BRIDGE_STANDBY);
	}
}

static void *worker(void *arg)
{
	struct zb_group *g = arg;
	struct zcast_bridge *b = g->b;
	int guard_id;
	if (zcast_waitset_add_guard(g->ws, g->wake, NULL, &guard_id) < 0) {
		fprintf(stderr, "zcast-bridge: worker wait set: %s\n", zcast_last_error());
		for (size_t i = 0; i < g->n_routes; i++)
			atomic_store(&g->routes[i]->state, ZCAST_BRIDGE_FAILED);
		return NULL;
	}
	open_routes(g);
	int64_t standby_at = now_ns() + ZB_STANDBY_NS, sweep_at = now_ns() + ZB_SWEEP_NS;
	int standby_marked = 0;
	step(g);
	zcast_ws_event ev[64];
	while (!atomic_load(&b->stop)) {
		int64_t now = now_ns(), until = standby_marked ? sweep_at : standby_at;
		int n = zcast_waitset_wait(g->ws, until > now ? until - now : 0, ev, 64);
		int woken = 0;
		for (int i = 0; i < n && !atomic_load(&b->stop); i++) {
			struct zb_route_rt *rt = ev[i].user;
			if (ev[i].kind == ZCAST_WS_GUARD)
				woken = 1;
			else if (ev[i].kind == ZCAST_WS_SUB &&
				 atomic_load(&rt->state) == ZCAST_BRIDGE_ACTIVE)
				zb_out_forward_one(rt); /* one per round: the others get their turn */
			else if (ev[i].kind == ZCAST_WS_SUB)
				zb_out_hold_queued(rt); /* standing by */
			else if (ev[i].kind == ZCAST_WS_PUB_ROOM)
				in_drain(g, rt);
		}
		now = now_ns();
		if (!standby_marked && now >= standby_at) {
			mark_standby(g);
			standby_marked = 1;
		}
		if (now >= sweep_at)
			sweep_at = now + ZB_SWEEP_NS, woken = 1;
		if (woken)
			step(g);
	}
	return NULL;
}

/* SYNC: zb_out_written (the worker) stores `written` and broadcasts cv under mu; we read it under
 * mu, and zb_out_acks_record releases mu only around dds_wait_for_acks. */
static void *acker(void *arg)
{
	struct zb_group *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!atomic_load(&g->b->stop)) {
		struct zb_route_rt *one = NULL;
		size_t n = 0;
		for (size_t i = 0; i < g->n_routes; i++) {
			struct zb_route_rt *rt = g->routes[i];
			struct zb_out *o = rt->out;
			if (o && o->ack_started && o->written > o->acked)
				one = rt, n++;
		}
		if (n == 0) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000)
				ts.tv_sec++, ts.tv_nsec -= 1000000000;
			pthread_cond_timedwait(&g->cv, &g->mu, &ts);
		} else if (n == 1) {
			zb_out_acks_record(one, DDS_MSECS(100));
		} else {
			for (size_t i = 0; i < g->n_routes && !atomic_load(&g->b->stop); i++) {
				struct zb_out *o = g->routes[i]->out;
				if (o && o->ack_started && o->written > o->acked)
					zb_out_acks_record(g->routes[i], DDS_MSECS(5));
			}
		}
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* Which worker serves route i: large OUT routes share the first k_large workers, the others the
 * rest, in turn. */
static void assign(struct zcast_bridge *b, size_t k)
{
	size_t n_large = 0;
	for (size_t i = 0; i < b->n_routes; i++)
		n_large += b->routes[i].cfg->dir == ZCAST_BRIDGE_OUT &&
			   b->routes[i].cfg->max_size > ZB_LARGE;
	size_t n_small = b->n_routes - n_large, k_large = 0;
	if (n_large && (k == 1 || n_small == 0))
		k_large = k;
	else if (n_large)
		k_large = n_large < k / 2 ? n_large : (k / 2 ? k / 2 : 1);
	size_t next_large = 0, next_small = 0;
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		int large = rt->cfg->dir == ZCAST_BRIDGE_OUT && rt->cfg->max_size > ZB_LARGE;
		size_t gi = large ? next_large++ % k_large
				  : (k_large == k ? next_small++ % k
						  : k_large + next_small++ % (k - k_large));
		struct zb_group *g = &b->groups[gi];
		g->routes[g->n_routes++] = rt;
		rt->group = g;
		if (rt->out)
			rt->out->mu = &g->mu, rt->out->cv = &g->cv;
	}
}

int zb_pool_start(struct zcast_bridge *b, char *err, size_t errlen)
{
	size_t k = zb_pool_threads(b->cfg);
	b->groups = calloc(k, sizeof *b->groups);
	if (!b->groups) {
		snprintf(err, errlen, "out of memory");
		return ZCAST_ENOMEM;
	}
	b->n_groups = k;
	for (size_t i = 0; i < k; i++) {
		struct zb_group *g = &b->groups[i];
		g->b = b;
		pthread_mutex_init(&g->mu, NULL);
		pthread_cond_init(&g->cv, NULL);
		if (!(g->routes = calloc(b->n_routes, sizeof *g->routes)) ||
		    zcast_guard_create(&g->wake) < 0 || zcast_waitset_create(&g->ws) < 0) {
			snprintf(err, errlen, "pool: %s", zcast_last_error());
			return ZCAST_ENOMEM;
		}
	}
	assign(b, k);
	for (size_t i = 0; i < k; i++) {
		struct zb_group *g = &b->groups[i];
		int e = pthread_create(&g->worker, NULL, worker, g);
		g->worker_started = e == 0;
		if (!e) {
			e = pthread_create(&g->acker, NULL, acker, g);
			g->acker_started = e == 0;
		}
		if (e) {
			snprintf(err, errlen, "pool thread: %s", strerror(e));
			return ZCAST_ESYS;
		}
	}
	return 0;
}

void zb_pool_stop(struct zcast_bridge *b)
{
	for (size_t i = 0; i < b->n_groups; i++) {
		struct zb_group *g = &b->groups[i];
		if (g->wake)
			zcast_guard_trigger(g->wake);
		pthread_mutex_lock(&g->mu);
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	for (size_t i = 0; i < b->n_groups; i++) {
		struct zb_group *g = &b->groups[i];
		if (g->worker_started)
			pthread_join(g->worker, NULL);
		if (g->acker_started)
			pthread_join(g->acker, NULL);
		g->worker_started = g->acker_started = 0;
	}
	/* a clean stop hands over nothing owed if the readers acknowledge within a second (one
	 * second for all routes, not per route) */
	int64_t deadline = now_ns() + 1000 * 1000 * 1000;
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		struct zb_out *o = rt->out;
		if (!o || !rt->group || !o->ack_started)
			continue;
		int64_t left = deadline - now_ns();
		pthread_mutex_lock(o->mu);
		if (o->written > o->acked)
			zb_out_acks_record(rt, left > 0 ? left : 0);
		o->ack_started = 0;
		pthread_mutex_unlock(o->mu);
	}
	for (size_t i = 0; i < b->n_groups; i++) /* before the subscribers and publishers close */
		if (b->groups[i].ws) {
			zcast_waitset_destroy(b->groups[i].ws);
			b->groups[i].ws = NULL;
		}
}

/* After the claims were released (their waiters trigger the guards). */
void zb_pool_free(struct zcast_bridge *b)
{
	for (size_t i = 0; i < b->n_groups; i++) {
		struct zb_group *g = &b->groups[i];
		if (g->wake)
			zcast_guard_destroy(g->wake);
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
		free(g->routes);
	}
	free(b->groups);
	b->groups = NULL;
	b->n_groups = 0;
}
