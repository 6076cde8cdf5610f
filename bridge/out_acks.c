/* What every matched DDS reader acknowledged, recorded in the claim file as soon as Cyclone reports
 * it: a thread per OUT route waits in dds_wait_for_acks (woken by the acknowledgments themselves)
 * whenever something is written and not yet acknowledged, then records the newest sequence written
 * before the wait began. A successor sends again only what follows (out_resume.c). */
#include <stdio.h>
#include <time.h>

#include "internal.h"

static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000 * 1000;
	while (ts.tv_nsec >= 1000000000)
		ts.tv_sec++, ts.tv_nsec -= 1000000000;
	pthread_cond_timedwait(cv, mu, &ts);
}

/* SYNC: the route thread stores `written` (zb_out_written) after dds_forwardcdr returned, so a
 * dds_wait_for_acks that starts after we read it covers that write. */
void zb_out_acks_record(struct zb_route_rt *rt, dds_duration_t timeout)
{
	struct zb_out *o = rt->out;
	uint64_t w = o->written;
	pthread_mutex_unlock(o->mu);
	dds_return_t rc = dds_wait_for_acks(rt->endpoint, timeout);
	pthread_mutex_lock(o->mu);
	if (rc == DDS_RETCODE_OK && w > o->acked) {
		o->acked = w;
		rt->claim->state->out_acked = w;
		pthread_cond_broadcast(o->cv); /* the window (zb_out_window) */
	}
}

static void *ack_thread(void *arg)
{
	struct zb_route_rt *rt = arg;
	struct zb_out *o = rt->out;
	pthread_mutex_lock(o->mu);
	while (!atomic_load(&rt->b->stop)) {
		if (o->written == o->acked)
			timed_wait(o->cv, o->mu, 100);
		else
			zb_out_acks_record(rt, DDS_MSECS(100));
	}
	pthread_mutex_unlock(o->mu);
	return NULL;
}

int zb_out_acks_start(struct zb_route_rt *rt)
{
	if (rt->group) { /* the group's ack thread serves it from now on (pool.c) */
		pthread_mutex_lock(rt->out->mu);
		rt->out->ack_started = 1;
		pthread_mutex_unlock(rt->out->mu);
		return 0;
	}
	int e = pthread_create(&rt->out->ack_thread, NULL, ack_thread, rt);
	rt->out->ack_started = e == 0;
	if (e)
		fprintf(stderr, "zcast-bridge: out %s: no acknowledgment thread\n", rt->cfg->topic);
	return e ? -1 : 0;
}

void zb_out_acks_stop(struct zb_route_rt *rt)
{
	struct zb_out *o = rt->out;
	if (!o || !o->ack_started)
		return;
	if (!rt->group) { /* the pool stopped its ack threads already */
		pthread_mutex_lock(o->mu);
		pthread_cond_broadcast(o->cv);
		pthread_mutex_unlock(o->mu);
		pthread_join(o->ack_thread, NULL);
	}
	o->ack_started = 0;
	/* a clean stop hands over nothing owed if the readers acknowledge within a second */
	pthread_mutex_lock(o->mu);
	if (o->written > o->acked)
		zb_out_acks_record(rt, DDS_SECS(1));
	pthread_mutex_unlock(o->mu);
}
