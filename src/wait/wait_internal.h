/* Private declarations shared by the wait set, guard, pollable-descriptor, graph and executor files
 * (docs/WAITSETS.md). Kept apart from internal.h so the core stays as it is. */
#ifndef ZC_WAIT_INTERNAL_H
#define ZC_WAIT_INTERNAL_H

#include "internal.h"
#include "zcast/waitset.h"

/* ---- waiting on many futex words (multiwait.c) ---- */

/* One word to sleep on while it still holds `val`. Shared words live in topic segments; private
 * words (guards, helper handshakes) are process-local and use FUTEX_PRIVATE_FLAG. */
struct zc_wword {
	_Atomic uint32_t *word;
	uint32_t val;
	uint32_t is_private;
};

/* futex_waitv takes at most 128 words. Beyond that, chunk c > 0 is watched by helper thread c, which
 * bumps `fired` (a word the caller's own futex_waitv includes) when one of its words changes. */
#define ZC_WAITV_MAX 128u
#define ZC_CHUNK (ZC_WAITV_MAX - 1u) /* one slot of every waitv is the handshake word */

struct zc_mw_helper;
struct zc_mwait {
	pthread_mutex_t mu;        /* guards words/n_words/n_helpers as seen by helpers */
	_Atomic uint32_t round;    /* private futex: odd = a wait is in progress, even = idle */
	_Atomic uint32_t fired;    /* private futex: a helper saw one of its words change */
	_Atomic uint32_t quit;
	struct zc_wword *words;    /* snapshot of the current round, under mu */
	uint32_t n_words, cap_words;
	struct zc_mw_helper **helpers; /* each allocated once: threads keep a pointer */
	uint32_t n_helpers, cap_helpers;
};

ZC_HIDDEN void zc_mwait_init(struct zc_mwait *mw);
/* Stops and joins the helper threads. */
ZC_HIDDEN void zc_mwait_fini(struct zc_mwait *mw);
/* Sleeps until one of the words no longer holds its value, a wake-up, a signal, or
 * abs_deadline_ns (CLOCK_MONOTONIC; < 0 = none). Returns 0 (re-check the conditions),
 * ZCAST_ETIMEDOUT, or a negative error. Spurious returns are allowed; lost wake-ups are not. */
ZC_HIDDEN int zc_mwait_wait(struct zc_mwait *mw, const struct zc_wword *w, uint32_t n,
			    int64_t abs_deadline_ns);
/* True when futex_waitv is usable (probed once; $ZCAST_NO_FUTEX_WAITV=1 forces the fallback). */
ZC_HIDDEN bool zc_waitv_available(void);

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
ZC_HIDDEN void zc_futex_wake_private(_Atomic uint32_t *w, int n);
ZC_HIDDEN int zc_futex_wait_private(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns);

/* ---- graph (graph.c) ---- */
/* The topic's graph word and a count of ACTIVE records of `kind` (pub or sub records). */
ZC_HIDDEN int zc_graph_count(struct zc_topic *t, enum zc_kind kind);

/* ---- publisher room (room.c) ---- */
/* Would a publish find room now (a free pool slot, space in every FULL queue and RR group)? */
ZC_HIDDEN bool zc_pub_has_room(zcast_pub *pub);
/* Announces a room waiter and fills the two words to sleep on (topic `space`, pool `freed`).
 * Returns false (not armed) when there is room already; else call zc_room_disarm once after. */
ZC_HIDDEN bool zc_room_arm(zcast_pub *pub, struct zc_wword w[2]);
ZC_HIDDEN void zc_room_disarm(zcast_pub *pub);

#endif
