/* Wait sets: wait for many subscribers, guards, timers and graph words in one call
 * (docs/WAITSETS.md).
 *
 * One wait: scan for ready entries; if none, arm every enabled entry with the wake-up handshake
 * (read the word, announce, re-check, sleep on the value read first), sleep on the distinct words
 * (zc_mwait: futex_waitv, helpers beyond 128 words, or the fallback), disarm, scan again.
 * Subscribers of one topic share its notify word, even through different handles (mappings): words
 * are told apart by (control segment inode, which word), so the 128-word budget counts topics. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wait_internal.h"

enum { KEY_NOTIFY = 0, KEY_GRAPH = 1, KEY_RR = 2 /* + sub index */ };
#define KEY_SPACE (UINT64_MAX - 1) /* room entries: the topic's space word ... */
#define KEY_FREED (UINT64_MAX - 2) /* ... and the pool's freed word (keyed by the pool's inode) */

struct ws_entry {
	int kind; /* enum zcast_ws_kind; 0 = free */
	bool enabled, armed;
	void *user;
	zcast_sub *sub;          /* SUB */
	zcast_guard *guard;      /* GUARD */
	zcast_pub *pub;          /* PUB_ROOM */
	struct zc_topic *topic;  /* SUB, GRAPH */
	uint64_t ino;            /* control segment inode: identifies shared words across mappings */
	uint32_t graph_seen;     /* GRAPH: value last reported */
	int64_t period, next;    /* TIMER */
};

struct zcast_waitset {
	struct ws_entry *e;
	int n, cap; /* entries in use are e[0 .. n-1] with kind != 0 */
	int cursor; /* scan start: after the last reported entry (fairness) */
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
	*out = ws;
	return 0;
}

void zcast_waitset_destroy(zcast_waitset *ws)
{
	if (!ws)
		return;
	zc_mwait_fini(&ws->mw);
	free(ws->e);
	free(ws->words);
	free(ws->keys);
	free(ws->hash);
	free(ws);
}

/* A free entry (reused ids first), with room for two more words per entry. */
static int new_entry(zcast_waitset *ws, int kind, void *user, int *id)
{
	if (!ws || !id)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	int i = 0;
	while (i < ws->n && ws->e[i].kind)
		i++;
	if (i == ws->n) {
		if (ws->n == ws->cap) {
			int cap = ws->cap ? ws->cap * 2 : 16;
			struct ws_entry *ne = realloc(ws->e, (size_t)cap * sizeof *ne);
			if (!ne)
				return zc_err(ZCAST_ENOMEM, "out of memory");
			ws->e = ne;
			ws->cap = cap;
		}
		ws->n++;
	}
	uint32_t need = 2u * (uint32_t)ws->n; /* a room entry sleeps on two words */
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
	return 0;
}

int zcast_waitset_add_guard(zcast_waitset *ws, zcast_guard *g, void *user, int *id)
{
	if (!g)
		return zc_err(ZCAST_EINVAL, "guard is NULL");
	int r = new_entry(ws, ZCAST_WS_GUARD, user, id);
	if (r == 0)
		ws->e[*id].guard = g;
	return r;
}

int zcast_waitset_add_timer(zcast_waitset *ws, int64_t period_ns, void *user, int *id)
{
	if (period_ns <= 0)
		return zc_err(ZCAST_EINVAL, "timer period %lld ns must be > 0", (long long)period_ns);
	int r = new_entry(ws, ZCAST_WS_TIMER, user, id);
	if (r == 0) {
		ws->e[*id].period = period_ns;
		ws->e[*id].next = zc_now_ns() + period_ns;
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
	if (!ws || id < 0 || id >= ws->n || !ws->e[id].kind) {
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
	e->kind = 0;
	while (ws->n > 0 && !ws->e[ws->n - 1].kind)
		ws->n--;
	if (ws->cursor >= ws->n)
		ws->cursor = 0;
	return 0;
}

int zcast_waitset_enable(zcast_waitset *ws, int id, int enabled)
{
	struct ws_entry *e = entry(ws, id);
	if (!e)
		return ZCAST_EINVAL;
	e->enabled = enabled != 0;
	return 0;
}

/* Reports ready entries, starting at the cursor. Consumes what it reports (guard pending, timer
 * expiry, graph value); a subscriber stays ready while messages are queued. */
static int collect(zcast_waitset *ws, int64_t now, zcast_ws_event *ev, int max)
{
	int k = 0, last = -1, n = ws->n;
	for (int j = 0; j < n && k < max; j++) {
		int i = (ws->cursor + j) % n;
		struct ws_entry *e = &ws->e[i];
		if (!e->kind || !e->enabled)
			continue;
		bool ready = false;
		switch (e->kind) {
		case ZCAST_WS_SUB:
			ready = zc_sub_ready(e->sub); /* at max_held it waits for a release */
			break;
		case ZCAST_WS_GUARD:
			ready = atomic_load(&e->guard->pending) &&
				atomic_exchange(&e->guard->pending, 0);
			break;
		case ZCAST_WS_TIMER:
			if (now >= e->next) {
				ready = true;
				/* Stay on the grid; expiries missed while nobody waited are reported once. */
				e->next += e->period * ((now - e->next) / e->period + 1);
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
			ev[k].kind = e->kind;
			ev[k].id = i;
			ev[k].user = e->user;
			k++;
			last = i;
		}
	}
	if (k)
		ws->cursor = (last + 1) % n;
	return k;
}

static uint32_t hash_key(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a << 6));
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

/* Adds a word unless an identical one (same key) is in already. */
static void add_word(zcast_waitset *ws, uint32_t *n, uint64_t ka, uint64_t kb, _Atomic uint32_t *w,
		     uint32_t val, uint32_t is_private)
{
	uint32_t mask = ws->cap_hash - 1, h = hash_key(ka, kb) & mask;
	for (;; h = (h + 1) & mask) {
		int32_t j = ws->hash[h];
		if (j < 0)
			break;
		if (ws->keys[2 * j] == ka && ws->keys[2 * j + 1] == kb)
			return; /* same futex: the first value read is the one we sleep on */
	}
	ws->hash[h] = (int32_t)*n;
	ws->keys[2 * *n] = ka;
	ws->keys[2 * *n + 1] = kb;
	ws->words[*n] = (struct zc_wword){w, val, is_private};
	(*n)++;
}

static void disarm(zcast_waitset *ws)
{
	for (int i = 0; i < ws->n; i++) {
		struct ws_entry *e = &ws->e[i];
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

/* Arms every enabled entry. Returns false (all disarmed) when one turned out ready meanwhile. */
static bool arm(zcast_waitset *ws, uint32_t *n_words, int64_t *until)
{
	uint32_t n = 0;
	memset(ws->hash, 0xff, ws->cap_hash * sizeof *ws->hash);
	for (int i = 0; i < ws->n; i++) {
		struct ws_entry *e = &ws->e[i];
		if (!e->kind || !e->enabled)
			continue;
		_Atomic uint32_t *w;
		uint32_t v;
		switch (e->kind) {
		case ZCAST_WS_SUB:
			zc_deaths_rescan(
			    &e->sub->t); /* a publisher dying owing us a wake is seen */
			if (!zc_sub_arm(e->sub, &w, &v))
				goto ready;
			*until =
			    zc_sub_sleep_until(e->sub, *until, zc_now_ns()); /* optional slice */
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

int zcast_waitset_wait(zcast_waitset *ws, int64_t timeout_ns, zcast_ws_event *events, int max)
{
	if (!ws || !events || max <= 0)
		return zc_err(ZCAST_EINVAL, "wait set, events and max > 0 are required");
	int64_t now = zc_now_ns();
	const int64_t deadline = timeout_ns < 0 ? -1 : now + timeout_ns;
	for (;;) {
		int k = collect(ws, now, events, max);
		if (k > 0)
			return k;
		if (deadline >= 0 && now >= deadline)
			return ZCAST_ETIMEDOUT;
		int64_t until = deadline;
		uint32_t n;
		if (arm(ws, &n, &until)) {
			int r = zc_mwait_wait(&ws->mw, ws->words, n, until);
			disarm(ws);
			if (r < 0 && r != ZCAST_ETIMEDOUT)
				return r;
		}
		now = zc_now_ns(); /* timers compare against a clock read after the sleep: never early */
	}
}
