/* Private declarations shared by the wait set, guard, pollable-descriptor, graph and executor files
 * (docs/WAITSETS.md): the wait layer, above the core. */
#ifndef ZC_WAIT_INTERNAL_H
#define ZC_WAIT_INTERNAL_H

#include "core_internal.h"
#include "zcast/waitset.h"

/* ---- guards (guard.c) ---- */
struct zc_bell;
/* A guard's attachment to a wait set with a doorbell: the trigger sets `fired` and the wait set's
 * bit `bit` in its doorbell, and wakes it only if it sleeps. Links are owned by the guard, appended
 * to its list and never taken out of it until the guard is destroyed (a trigger walks the list
 * without a lock, from a signal handler too); a free link is reused. */
struct zc_guard_link {
	_Atomic(struct zc_bell *) bell; /* NULL: not in use (with a reference while set) */
	_Atomic uint32_t users;	  /* triggers between reading `bell` and their last use of it */
	_Atomic uint32_t fired;	  /* set by a trigger, taken by the wait set */
	uint32_t bit;		  /* the wait set's entry id: written before `bell` is set */
	unsigned fork_gen;	  /* a forked child does not ring its parent's doorbells */
	bool claimed;		  /* under the guard's mu */
	struct zc_guard_link *next; /* written before the link is published, never after */
};
struct zcast_guard {
	_Atomic uint32_t word;	  /* private futex: bumped on every trigger */
	_Atomic uint32_t pending; /* set by trigger, cleared when a wait set reports it */
	_Atomic uint32_t waiters; /* wait sets without a doorbell sleeping on `word` */
	_Atomic uint32_t classic; /* attachments to wait sets without a doorbell */
	_Atomic(struct zc_guard_link *) links;
	pthread_mutex_t mu; /* claims and releases of links */
};
/* Attaches the guard to doorbell `b` (the caller's wait set) as bit `bit`: a link with its own
 * reference to b, or NULL (out of memory). */
ZC_HIDDEN struct zc_guard_link *zc_guard_link(zcast_guard *g, struct zc_bell *b, uint32_t bit);
/* Detaches it: when it returns, no trigger touches the doorbell through this link any more. */
ZC_HIDDEN void zc_guard_unlink(zcast_guard *g, struct zc_guard_link *l);

/* ---- graph (graph.c) ---- */
/* The topic's graph word and a count of ACTIVE records of `kind` (pub or sub records). */
ZC_HIDDEN int zc_graph_count(struct zc_topic *t, enum zc_kind kind);

/* ---- publisher room (room.c) ---- */
/* Would a publish find room now (a free pool slot, space in every FULL queue and RR group)? */
ZC_HIDDEN bool zc_pub_has_room(zcast_pub *pub);
/* The part of it a refused call needs again: a loan a free slot, the publish of a loan held
 * (whatever the pool) queue room, a loan and its publish both. */
enum { ZC_ROOM_SLOT = 1, ZC_ROOM_QUEUE = 2 };
ZC_HIDDEN bool zc_pub_room_for(zcast_pub *pub, unsigned need);
/* Announces a room waiter and fills the two words to sleep on (topic `space`, pool `freed`).
 * Returns false (not armed) when there is room already; else call zc_room_disarm once after. */
ZC_HIDDEN bool zc_room_arm(zcast_pub *pub, struct zc_wword w[2]);
ZC_HIDDEN void zc_room_disarm(zcast_pub *pub);

/* ---- room of a changing set of publishers (room_set.c) ---- */
/* A "room again" entry whose publishers the layer above names at each sleep (a server's routes to
 * clients whose response, or failure, found no room). Both run in the wait set's thread: `pubs`
 * fills up to max of them, each with a reference of its own (dropped with zc_pub_unref), and
 * returns how many there are (more than max: it is asked again with more room); `ready` says
 * whether the caller's retry would now get further (room, or the peer gone), and is asked again
 * after every word is announced. `grown` (or NULL): a private futex word the layer above bumps
 * and wakes when `pubs` may name one more (another thread's call refused for room meanwhile). */
struct zc_room_src {
	uint32_t (*pubs)(void *ctx, zcast_pub **out, uint32_t max);
	bool (*ready)(void *ctx);
	void *ctx;
	_Atomic uint32_t *grown;
};
ZC_HIDDEN int zc_waitset_add_room_src(zcast_waitset *ws, const struct zc_room_src *src, void *user,
				      int *id);

#endif
