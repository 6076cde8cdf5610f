/* A wait set's state, shared by its files: waitset.c (the object), ws_entries.c (adding and
 * removing), ws_events.c (collecting what is ready) and ws_wait.c (arming and sleeping). */
#ifndef ZC_WAITSET_INTERNAL_H
#define ZC_WAITSET_INTERNAL_H

#include "doorbell.h"
#include "wait_internal.h"

enum { KEY_NOTIFY = 0, KEY_GRAPH = 1, KEY_RR = 2 /* + sub index */ };
#define KEY_SPACE (UINT64_MAX - 1) /* room entries: the topic's space word ... */
#define KEY_FREED (UINT64_MAX - 2) /* ... and the pool's freed word (keyed by the pool's inode) */

struct ws_entry {
	int kind; /* enum zcast_ws_kind; 0 = free */
	bool enabled, armed;
	bool belled; /* SUB: its record holds bell_ref; GUARD: `link` rings our doorbell */
	bool hot;    /* belled and in hot[]: checked at the next collect */
	bool listed; /* in others[] (an entry re-belled since is skipped there) */
	/* SUB, belled: its record's reference is withdrawn while the wait set sleeps on its topic
	 * word alone (arm_solo): publishers then neither set its bit nor look at our doorbell. */
	bool quiet;
	uint64_t bell_ref;
	void *user;
	zcast_sub *sub;          /* SUB */
	zcast_guard *guard;      /* GUARD */
	struct zc_guard_link *link; /* GUARD, belled */
	zcast_pub *pub;          /* PUB_ROOM of one publisher */
	const struct zc_room_src *src; /* PUB_ROOM of a set (room_set.c) */
	zcast_pub **set;         /* ... its publishers of the current sleep, with references */
	struct zc_wword *set_words; /* ... three words each (room.c's two, the graph word) */
	uint32_t n_set, cap_set, n_set_armed;
	uint32_t grown_seen;     /* ... its source's `grown` word, read before the look-up */
	struct zc_topic *topic;  /* SUB, GRAPH */
	uint64_t ino;            /* control segment inode: identifies shared words across mappings */
	uint32_t graph_seen;     /* GRAPH: value last reported */
	int64_t period, next;    /* TIMER */
};

struct zcast_waitset {
	struct ws_entry *e;
	int n, cap; /* entries in use are e[0 .. n-1] with kind != 0 */
	int cursor; /* scan start in others[]: after the last reported entry (fairness) */
	int *others, n_others; /* entries without the doorbell, rebuilt on every change */
	int *hot, n_hot;       /* belled entries to check, oldest first */
	int *tmp;              /* scratch for collect */
	bool hot_first;        /* alternates: neither kind of entry starves the other */
	bool no_bell;          /* $ZCAST_NO_DOORBELL=1 or the doorbell could not be made */
	bool bell_armed;
	int solo_armed; /* the lone belled subscriber armed on its topic word (arm_solo), or -1 */
	int quiet;	/* the entry whose reference is withdrawn (ws_entry.quiet), or -1 */
	struct zc_bell_own bell; /* bell.b == NULL until the first subscriber needs it */
	uint32_t bell_epoch;	 /* sleeps announced on the doorbell (its `woken` epoch) */
	uint32_t bell_words;     /* ready-set words in use: (highest belled id) / 64 + 1 */
	int64_t slice_ns;        /* smallest last-resort sleep slice of a belled subscriber */
	bool wake_tampered;      /* the last guard slice found tampering (ws_guard.c) */
	uint32_t last_words;     /* futex words of the last sleep (zcast_waitset_last_words) */
	struct zc_mwait mw;
	struct zc_wword *words;
	uint64_t *keys; /* two per word */
	int32_t *hash;  /* open addressing, word index or -1 */
	uint32_t cap_words, cap_hash;
};

ZC_HIDDEN void ws_unbell(struct ws_entry *e);
/* Room for `need` futex words in a sleep (ws_entries.c). */
ZC_HIDDEN int ws_words_reserve(zcast_waitset *ws, uint32_t need);
/* room_set.c: a set entry's publishers looked up before a sleep (false: out of memory), armed
 * (false: one has room, all disarmed), disarmed and let go of. */
ZC_HIDDEN bool ws_set_snapshot(struct ws_entry *e);
ZC_HIDDEN bool ws_set_arm(struct ws_entry *e);
ZC_HIDDEN void ws_set_disarm(struct ws_entry *e);
ZC_HIDDEN void ws_set_free(struct ws_entry *e);
ZC_HIDDEN void ws_release_entry(struct ws_entry *e);
ZC_HIDDEN void ws_rebuild_others(zcast_waitset *ws);
ZC_HIDDEN int ws_collect(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int max);
ZC_HIDDEN bool ws_unquieten(zcast_waitset *ws);
/* A guard slice ran out with the wait set still armed (ws_guard.c): checks and repairs its
 * doorbell and its entries' wake-up state, queues every belled entry for a check. */
ZC_HIDDEN void ws_guard_check(zcast_waitset *ws);

/* The entry whose reference is withdrawn, or NULL (ws->quiet may name an entry unbelled since). */
static inline struct ws_entry *ws_quiet_entry(const zcast_waitset *ws)
{
	int i = ws->quiet;
	return i >= 0 && i < ws->n && ws->e[i].quiet ? &ws->e[i] : NULL;
}

/* Queues a belled entry for a check at the next collect. */
static inline void ws_make_hot(zcast_waitset *ws, struct ws_entry *e)
{
	if (e->hot)
		return;
	e->hot = true;
	ws->hot[ws->n_hot++] = (int)(e - ws->e);
}

static inline void ws_report(zcast_ws_event *ev, int *k, struct ws_entry *e, int id)
{
	ev[*k].kind = e->kind;
	ev[*k].id = id;
	ev[*k].user = e->user;
	(*k)++;
}

#endif
