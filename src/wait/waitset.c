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

#include "waitset_internal.h"

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
void ws_unbell(struct ws_entry *e)
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
void ws_release_entry(struct ws_entry *e)
{
	if (e->kind == ZCAST_WS_SUB)
		ws_unbell(e); /* a stale bit of this id later only costs a check */
	else if (e->kind == ZCAST_WS_GUARD)
		unlink_guard(e);
	else if (e->kind == ZCAST_WS_PUB_ROOM)
		ws_set_free(e);
}

void zcast_waitset_destroy(zcast_waitset *ws)
{
	if (!ws)
		return;
	for (int i = 0; i < ws->n; i++)
		ws_release_entry(&ws->e[i]);
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
void ws_rebuild_others(zcast_waitset *ws)
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



/* A free entry (reused ids first), with room for two more words per entry (a room entry sleeps on
 * two) and the doorbell's. */
int zcast_waitset_last_words(const zcast_waitset *ws)
{
	return ws ? (int)ws->last_words : zc_err(ZCAST_EINVAL, "wait set is NULL");
}

int zcast_doorbell_gc(void)
{
	return zc_bell_sweep();
}
