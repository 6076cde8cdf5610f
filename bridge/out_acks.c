/* What every matched DDS reader acknowledged, recorded in the claim file as soon as Cyclone reports
 * it: one thread for all OUT routes. Whenever something is written and not yet acknowledged it
 * checks every route without waiting, then waits in dds_wait_for_acks (woken by the
 * acknowledgments themselves) for one that still has unacknowledged messages, taking them in turn:
 * 1 ms at most when several have, 10 ms when only that one has. For each route acknowledged it
 * records the newest sequence written before its check began. So a route's record lags its readers
 * by 10 ms at most, however many routes there are. A successor sends again only what follows
 * (out_resume.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

struct zb_acks {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* signalled on a write */
	int dirty;	   /* written since the last round, or still unacknowledged */
	size_t next;	   /* the route waited for first in the next round */
	pthread_t thread;
	int started;
};

static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000 * 1000;
	while (ts.tv_nsec >= 1000000000)
		ts.tv_sec++, ts.tv_nsec -= 1000000000;
	pthread_cond_timedwait(cv, mu, &ts);
}

/* SYNC: the writing thread stores `written` (zb_out_written) after dds_forwardcdr returned, so a
 * dds_wait_for_acks that starts after we read it covers that write. Returns 1 if the route still
 * has unacknowledged messages, 0 if not, -1 if it had none to look at. */
static int record(struct zb_route_rt *rt, dds_duration_t timeout)
{
	struct zb_out *o = rt->out;
	pthread_mutex_lock(&o->mu);
	uint64_t w = o->written;
	int idle = !o->acks_on || w == o->acked;
	pthread_mutex_unlock(&o->mu);
	if (idle)
		return -1;
	dds_return_t rc = dds_wait_for_acks(rt->endpoint, timeout);
	pthread_mutex_lock(&o->mu);
	if (rc == DDS_RETCODE_OK && w > o->acked) {
		o->acked = w;
		rt->claim->state->out_acked = w;
		pthread_cond_broadcast(&o->cv); /* the window (zb_out_window) */
	}
	int pending = o->written > o->acked;
	pthread_mutex_unlock(&o->mu);
	return pending;
}

/* One look at every route, then a wait for one that still has unacknowledged messages: 10 ms at
 * most if it is the only one, else 1 ms (the others are looked at again after it). 1 if one had. */
static int round_robin(struct zcast_bridge *b, struct zb_acks *a)
{
	size_t n = b->n_routes, first = n;
	int pending = 0;
	for (size_t k = 0; k < n && !atomic_load(&b->stop); k++) {
		size_t i = (a->next + k) % n;
		struct zb_route_rt *rt = &b->routes[i];
		if (rt->cfg->dir == ZCAST_BRIDGE_OUT && rt->out && record(rt, 0) == 1) {
			pending++;
			first = first == n ? i : first;
		}
	}
	if (!pending || atomic_load(&b->stop))
		return 0;
	a->next = first + 1; /* the next round waits for another route first */
	record(&b->routes[first], pending == 1 ? DDS_MSECS(10) : DDS_MSECS(1));
	return 1;
}

static void *ack_thread(void *arg)
{
	struct zcast_bridge *b = arg;
	struct zb_acks *a = b->acks;
	pthread_mutex_lock(&a->mu);
	while (!atomic_load(&b->stop)) {
		if (!a->dirty) {
			timed_wait(&a->cv, &a->mu, 100);
			continue;
		}
		a->dirty = 0;
		pthread_mutex_unlock(&a->mu);
		int pending = round_robin(b, a);
		pthread_mutex_lock(&a->mu);
		a->dirty |= pending;
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

void zb_acks_poke(struct zcast_bridge *b)
{
	struct zb_acks *a = b->acks;
	pthread_mutex_lock(&a->mu);
	a->dirty = 1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

void zb_out_acks_add(struct zb_route_rt *rt)
{
	pthread_mutex_lock(&rt->out->mu);
	rt->out->acks_on = 1;
	pthread_mutex_unlock(&rt->out->mu);
}

int zb_acks_start(struct zcast_bridge *b)
{
	struct zb_acks *a = calloc(1, sizeof *a);
	if (!a)
		return -1;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	b->acks = a;
	int e = pthread_create(&a->thread, NULL, ack_thread, b);
	a->started = e == 0;
	if (e)
		fprintf(stderr, "zcast-bridge: acknowledgment thread: %s\n", strerror(e));
	return e ? -1 : 0;
}

void zb_acks_stop(struct zcast_bridge *b)
{
	struct zb_acks *a = b->acks;
	if (!a)
		return;
	if (a->started) {
		pthread_mutex_lock(&a->mu);
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->thread, NULL);
	}
	/* a clean stop hands over nothing owed if the readers acknowledge within a second (in all) */
	dds_time_t deadline = dds_time() + DDS_SECS(1);
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		dds_duration_t left = deadline - dds_time();
		if (rt->cfg->dir == ZCAST_BRIDGE_OUT && rt->out)
			record(rt, left > 0 ? left : 0);
	}
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
	b->acks = NULL;
}
