/* Wait sets: wait for many subscribers, guards, timers and graph words in one call
 * (docs/WAITSETS.md).
 *
 * Subscribers ring the wait set's doorbell (doorbell.c): the record of each attached subscriber
 * names the doorbell and a bit (the entry id), a publisher sets the bit after pushing and wakes the
 * doorbell word only if we sleep. One wait: take the ready set, check only the entries whose bit
 * was set or that were ready last time ("hot"), plus the entries without a doorbell; if none is
 * ready, announce the sleep on the doorbell, check the ready set once more and sleep on the doorbell
 * word and the other entries' words. A wait thus costs O(ready), not O(attached).
 *
 * Guards ring the doorbell too (guard.c): a trigger sets the guard's link flag and the entry's bit.
 * So a wait set of subscribers and guards (an executor: its own wake guard) sleeps on one word.
 *
 * Entries without the doorbell (graph words, room entries, subscribers of group-mode topics, a
 * subscriber attached elsewhere, everything under $ZCAST_NO_DOORBELL=1) are armed one by one with
 * the wake-up handshake (read the word, announce, re-check, sleep on the value read first) and
 * slept on together (zc_mwait: futex_waitv, helpers beyond 128 words, or the fallback). Subscribers
 * of one topic share its notify word, even through different handles (mappings): words are told
 * apart by (control segment inode, which word), so the 128-word budget counts topics. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	zcast_pub *pub;          /* PUB_ROOM */
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
	uint32_t last_words;     /* futex words of the last sleep (zcast_waitset_last_words) */
	struct zc_mwait mw;
	struct zc_wword *words;
	uint64_t *keys; /* two per word */
	int32_t *hash;  /* open addressing, word index or -1 */
	uint32_t cap_words, cap_hash;
};

int zcast_waitset_create(zcast_waitset **out)
{
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	zcast_waitset *ws = calloc(1, sizeof *ws);
	if (!ws)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	zc_mwait_init(&ws->mw);
	const char *env = getenv("ZCAST_NO_DOORBELL");
	ws->no_bell = env && env[0] == '1';
	ws->solo_armed = -1;
	ws->quiet = -1;
	*out = ws;
	return 0;
}

/* Takes our doorbell out of the entry's subscriber record (only if it is still ours). */
static void unbell(struct ws_entry *e)
{
	if (!e->belled)
		return;
	e->belled = false;
	if (e->quiet) {
		e->quiet = false; /* withdrawn already (ws->quiet is checked against this flag) */
		return;
	}
	if (!zc_inherited(&e->sub->t)) {
		uint64_t ref = e->bell_ref;
		atomic_compare_exchange_strong(&e->sub->rec->bell, &ref, 0);
	}
}

/* Detaches a guard entry: from our doorbell (no trigger rings it through this entry afterwards) or
 * from the guard's count of wait sets without one. */
static void unlink_guard(struct ws_entry *e)
{
	if (e->belled) {
		zc_guard_unlink(e->guard, e->link);
		e->belled = false;
		e->link = NULL;
	} else {
		atomic_fetch_sub(&e->guard->classic, 1);
	}
}

/* Lets go of what an entry holds outside the wait set. */
static void release_entry(struct ws_entry *e)
{
	if (e->kind == ZCAST_WS_SUB)
		unbell(e); /* a stale bit of this id later only costs a check */
	else if (e->kind == ZCAST_WS_GUARD)
		unlink_guard(e);
}

void zcast_waitset_destroy(zcast_waitset *ws)
{
	if (!ws)
		return;
	for (int i = 0; i < ws->n; i++)
		release_entry(&ws->e[i]);
	zc_bell_destroy(&ws->bell);
	zc_mwait_fini(&ws->mw);
	free(ws->e);
	free(ws->others);
	free(ws->hot);
	free(ws->tmp);
	free(ws->words);
	free(ws->keys);
	free(ws->hash);
	free(ws);
}

/* The entries without the doorbell, in id order: what collect scans and arm arms one by one. */
static void rebuild_others(zcast_waitset *ws)
{
	ws->n_others = 0;
	for (int i = 0; i < ws->n; i++) {
		struct ws_entry *e = &ws->e[i];
		e->listed = e->kind && !e->belled;
		if (e->listed)
			ws->others[ws->n_others++] = i;
	}
	if (ws->cursor >= ws->n_others)
		ws->cursor = 0;
}

/* The entry whose reference is withdrawn, or NULL (ws->quiet may name an entry unbelled since). */
ZC_HOT static struct ws_entry *quiet_entry(const zcast_waitset *ws)
{
	int i = ws->quiet;
	return i >= 0 && i < ws->n && ws->e[i].quiet ? &ws->e[i] : NULL;
}

static bool unquieten(zcast_waitset *ws);

/* A free entry (reused ids first), with room for two more words per entry (a room entry sleeps on
 * two) and the doorbell's. */
static int new_entry(zcast_waitset *ws, int kind, void *user, int *id)
{
	if (!ws || !id)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	unquieten(ws); /* the lone subscription may be lone no more: its bits count again */
	int i = 0;
	while (i < ws->n && ws->e[i].kind)
		i++;
	if (i == ws->n) {
		if (ws->n == ws->cap) {
			int cap = ws->cap ? ws->cap * 2 : 16;
			struct ws_entry *ne = realloc(ws->e, (size_t)cap * sizeof *ne);
			if (ne)
				ws->e = ne;
			int *lists[3] = {ws->others, ws->hot, ws->tmp};
			for (int l = 0; l < 3; l++) {
				int *nl = realloc(lists[l], (size_t)cap * sizeof *nl);
				if (nl)
					lists[l] = nl;
				ne = nl ? ne : NULL;
			}
			ws->others = lists[0];
			ws->hot = lists[1];
			ws->tmp = lists[2];
			if (!ne)
				return zc_err(ZCAST_ENOMEM, "out of memory");
			ws->cap = cap;
		}
		ws->n++;
	}
	uint32_t need = 2u * (uint32_t)ws->n + 1; /* two words per entry (room), the doorbell's */
	if (need > ws->cap_words) {
		uint32_t cap = ws->cap_words ? ws->cap_words * 2 : 16;
		while (cap < need)
			cap *= 2;
		struct zc_wword *nw = realloc(ws->words, cap * sizeof *nw);
		if (nw)
			ws->words = nw;
		uint64_t *nk = realloc(ws->keys, 2 * (size_t)cap * sizeof *nk);
		if (nk)
			ws->keys = nk;
		int32_t *nh = realloc(ws->hash, 2 * (size_t)cap * sizeof *nh);
		if (nh)
			ws->hash = nh;
		if (!nw || !nk || !nh) {
			if (i == ws->n - 1)
				ws->n--;
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		ws->cap_words = cap;
		ws->cap_hash = 2 * cap;
	}
	struct ws_entry *e = &ws->e[i];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->enabled = true;
	e->user = user;
	*id = i;
	rebuild_others(ws);
	return 0;
}

static int topic_ino(struct zc_topic *t, uint64_t *ino)
{
	struct stat st;
	if (fstat(t->fd, &st) != 0)
		return zc_errno(ZCAST_ESYS, "fstat of the control segment");
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* Queues a belled entry for a check at the next collect. */
ZC_HOT static void make_hot(zcast_waitset *ws, struct ws_entry *e)
{
	if (e->hot)
		return;
	e->hot = true;
	ws->hot[ws->n_hot++] = (int)(e - ws->e);
}

/* Can entry `id` use our doorbell? It exists (made on first use) and the id fits its ready set. */
static bool bell_usable(zcast_waitset *ws, int id)
{
	if (ws->no_bell || (uint32_t)id >= ZC_BELL_BITS)
		return false;
	if (ws->bell.b && ws->bell.fork_gen != atomic_load(&zc_fork_generation))
		return false; /* inherited by a forked child: the doorbell is the parent's */
	if (!ws->bell.b && zc_bell_create(&ws->bell) < 0) {
		ws->no_bell = true; /* no doorbell (a full /dev/shm): every entry the classic way */
		return false;
	}
	return true;
}

/* Entry `id` now rings the doorbell: harvest and arm look at its ready word. */
static void bell_word_used(zcast_waitset *ws, int id)
{
	if ((uint32_t)id / 64 + 1 > ws->bell_words)
		ws->bell_words = (uint32_t)id / 64 + 1;
}

/* Attaches entry `id` (an enabled subscriber) to our doorbell if it can be: the doorbell is
 * usable, the topic is not shared with a group (the doorbell file is 0600: a publisher of another
 * uid could not ring it), and the record names no other wait set's doorbell. Otherwise the entry is
 * armed the classic way. */
static void try_bell(zcast_waitset *ws, int id)
{
	struct ws_entry *e = &ws->e[id];
	if ((e->sub->t.mode & 0077u) || zc_inherited(&e->sub->t) || !bell_usable(ws, id))
		return;
	uint64_t ref = zc_bell_ref(&ws->bell, (uint32_t)id), none = 0;
	if (!atomic_compare_exchange_strong(&e->sub->rec->bell, &none, ref))
		return;
	e->belled = true;
	e->bell_ref = ref;
	bell_word_used(ws, id);
	if (e->sub->slice_ns > 0 && (ws->slice_ns == 0 || e->sub->slice_ns < ws->slice_ns))
		ws->slice_ns = e->sub->slice_ns;
	make_hot(ws, e); /* messages queued before the reference was visible are found */
}

int zcast_waitset_add_sub(zcast_waitset *ws, zcast_sub *sub, void *user, int *id)
{
	if (!sub)
		return zc_err(ZCAST_EINVAL, "sub is NULL");
	uint64_t ino;
	int r = topic_ino(&sub->t, &ino);
	if (r < 0 || (r = new_entry(ws, ZCAST_WS_SUB, user, id)) < 0)
		return r;
	ws->e[*id].sub = sub;
	ws->e[*id].topic = &sub->t;
	ws->e[*id].ino = ino;
	try_bell(ws, *id);
	rebuild_others(ws);
	return 0;
}

/* Attaches guard entry `id` to our doorbell through a link (guard.c), or counts it among the
 * guard's wait sets without a doorbell (which share its `pending` flag). */
static void bell_guard(zcast_waitset *ws, int id)
{
	struct ws_entry *e = &ws->e[id];
	zcast_guard *g = e->guard;
	e->link = bell_usable(ws, id) ? zc_guard_link(g, ws->bell.b, (uint32_t)id) : NULL;
	if (!e->link) {
		atomic_fetch_add(&g->classic, 1);
		return;
	}
	e->belled = true;
	bell_word_used(ws, id);
	/* A trigger while the guard was attached nowhere is reported here, as the classic way
	 * does (unless wait sets without a doorbell share it: theirs). */
	if (!atomic_load(&g->classic) && atomic_exchange(&g->pending, 0))
		atomic_store(&e->link->fired, 1);
	make_hot(ws, e);
}

int zcast_waitset_add_guard(zcast_waitset *ws, zcast_guard *g, void *user, int *id)
{
	if (!g)
		return zc_err(ZCAST_EINVAL, "guard is NULL");
	int r = new_entry(ws, ZCAST_WS_GUARD, user, id);
	if (r == 0) {
		ws->e[*id].guard = g;
		bell_guard(ws, *id);
		rebuild_others(ws);
	}
	return r;
}

int zcast_waitset_add_timer(zcast_waitset *ws, int64_t period_ns, void *user, int *id)
{
	if (period_ns <= 0)
		return zc_err(ZCAST_EINVAL, "timer period %lld ns must be > 0", (long long)period_ns);
	int r = new_entry(ws, ZCAST_WS_TIMER, user, id);
	if (r == 0) {
		ws->e[*id].period = period_ns;
		ws->e[*id].next = zc_after(zc_now_ns(), period_ns);
	}
	return r;
}

static int add_graph(zcast_waitset *ws, struct zc_topic *t, void *user, int *id)
{
	uint64_t ino;
	int r = topic_ino(t, &ino);
	if (r < 0 || (r = new_entry(ws, ZCAST_WS_GRAPH, user, id)) < 0)
		return r;
	struct ws_entry *e = &ws->e[*id];
	e->topic = t;
	e->ino = ino;
	/* Reported relative to now: the caller reads the counts once after adding. */
	e->graph_seen = atomic_load(&t->hdr->graph);
	zc_deaths_rescan(t); /* the handle's death watch reports crashed peers (a graph change) */
	return 0;
}

int zcast_waitset_add_pub_graph(zcast_waitset *ws, zcast_pub *pub, void *user, int *id)
{
	if (!pub)
		return zc_err(ZCAST_EINVAL, "pub is NULL");
	return add_graph(ws, &pub->t, user, id);
}

int zcast_waitset_add_sub_graph(zcast_waitset *ws, zcast_sub *sub, void *user, int *id)
{
	if (!sub)
		return zc_err(ZCAST_EINVAL, "sub is NULL");
	return add_graph(ws, &sub->t, user, id);
}

int zcast_waitset_add_pub_room(zcast_waitset *ws, zcast_pub *pub, void *user, int *id)
{
	if (!pub)
		return zc_err(ZCAST_EINVAL, "pub is NULL");
	uint64_t ino;
	int r = topic_ino(&pub->t, &ino);
	if (r < 0 || (r = new_entry(ws, ZCAST_WS_PUB_ROOM, user, id)) < 0)
		return r;
	ws->e[*id].pub = pub;
	ws->e[*id].topic = &pub->t;
	ws->e[*id].ino = ino;
	return 0;
}

static struct ws_entry *entry(zcast_waitset *ws, int id)
{
	if (!ws) {
		zc_err(ZCAST_EINVAL, "wait set is NULL");
		return NULL;
	}
	if (id < 0 || id >= ws->n || !ws->e[id].kind) {
		zc_err(ZCAST_EINVAL, "no wait set entry %d", id);
		return NULL;
	}
	return &ws->e[id];
}

int zcast_waitset_remove(zcast_waitset *ws, int id)
{
	struct ws_entry *e = entry(ws, id);
	if (!e)
		return ZCAST_EINVAL;
	release_entry(e);
	if (e->hot) { /* e->hot <=> the id is in hot[] once: the id may be reused */
		int keep = 0;
		for (int j = 0; j < ws->n_hot; j++)
			if (ws->hot[j] != id)
				ws->hot[keep++] = ws->hot[j];
		ws->n_hot = keep;
		e->hot = false;
	}
	e->kind = 0;
	while (ws->n > 0 && !ws->e[ws->n - 1].kind)
		ws->n--;
	rebuild_others(ws);
	return 0;
}

int zcast_waitset_enable(zcast_waitset *ws, int id, int enabled)
{
	struct ws_entry *e = entry(ws, id);
	if (!e)
		return ZCAST_EINVAL;
	if (e->enabled == (enabled != 0))
		return 0;
	e->enabled = enabled != 0;
	if (e->enabled)
		unquieten(ws); /* as in new_entry */
	/* A disabled subscriber leaves the doorbell (publishers skip it); enabled, it rejoins. The
	 * list of the others changes only if it cannot (executors toggle entries per dispatch). */
	if (e->kind == ZCAST_WS_GUARD && e->belled && e->enabled) {
		make_hot(ws, e); /* triggers while disabled left `fired` set */
	} else if (e->kind == ZCAST_WS_SUB) {
		if (!e->enabled) {
			unbell(e);
		} else {
			try_bell(ws, id);
			if (!e->belled && !e->listed)
				rebuild_others(ws);
		}
	}
	return 0;
}

/* Moves the doorbell's ready set into hot[]: the bits are taken, each entry is checked once. A
 * bit set after the exchange stays for the next round. */
ZC_HOT static void harvest(zcast_waitset *ws)
{
	/* Quiet (arm_solo): the lone entry is checked by disarm and arm, a bit set meanwhile is a
	 * stale ring; the bits wait until the doorbell is used again. */
	if (!ws->bell.b || quiet_entry(ws))
		return;
	_Atomic uint64_t *bits = ws->bell.b->hdr->bits;
	for (uint32_t w = 0; w < ws->bell_words; w++) {
		if (!atomic_load_explicit(&bits[w], memory_order_relaxed))
			continue;
		uint64_t x = atomic_exchange_explicit(&bits[w], 0, memory_order_seq_cst);
		while (x) {
			int id = (int)(w * 64 + (uint32_t)__builtin_ctzll(x));
			x &= x - 1;
			if (id >= ws->n)
				continue; /* removed since */
			struct ws_entry *e = &ws->e[id];
			if (e->kind == ZCAST_WS_SUB && e->belled && !e->hot) {
				/* A ring may mean a peer joined: its death must be watched too. */
				zc_deaths_rescan(&e->sub->t);
				make_hot(ws, e);
			} else if (e->kind == ZCAST_WS_GUARD && e->belled) {
				make_hot(ws, e); /* `fired` tells (a stale bit finds it clear) */
			}
		}
	}
}

ZC_HOT static void report(zcast_ws_event *ev, int *k, struct ws_entry *e, int id)
{
	ev[*k].kind = e->kind;
	ev[*k].id = id;
	ev[*k].user = e->user;
	(*k)++;
}

/* Takes a belled guard's trigger: true once per trigger (or several triggers in between). */
static bool guard_fired(struct ws_entry *e)
{
	struct zc_guard_link *l = e->link;
	if (!atomic_load_explicit(&l->fired, memory_order_relaxed) ||
	    !atomic_exchange_explicit(&l->fired, 0, memory_order_seq_cst))
		return false;
	/* The classic flag is only for wait sets without a doorbell; none: it is stale now. */
	if (!atomic_load(&e->guard->classic))
		atomic_store(&e->guard->pending, 0);
	return true;
}

/* The hot entries, oldest first: a ready subscriber is reported and goes to the back
 * (level-triggered: checked again next time), a fired guard is reported and leaves (once per
 * trigger), an entry not ready leaves; beyond `max` they wait in front. */
ZC_HOT static int collect_hot(zcast_waitset *ws, zcast_ws_event *ev, int k, int max)
{
	int keep = 0, done = 0;
	for (int j = 0; j < ws->n_hot; j++) {
		int id = ws->hot[j];
		struct ws_entry *e = &ws->e[id];
		if (k >= max) {
			ws->hot[keep++] = id;
		} else if (e->kind == ZCAST_WS_SUB && e->belled && e->enabled &&
			   zc_sub_ready(e->sub)) { /* at max_held it waits for a release */
			report(ev, &k, e, id);
			ws->tmp[done++] = id;
		} else if (e->kind == ZCAST_WS_GUARD && e->belled && e->enabled && guard_fired(e)) {
			report(ev, &k, e, id);
			e->hot = false;
		} else {
			e->hot = false;
		}
	}
	memcpy(ws->hot + keep, ws->tmp, (size_t)done * sizeof *ws->tmp);
	ws->n_hot = keep + done;
	return k;
}

/* The entries without the doorbell, starting at the cursor. Consumes what it reports (guard
 * pending, timer expiry, graph value); a subscriber stays ready while messages are queued. */
ZC_HOT static int collect_others(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int k, int max)
{
	int last = -1, n = ws->n_others;
	for (int j = 0; j < n && k < max; j++) {
		int o = (ws->cursor + j) % n, i = ws->others[o];
		struct ws_entry *e = &ws->e[i];
		if (!e->enabled || e->belled)
			continue;
		bool ready = false;
		switch (e->kind) {
		case ZCAST_WS_SUB:
			ready = zc_sub_ready(e->sub);
			break;
		case ZCAST_WS_GUARD:
			ready = atomic_load(&e->guard->pending) &&
				atomic_exchange(&e->guard->pending, 0);
			break;
		case ZCAST_WS_TIMER:
			if (now >= e->next) {
				ready = true;
				/* Stay on the grid; expiries missed while nobody waited are reported once. */
				e->next = zc_after(e->next,
						   e->period * ((now - e->next) / e->period + 1));
			}
			break;
		case ZCAST_WS_GRAPH: {
			uint32_t g = atomic_load_explicit(&e->topic->hdr->graph, memory_order_seq_cst);
			if (g != e->graph_seen) {
				e->graph_seen = g;
				ready = true;
				zc_deaths_rescan(e->topic); /* new peers get a pidfd */
			}
			break;
		}
		case ZCAST_WS_PUB_ROOM:
			ready = zc_pub_has_room(e->pub);
			break;
		}
		if (ready) {
			report(ev, &k, e, i);
			last = o;
		}
	}
	if (last >= 0)
		ws->cursor = (last + 1) % n;
	return k;
}

/* Reports ready entries: the doorbell's and the others, taking turns at going first. */
ZC_HOT static int collect(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int max)
{
	harvest(ws);
	int k = 0;
	ws->hot_first = !ws->hot_first;
	if (ws->hot_first) {
		k = collect_hot(ws, ev, k, max);
		k = collect_others(ws, now, ev, k, max);
	} else {
		k = collect_others(ws, now, ev, k, max);
		k = collect_hot(ws, ev, k, max);
	}
	return k;
}

static uint32_t hash_key(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a << 6));
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

/* Adds a word unless an identical one (same key) is in already. The index is built only when a
 * second word comes: a wait on one word (a doorbell, a lone subscription) never touches it. */
ZC_HOT static void add_word(zcast_waitset *ws, uint32_t *n, uint64_t ka, uint64_t kb,
			    _Atomic uint32_t *w, uint32_t val, uint32_t is_private)
{
	uint32_t mask = ws->cap_hash - 1, h = hash_key(ka, kb) & mask;
	if (*n == 1) {
		memset(ws->hash, 0xff, ws->cap_hash * sizeof *ws->hash);
		uint32_t h0 = hash_key(ws->keys[0], ws->keys[1]) & mask;
		ws->hash[h0] = 0;
	}
	for (; *n > 0; h = (h + 1) & mask) {
		int32_t j = ws->hash[h];
		if (j < 0)
			break;
		if (ws->keys[2 * j] == ka && ws->keys[2 * j + 1] == kb)
			return; /* same futex: the first value read is the one we sleep on */
	}
	if (*n > 0)
		ws->hash[h] = (int32_t)*n;
	ws->keys[2 * *n] = ka;
	ws->keys[2 * *n + 1] = kb;
	ws->words[*n] = (struct zc_wword){w, val, is_private};
	(*n)++;
}

ZC_HOT static void disarm(zcast_waitset *ws)
{
	if (ws->solo_armed >= 0) {
		struct ws_entry *e = &ws->e[ws->solo_armed];
		ws->solo_armed = -1;
		e->armed = false;
		zc_sub_disarm(e->sub);
		make_hot(ws, e); /* woken by its topic word: no bit tells */
	}
	if (ws->bell_armed) {
		ws->bell_armed = false;
		atomic_store_explicit(&ws->bell.b->hdr->sleeping, 0, memory_order_seq_cst);
	}
	for (int j = 0; j < ws->n_others; j++) {
		struct ws_entry *e = &ws->e[ws->others[j]];
		if (!e->armed)
			continue;
		e->armed = false;
		if (e->kind == ZCAST_WS_SUB)
			zc_sub_disarm(e->sub);
		else if (e->kind == ZCAST_WS_GUARD)
			atomic_fetch_sub_explicit(&e->guard->waiters, 1, memory_order_seq_cst);
		else if (e->kind == ZCAST_WS_GRAPH)
			atomic_fetch_sub_explicit(&e->topic->hdr->graph_waiters, 1, memory_order_seq_cst);
		else if (e->kind == ZCAST_WS_PUB_ROOM)
			zc_room_disarm(e->pub);
	}
}

/* Announces the sleep on the doorbell: read the word, start this sleep's `woken` epoch, set
 * `sleeping`, then look at the ready set once more (a publisher sets its bit, then reads
 * `sleeping`: one of us sees the other). The epoch starts after the read: a ringer that claims it
 * bumps the word after our read too, and a claim or delivery of an earlier sleep (a late CAS)
 * cannot count for this one. Returns false (disarmed) when a bit is set. */
ZC_HOT static bool arm_bell(zcast_waitset *ws, uint32_t *n, int64_t *until)
{
	struct zc_bell_hdr *h = ws->bell.b->hdr;
	uint32_t v = atomic_load_explicit(&h->word, memory_order_seq_cst);
	ws->bell_epoch++;
	atomic_store_explicit(&h->woken, ZC_BELL_WOKEN(ws->bell_epoch, ZC_BELL_FREE),
			      memory_order_seq_cst);
	atomic_store_explicit(&h->sleeping, 1, memory_order_seq_cst);
	ws->bell_armed = true;
	for (uint32_t w = 0; w < ws->bell_words; w++)
		if (atomic_load_explicit(&h->bits[w], memory_order_seq_cst))
			return false;
	if (ws->slice_ns > 0) { /* the shortest last-resort slice of a belled subscriber */
		int64_t slice = zc_after(zc_now_ns(), ws->slice_ns);
		if (*until < 0 || *until > slice)
			*until = slice;
	}
	add_word(ws, n, 0, (uint64_t)(uintptr_t)&h->word, &h->word, v, 0);
	return true;
}

/* The only enabled belled entry, when it is a broadcast subscription; else -1. Such a wait set
 * sleeps on the topic word instead of its doorbell: one word either way, and S processes that
 * each wait for one subscription of a topic are woken by one FUTEX_WAKE of the publisher, not S
 * (the doorbell still gets its bit: the next collect checks the entry). Stops at the second. */
ZC_HOT static int solo_sub(const zcast_waitset *ws)
{
	int found = -1;
	for (int i = 0; i < ws->n; i++) {
		const struct ws_entry *e = &ws->e[i];
		if (!e->kind || !e->belled || !e->enabled)
			continue;
		if (found >= 0 || e->kind != ZCAST_WS_SUB ||
		    e->sub->policy == ZCAST_POLICY_BALANCE_RR)
			return -1;
		found = i;
	}
	return found;
}

/* While the wait set sleeps on a lone subscription's topic word, that entry's bit and our doorbell
 * tell nothing the word does not: its reference is withdrawn from the record, so that a publisher
 * does not ring S doorbells for S such wait sets (one syscall wakes them all, as for zcast_wait).
 * Only our process writes the record's reference; a publisher that read it before still rings,
 * which costs a check. */
static void quieten(zcast_waitset *ws, int i)
{
	struct ws_entry *e = &ws->e[i];
	if (e->quiet || zc_inherited(&e->sub->t))
		return;
	uint64_t ref = e->bell_ref;
	if (!atomic_compare_exchange_strong(&e->sub->rec->bell, &ref, 0))
		return;
	e->quiet = true;
	ws->quiet = i;
}

/* The withdrawn reference back, before the wait set sleeps on its doorbell again. True if it was
 * withdrawn: the entry is checked first (messages queued meanwhile rang nothing). */
static bool unquieten(zcast_waitset *ws)
{
	struct ws_entry *e = quiet_entry(ws);
	ws->quiet = -1;
	if (!e)
		return false;
	e->quiet = false;
	uint64_t none = 0;
	if (!atomic_compare_exchange_strong(&e->sub->rec->bell, &none, e->bell_ref)) {
		/* Another wait set of this process took the record meanwhile: armed the classic
		 * way from now on, as try_bell does when the record names another doorbell. */
		e->belled = false;
		rebuild_others(ws);
		return true;
	}
	make_hot(ws, e);
	return true;
}

/* Arms the lone subscription the way an entry without the doorbell is armed. False: ready. */
ZC_HOT static bool arm_solo(zcast_waitset *ws, int i, uint32_t *n, int64_t *until)
{
	struct ws_entry *e = &ws->e[i];
	_Atomic uint32_t *w;
	uint32_t v;
	if (ws->quiet != i && unquieten(ws))
		return false; /* another entry was the lone one: look at it first */
	quieten(ws, i);
	zc_deaths_rescan(&e->sub->t); /* a publisher dying owing us a wake is seen */
	if (!zc_sub_arm(e->sub, &w, &v)) {
		make_hot(ws, e); /* ready: with the reference withdrawn no bit says so */
		return false;
	}
	if (e->sub->slice_ns > 0) /* the optional slice: the only reason to read the clock here */
		*until = zc_sub_sleep_until(e->sub, *until, zc_now_ns());
	e->armed = true;
	ws->solo_armed = i;
	add_word(ws, n, e->ino, KEY_NOTIFY, w, v, 0);
	return true;
}

/* Arms the doorbell and every enabled entry without it. Returns false (all disarmed) when one
 * turned out ready meanwhile. */
ZC_HOT static bool arm(zcast_waitset *ws, uint32_t *n_words, int64_t *until)
{
	uint32_t n = 0;
	if (ws->bell.b && ws->bell_words) {
		int solo = solo_sub(ws);
		if (solo < 0 && unquieten(ws))
			goto ready; /* the lone entry's messages since it was quiet rang nothing */
		if (solo >= 0 ? !arm_solo(ws, solo, &n, until) : !arm_bell(ws, &n, until))
			goto ready;
	}
	for (int j = 0; j < ws->n_others; j++) {
		struct ws_entry *e = &ws->e[ws->others[j]];
		if (!e->enabled || e->belled)
			continue;
		_Atomic uint32_t *w;
		uint32_t v;
		switch (e->kind) {
		case ZCAST_WS_SUB:
			zc_deaths_rescan(
			    &e->sub->t); /* a publisher dying owing us a wake is seen */
			if (!zc_sub_arm(e->sub, &w, &v))
				goto ready;
			if (e->sub->slice_ns > 0) /* the optional slice */
				*until = zc_sub_sleep_until(e->sub, *until, zc_now_ns());
			e->armed = true;
			if (e->sub->policy == ZCAST_POLICY_BALANCE_RR)
				add_word(ws, &n, e->ino, KEY_RR + (uint64_t)e->sub->index, w, v, 0);
			else
				add_word(ws, &n, e->ino, KEY_NOTIFY, w, v, 0);
			break;
		case ZCAST_WS_GUARD:
			w = &e->guard->word;
			v = atomic_load_explicit(w, memory_order_seq_cst);
			atomic_fetch_add_explicit(&e->guard->waiters, 1, memory_order_seq_cst);
			e->armed = true;
			if (atomic_load_explicit(&e->guard->pending, memory_order_seq_cst))
				goto ready;
			add_word(ws, &n, 0, (uint64_t)(uintptr_t)w, w, v, 1);
			break;
		case ZCAST_WS_GRAPH:
			w = &e->topic->hdr->graph;
			v = atomic_load_explicit(w, memory_order_seq_cst);
			atomic_fetch_add_explicit(&e->topic->hdr->graph_waiters, 1, memory_order_seq_cst);
			e->armed = true;
			if (atomic_load_explicit(w, memory_order_seq_cst) != e->graph_seen)
				goto ready;
			add_word(ws, &n, e->ino, KEY_GRAPH, w, v, 0);
			break;
		case ZCAST_WS_PUB_ROOM: {
			struct zc_wword rw[2];
			if (!zc_room_arm(e->pub, rw))
				goto ready;
			e->armed = true;
			add_word(ws, &n, e->ino, KEY_SPACE, rw[0].word, rw[0].val, 0);
			add_word(ws, &n, e->pub->pool->ino, KEY_FREED, rw[1].word, rw[1].val, 0);
			break;
		}
		case ZCAST_WS_TIMER:
			if (*until < 0 || e->next < *until)
				*until = e->next;
			break;
		}
	}
	*n_words = n;
	return true;
ready:
	disarm(ws);
	return false;
}

/* The quiet lone subscription (arm_solo) when it is all the wait set has: no timer, guard, graph,
 * room or unbelled entry, nothing else enabled. Else NULL. */
ZC_HOT static struct ws_entry *only_quiet_sub(const zcast_waitset *ws)
{
	struct ws_entry *e = quiet_entry(ws);
	if (!e || !e->enabled || ws->n_others || solo_sub(ws) != ws->quiet ||
	    zc_inherited(&e->sub->t))
		return NULL;
	return e;
}

/* A wait for the quiet lone subscription alone is zcast_wait's: its topic word, armed and slept on
 * directly. Its state stays as arm_solo left it (reference withdrawn, entry hot or not): any change
 * to the wait set ends the quiet state through the general path, which checks the entry first.
 * The general collect and arm would only read more cold lines after every wake-up (entry lists,
 * word arrays, the clock): fan-out to S such processes pays them S times per message. */
ZC_HOT static int wait_solo(zcast_waitset *ws, struct ws_entry *e, int64_t timeout_ns,
			    zcast_ws_event *ev)
{
	zcast_sub *s = e->sub;
	const int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	for (;;) {
		if (zc_sub_ready(s)) {
			int k = 0;
			report(ev, &k, e, (int)(e - ws->e));
			return k;
		}
		if (deadline >= 0 && zc_now_ns() >= deadline)
			return ZCAST_ETIMEDOUT;
		zc_deaths_rescan(&s->t); /* a publisher dying owing us a wake is seen */
		_Atomic uint32_t *w;
		uint32_t v;
		if (!zc_sub_arm(s, &w, &v))
			continue; /* ready meanwhile (disarmed) */
		int64_t until = deadline;
		if (s->slice_ns >
		    0) /* the optional slice: the only reason to read the clock here */
			until = zc_sub_sleep_until(s, until, zc_now_ns());
		ws->last_words = 1;
		zc_futex_wait(w, v, until);
		zc_sub_disarm(s);
	}
}

ZC_HOT int zcast_waitset_wait(zcast_waitset *ws, int64_t timeout_ns, zcast_ws_event *events,
			      int max)
{
	if (!ws || !events || max <= 0)
		return zc_err(ZCAST_EINVAL, "wait set, events and max > 0 are required");
	struct ws_entry *solo = only_quiet_sub(ws);
	if (solo)
		return wait_solo(ws, solo, timeout_ns, events);
	int64_t now = zc_now_ns();
	const int64_t deadline = timeout_ns < 0 ? -1 : zc_after(now, timeout_ns);
	for (;;) {
		int k = collect(ws, now, events, max);
		if (k > 0)
			return k;
		if (deadline >= 0 && now >= deadline)
			return ZCAST_ETIMEDOUT;
		int64_t until = deadline;
		uint32_t n;
		if (arm(ws, &n, &until)) {
			ws->last_words = n;
			int r = zc_mwait_wait(&ws->mw, ws->words, n, until);
			disarm(ws);
			if (r < 0 && r != ZCAST_ETIMEDOUT)
				return r;
		}
		now = zc_now_ns(); /* timers compare against a clock read after the sleep: never early */
	}
}

int zcast_waitset_last_words(const zcast_waitset *ws)
{
	return ws ? (int)ws->last_words : zc_err(ZCAST_EINVAL, "wait set is NULL");
}

int zcast_doorbell_gc(void)
{
	return zc_bell_sweep();
}
