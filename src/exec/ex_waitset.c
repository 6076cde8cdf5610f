/* The executor's wait set, touched by its owner only: attaching and detaching entries, and the
 * commands other threads queue for the spinning thread (executor.c, "Adding and removing while
 * spinning"). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor_internal.h"

/* ---- the wait set, by its owner ---- */

/* Under mu: may this thread touch the wait set itself? */
bool ex_owns_ws(zcast_executor *ex)
{
	return !ex->spinning || pthread_equal(ex->spin_thread, pthread_self());
}

/* The topic's count of dead peers of the kind a graph entry watches: subscribers for a publisher's
 * entry, publishers for a subscriber's. Read once; the caller bounds the difference. */
uint32_t ex_peers_died(const struct ex_entry *en)
{
	return en->pub ? atomic_load(&en->pub->t.hdr->subs_died)
		       : atomic_load(&en->sub->t.hdr->pubs_died);
}

int ex_attach(zcast_executor *ex, struct ex_entry *en)
{
	switch (en->kind) {
	case ZCAST_WS_SUB:
		return zcast_waitset_add_sub(ex->ws, en->sub, en, &en->ws_id);
	case ZCAST_WS_GUARD:
		return zcast_waitset_add_guard(ex->ws, en->guard, en, &en->ws_id);
	case ZCAST_WS_GRAPH: {
		int r = en->pub ? zcast_waitset_add_pub_graph(ex->ws, en->pub, en, &en->ws_id)
				: zcast_waitset_add_sub_graph(ex->ws, en->sub, en, &en->ws_id);
		/* Counted after the wait set read the graph word: a join or leave in between is
		 * in the count, or bumps the word later and is reported, never lost. */
		en->graph_prev = en->pub ? zcast_pub_matched(en->pub) : zcast_sub_matched(en->sub);
		en->died_prev = ex_peers_died(en);
		return r;
	}
	case ZCAST_WS_PUB_ROOM: {
		int r = en->room_ops->attach(ex->ws, en, &en->ws_id);
		if (r == 0) /* level-triggered: watched only after zcast_executor_want_room */
			zcast_waitset_enable(ex->ws, en->ws_id, 0);
		return r;
	}
	}
	return 0; /* timers are not in the wait set */
}

void ex_detach(zcast_executor *ex, struct ex_entry *en)
{
	if (en->ws_id >= 0)
		zcast_waitset_remove(ex->ws, en->ws_id);
	en->ws_id = -1;
}

/* Under mu, by a thread that does not own the wait set: has the spinning thread apply `op`. */
int ex_command(zcast_executor *ex, int op, struct ex_entry *en)
{
	struct ex_cmd c = {.op = op, .en = en};
	*ex->cmds_tail = &c;
	ex->cmds_tail = &c.next;
	pthread_cond_broadcast(&ex->ctl_cv); /* a spinning thread that drains waits there */
	zcast_guard_trigger(ex->wake);
	while (!c.done)
		pthread_cond_wait(&ex->ctl_cv, &ex->mu);
	return c.result < 0 ? zc_err(c.result, "%s", c.why) : c.result;
}

/* Under mu, by the owner: what other threads asked for, finished work, wanted room, the dead. */
ZC_HOT void ex_service(zcast_executor *ex)
{
	for (struct ex_cmd *c = ex->cmds; c; c = c->next) {
		if (c->op == CMD_DETACH)
			ex_detach(ex, c->en);
		else /* removed while the attach waited: never attach it */
			c->result = atomic_load(&c->en->removed)
					? zc_err(ZCAST_ENOENT, "entry removed while being added")
					: ex_attach(ex, c->en);
		if (c->result < 0)
			snprintf(c->why, sizeof c->why, "%s", zcast_last_error());
		c->done = true;
	}
	if (ex->cmds) {
		ex->cmds = NULL;
		ex->cmds_tail = &ex->cmds;
		pthread_cond_broadcast(&ex->ctl_cv);
	}
	for (uint32_t i = 0; i < ex->done.n; i++) {
		struct ex_entry *en = ex->done.v[i];
		if (!atomic_load(&en->removed) && en->ws_id >= 0 && en->kind != ZCAST_WS_PUB_ROOM)
			zcast_waitset_enable(ex->ws, en->ws_id, 1);
	}
	ex->done.n = 0;
	for (uint32_t i = 0; ex->n_want && i < ex->live.n; i++) {
		struct ex_entry *en = ex->live.v[i];
		if (en->want_room && en->inflight == 0 && en->ws_id >= 0) {
			en->want_room = false;
			ex->n_want--;
			zcast_waitset_enable(ex->ws, en->ws_id, 1);
		}
	}
	for (uint32_t i = 0; i < ex->dead.n;) {
		if (ex->dead.v[i]->inflight == 0 && ex->dead.v[i]->pins == 0) {
			ex_free_entry(ex->dead.v[i]);
			ex_list_del(&ex->dead, i);
		} else {
			i++;
		}
	}
}
