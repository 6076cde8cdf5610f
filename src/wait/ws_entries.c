/* Adding, removing, enabling and disabling wait set entries; a subscriber or guard is put on the
 * wait set's doorbell when it can be (waitset.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waitset_internal.h"

int ws_words_reserve(zcast_waitset *ws, uint32_t need)
{
	if (need <= ws->cap_words)
		return 0;
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
	if (!nw || !nk || !nh)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	ws->cap_words = cap;
	ws->cap_hash = 2 * cap;
	return 0;
}

static int new_entry(zcast_waitset *ws, int kind, void *user, int *id)
{
	if (!ws || !id)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	ws_unquieten(ws); /* the lone subscription may be lone no more: its bits count again */
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
	if (ws_words_reserve(ws, 2u * (uint32_t)ws->n + 1) < 0) { /* two per room entry, the bell */
		if (i == ws->n - 1)
			ws->n--;
		return ZCAST_ENOMEM;
	}
	struct ws_entry *e = &ws->e[i];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->enabled = true;
	e->user = user;
	*id = i;
	ws_rebuild_others(ws);
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
	/* SYNC: bell-ref; partner core/publish.c wake_after_push */
	if (!atomic_compare_exchange_strong(&e->sub->rec->bell, &none, ref))
		return;
	e->belled = true;
	e->bell_ref = ref;
	bell_word_used(ws, id);
	if (e->sub->slice_ns > 0 && (ws->slice_ns == 0 || e->sub->slice_ns < ws->slice_ns))
		ws->slice_ns = e->sub->slice_ns;
	ws_make_hot(ws, e); /* messages queued before the reference was visible are found */
}

int zcast_waitset_add_sub(zcast_waitset *ws, zcast_sub *sub, void *user, int *id)
{
	if (!sub)
		return zc_err(ZCAST_EINVAL, "sub is NULL");
	uint64_t ino = 0; /* set on success; gcc -fsanitize=address alone cannot see that */
	int r = topic_ino(&sub->t, &ino);
	if (r < 0 || (r = new_entry(ws, ZCAST_WS_SUB, user, id)) < 0)
		return r;
	ws->e[*id].sub = sub;
	ws->e[*id].topic = &sub->t;
	ws->e[*id].ino = ino;
	try_bell(ws, *id);
	ws_rebuild_others(ws);
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
	ws_make_hot(ws, e);
}

int zcast_waitset_add_guard(zcast_waitset *ws, zcast_guard *g, void *user, int *id)
{
	if (!g)
		return zc_err(ZCAST_EINVAL, "guard is NULL");
	int r = new_entry(ws, ZCAST_WS_GUARD, user, id);
	if (r == 0) {
		ws->e[*id].guard = g;
		bell_guard(ws, *id);
		ws_rebuild_others(ws);
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
	uint64_t ino = 0; /* set on success; gcc -fsanitize=address alone cannot see that */
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
	uint64_t ino = 0; /* set on success; gcc -fsanitize=address alone cannot see that */
	int r = topic_ino(&pub->t, &ino);
	if (r < 0 || (r = new_entry(ws, ZCAST_WS_PUB_ROOM, user, id)) < 0)
		return r;
	ws->e[*id].pub = pub;
	ws->e[*id].topic = &pub->t;
	ws->e[*id].ino = ino;
	return 0;
}

int zc_waitset_add_room_src(zcast_waitset *ws, const struct zc_room_src *src, void *user, int *id)
{
	int r = new_entry(ws, ZCAST_WS_PUB_ROOM, user, id);
	if (r == 0)
		ws->e[*id].src = src;
	return r;
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
	ws_release_entry(e);
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
	ws_rebuild_others(ws);
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
		ws_unquieten(ws); /* as in new_entry */
	/* A disabled subscriber leaves the doorbell (publishers skip it); enabled, it rejoins. The
	 * list of the others changes only if it cannot (executors toggle entries per dispatch). */
	if (e->kind == ZCAST_WS_GUARD && e->belled && e->enabled) {
		ws_make_hot(ws, e); /* triggers while disabled left `fired` set */
	} else if (e->kind == ZCAST_WS_SUB) {
		if (!e->enabled) {
			ws_unbell(e);
		} else {
			try_bell(ws, id);
			if (!e->belled && !e->listed)
				ws_rebuild_others(ws);
		}
	}
	return 0;
}

/* Moves the doorbell's ready set into hot[]: the bits are taken, each entry is checked once. A
 * bit set after the exchange stays for the next round. */
