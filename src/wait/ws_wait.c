/* A wait: arming the words to sleep on (the doorbell, or each entry's word with the wake-up
 * handshake, one word per topic and kind), sleeping, and the one-subscriber fast path (waitset.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waitset_internal.h"

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
	for (int j = 0; j < ws->n_others; j++) { /* looked up, never armed: let go of them */
		struct ws_entry *e = &ws->e[ws->others[j]];
		if (e->src && !e->armed)
			ws_set_disarm(e);
	}
	if (ws->solo_armed >= 0) {
		struct ws_entry *e = &ws->e[ws->solo_armed];
		ws->solo_armed = -1;
		e->armed = false;
		zc_sub_disarm(e->sub);
		ws_make_hot(ws, e); /* woken by its topic word: no bit tells */
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
		else if (e->kind == ZCAST_WS_PUB_ROOM && e->src)
			ws_set_disarm(e); /* and lets go of its publishers */
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
	/* SYNC: bell-claim; partner proto/doorbell.h zc_bell_must_wake */
	atomic_store_explicit(&h->woken, ZC_BELL_WOKEN(ws->bell_epoch, ZC_BELL_FREE),
			      memory_order_seq_cst);
	/* SYNC: bell-ring; partner proto/doorbell.h zc_bell_set */
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
bool ws_unquieten(zcast_waitset *ws)
{
	struct ws_entry *e = ws_quiet_entry(ws);
	ws->quiet = -1;
	if (!e)
		return false;
	e->quiet = false;
	uint64_t none = 0;
	if (!atomic_compare_exchange_strong(&e->sub->rec->bell, &none, e->bell_ref)) {
		/* Another wait set of this process took the record meanwhile: armed the classic
		 * way from now on, as try_bell does when the record names another doorbell. */
		e->belled = false;
		ws_rebuild_others(ws);
		return true;
	}
	ws_make_hot(ws, e);
	return true;
}

/* Arms the lone subscription the way an entry without the doorbell is armed. False: ready. */
ZC_HOT static bool arm_solo(zcast_waitset *ws, int i, uint32_t *n, int64_t *until)
{
	struct ws_entry *e = &ws->e[i];
	_Atomic uint32_t *w;
	uint32_t v;
	if (ws->quiet != i && ws_unquieten(ws))
		return false; /* another entry was the lone one: look at it first */
	quieten(ws, i);
	zc_deaths_rescan(&e->sub->t); /* a publisher dying owing us a wake is seen */
	if (!zc_sub_arm(e->sub, &w, &v)) {
		ws_make_hot(ws, e); /* ready: with the reference withdrawn no bit says so */
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
		if (solo < 0 && ws_unquieten(ws))
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
			/* SYNC: guard-wait; partner wait/guard.c zcast_guard_trigger */
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
			if (e->src) {
				e->armed = true; /* what it armed is disarmed: n_set_armed */
				if (!ws_set_arm(e))
					goto ready;
				for (uint32_t k = 0; k < 3 * e->n_set; k++) /* keyed by address */
					add_word(ws, &n, 0, (uint64_t)(uintptr_t)e->set_words[k].word,
						 e->set_words[k].word, e->set_words[k].val, 0);
				if (e->src->grown) /* one more, named after the look-up */
					add_word(ws, &n, 0, (uint64_t)(uintptr_t)e->src->grown,
						 e->src->grown, e->grown_seen, 1);
				break;
			}
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

/* The publishers of the enabled set entries (room_set.c), looked up before arming, and room for
 * their words: a set grows between sleeps (a server's route refused room). */
static int prepare_sets(zcast_waitset *ws)
{
	uint32_t need = 2u * (uint32_t)ws->n + 1;
	for (int j = 0; j < ws->n_others; j++) {
		struct ws_entry *e = &ws->e[ws->others[j]];
		if (!e->src || !e->enabled)
			continue;
		if (!ws_set_snapshot(e)) {
			disarm(ws);
			return zc_err(ZCAST_ENOMEM, "out of memory");
		}
		need += 3 * e->n_set + 1; /* and the source's `grown` word */
	}
	if (ws_words_reserve(ws, need) < 0) {
		disarm(ws);
		return ZCAST_ENOMEM;
	}
	return 0;
}

/* The quiet lone subscription (arm_solo) when it is all the wait set has: no timer, guard, graph,
 * room or unbelled entry, nothing else enabled. Else NULL. */
ZC_HOT static struct ws_entry *only_quiet_sub(const zcast_waitset *ws)
{
	struct ws_entry *e = ws_quiet_entry(ws);
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
			ws_report(ev, &k, e, (int)(e - ws->e));
			return k;
		}
		if (deadline >= 0 && zc_now_ns() >= deadline)
			return ZCAST_ETIMEDOUT;
		zc_deaths_rescan(&s->t); /* a publisher dying owing us a wake is seen */
		_Atomic uint32_t *w;
		uint32_t v;
		if (!zc_sub_arm(s, &w, &v))
			continue; /* ready meanwhile (disarmed) */
		ws->last_words = 1;
		if (zc_futex_wait(w, v, zc_sub_sleep_until(s, deadline, zc_now_ns())) ==
		    ZCAST_ETIMEDOUT)
			zc_sub_guard_check(s); /* still announced: is the announcement intact? */
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
		int k = ws_collect(ws, now, events, max);
		if (k > 0)
			return k;
		if (deadline >= 0 && now >= deadline)
			return ZCAST_ETIMEDOUT;
		int64_t until = deadline;
		uint32_t n;
		int pr = prepare_sets(ws);
		if (pr < 0)
			return pr;
		if (arm(ws, &n, &until)) {
			ws->last_words = n;
			int64_t guard = zc_after(zc_now_ns(), zc_guard_slice(ws->wake_tampered));
			int r = zc_mwait_wait(&ws->mw, ws->words, n,
					      until < 0 || until > guard ? guard : until);
			if (r == ZCAST_ETIMEDOUT)
				ws_guard_check(ws); /* before the disarm: the announcements stand */
			disarm(ws);
			if (r < 0 && r != ZCAST_ETIMEDOUT)
				return r;
		}
		now = zc_now_ns(); /* timers compare against a clock read after the sleep: never early */
	}
}
