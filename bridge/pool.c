/* The pool: ZB_POOL threads that serve the routes which have to wait (docs/BRIDGE.md, "Threads").
 *
 * Forwarding never waits on the out loop nor on Cyclone's receive thread; a route that would (its
 * DDS writer has no room, its zcast queue is full, no slot is free) is queued here, and a pool
 * thread does the waiting. A task waits one round (100 ms at most) and, still blocked, goes to the
 * back of the queue: the blocked routes take turns, and a route that is not blocked never waits for
 * one that is. A route is in the queue at most once (`queued`); one submitted again while a thread
 * serves it (its task handed it back, and it had to wait again at once) is served again after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct zb_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct zb_route_rt *head, *tail;
	pthread_t threads[ZB_POOL];
	int n_threads;
	int stop;
};

static struct zb_route_rt *pop(struct zb_pool *p)
{
	struct zb_route_rt *rt = p->head;
	if (rt) {
		p->head = rt->next_task;
		if (!p->head)
			p->tail = NULL;
		rt->next_task = NULL;
	}
	return rt;
}

static void push(struct zb_pool *p, struct zb_route_rt *rt)
{
	rt->next_task = NULL;
	if (p->tail)
		p->tail->next_task = rt;
	else
		p->head = rt;
	p->tail = rt;
}

static void *pool_thread(void *arg)
{
	struct zcast_bridge *b = arg;
	struct zb_pool *p = b->pool;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		struct zb_route_rt *rt = pop(p);
		if (!rt) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		int again = rt->cfg->dir == ZCAST_BRIDGE_OUT ? zb_route_out_task(rt)
							     : zb_route_in_task(rt);
		pthread_mutex_lock(&p->mu);
		if ((again || rt->resubmit) && !p->stop)
			push(p, rt);
		else
			rt->queued = 0;
		rt->resubmit = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void zb_pool_submit(struct zcast_bridge *b, struct zb_route_rt *rt)
{
	struct zb_pool *p = b->pool;
	pthread_mutex_lock(&p->mu);
	if (!rt->queued && !p->stop) {
		rt->queued = 1;
		push(p, rt);
		pthread_cond_signal(&p->cv);
	} else if (rt->queued) { /* being served: it handed back just now, and is needed again */
		rt->resubmit = 1;
	}
	pthread_mutex_unlock(&p->mu);
}

int zb_pool_start(struct zcast_bridge *b)
{
	struct zb_pool *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	b->pool = p;
	for (int i = 0; i < ZB_POOL; i++) {
		int e = pthread_create(&p->threads[i], NULL, pool_thread, b);
		if (e) {
			fprintf(stderr, "zcast-bridge: pool thread: %s\n", strerror(e));
			return -1;
		}
		p->n_threads++;
	}
	return 0;
}

void zb_pool_stop(struct zcast_bridge *b)
{
	struct zb_pool *p = b->pool;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	p->n_threads = 0;
}

void zb_pool_free(struct zcast_bridge *b)
{
	struct zb_pool *p = b->pool;
	if (!p)
		return;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
	b->pool = NULL;
}
