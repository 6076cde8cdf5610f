/* Member records: claiming one, telling whether its owner lives, the topic's type, graph events.
 *
 * Each member record k is owned through an exclusive OFD lock on byte 1 + k of the control segment:
 * the kernel drops it when the owner dies, which is how liveness is told without PIDs. A record is
 * claimed lock-free (byte lock first, then CAS FREE -> CLAIMED) and made ACTIVE under the topic
 * lock. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "proto_internal.h"

uint32_t zc_member_of_pub(const struct zc_topic *t, uint32_t i)
{
	(void)t;
	return i;
}

uint32_t zc_member_of_sub(const struct zc_topic *t, uint32_t i)
{
	return t->max_pubs + i;
}

static _Atomic uint32_t *member_state(struct zc_topic *t, uint32_t member)
{
	if (member < t->max_pubs)
		return &t->pubs[member].state;
	member -= t->max_pubs;
	if (member < t->max_subs)
		return &t->subs[member].state;
	return &t->tools[member - t->max_subs].state;
}

bool zc_member_alive(struct zc_topic *t, uint32_t member)
{
	if (t->is_member && member == t->member)
		return true; /* a probe through our own descriptor would read "free" */
	return zc_ofd_held(t->fd, 1 + (off_t)member);
}

int zc_member_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index)
{
	uint32_t base = 0, count = t->max_pubs;
	if (kind == ZC_KIND_SUB) {
		base = t->max_pubs;
		count = t->max_subs;
	} else if (kind == ZC_KIND_TOOL) {
		base = t->max_pubs + t->max_subs;
		count = ZC_TOOL_RECORDS;
	}
	for (uint32_t k = 0; k < count; k++) {
		_Atomic uint32_t *st = member_state(t, base + k);
		if (atomic_load_explicit(st, memory_order_acquire) != ZC_REC_FREE)
			continue;
		/* Byte lock first: then a probe never sees a claimed record without a live owner.
		 */
		if (zc_ofd_lock(t->fd, 1 + (off_t)(base + k), true) != 0)
			continue;
		uint32_t expect = ZC_REC_FREE;
		if (atomic_compare_exchange_strong(st, &expect, ZC_REC_CLAIMED)) {
			t->member = base + k;
			t->is_member = true;
			*index = k;
			return 0;
		}
		zc_ofd_unlock(t->fd, 1 + (off_t)(base + k));
	}
	return zc_err(ZCAST_ELIMIT, "topic %s has no free %s record (limit %u)", t->name,
		      kind == ZC_KIND_PUB   ? "publisher"
		      : kind == ZC_KIND_SUB ? "subscriber"
					    : "tool",
		      count);
}

void zc_member_release_tool(struct zc_topic *t, uint32_t index)
{
	atomic_store(&t->tools[index].state, ZC_REC_FREE);
	zc_ofd_unlock(t->fd, 1 + (off_t)t->member);
	t->member = UINT32_MAX;
	t->is_member = false;
}

int zc_topic_claim(struct zc_topic *t, enum zc_kind kind, uint32_t *index)
{
	int r = zc_member_claim(t, kind, index);
	if (r == ZCAST_ELIMIT && kind != ZC_KIND_TOOL && zc_reclaim_locked(t) > 0)
		r = zc_member_claim(t, kind, index); /* dead members held the records */
	return r;
}

int zc_topic_check_type(struct zc_topic *t, const char *type_name, const uint8_t *type_hash)
{
	static const uint8_t zero[ZCAST_TYPE_HASH_SIZE];
	struct zc_topic_hdr *h = t->hdr;
	bool untyped = (!type_name || !*type_name) && memcmp(type_hash, zero, sizeof zero) == 0;
	if (untyped)
		return 0;
	if (!type_name)
		type_name = "";
	if (strlen(type_name) >= ZC_TYPE_NAME_MAX)
		return zc_err(ZCAST_EINVAL, "type name is longer than %d bytes", ZC_TYPE_NAME_MAX - 1);
	if (!atomic_load(&h->typed)) {
		snprintf(h->type_name, sizeof h->type_name, "%s", type_name);
		memcpy(h->type_hash, type_hash, sizeof h->type_hash);
		atomic_store(&h->typed, 1);
		return 0;
	}
	/* Read once into locals: another member may rewrite the header while we compare. */
	char have[ZC_TYPE_NAME_MAX];
	uint8_t have_hash[ZCAST_TYPE_HASH_SIZE];
	memcpy(have, h->type_name, sizeof have);
	memcpy(have_hash, h->type_hash, sizeof have_hash);
	have[sizeof have - 1] = 0;
	if (strcmp(have, type_name) != 0 || memcmp(have_hash, type_hash, sizeof have_hash) != 0) {
		char hs[ZCAST_TYPE_HASH_STR_SIZE], ws[ZCAST_TYPE_HASH_STR_SIZE];
		zcast_type_hash_str(have_hash, hs);
		zcast_type_hash_str(type_hash, ws);
		return zc_err(ZCAST_ETYPE, "topic %s exists with type %s (%s), you asked for %s (%s)",
			      t->name, have, hs, type_name, ws);
	}
	return 0;
}

/* Every process's death watcher follows this word (deaths.c): a member that joins is watched by its
 * peers without them waking up for it. */
void zc_topic_graph_changed(struct zc_topic *t)
{
	/* SYNC: graph-word: the change, then the bump, then the wake; partners wait/room_set.c
	 * ws_set_arm, svc/server_routes.c zc_svc_route_live, svc/client.c publish_req (each reads
	 * the word before it looks at the members). */
	atomic_fetch_add_explicit(&t->hdr->graph, 1, memory_order_seq_cst);
	/* Always: the death watchers' followers sleep on this word without announcing themselves
	 * (they cannot touch a mapping that may be gone when they wake). One syscall per join. */
	zc_futex_wake(&t->hdr->graph, INT_MAX);
	/* Sleepers re-scan their peers (deaths.c): a member that joined while they slept must be
	 * watched too, or its death owing them a wake would go unseen. Joins and leaves are rare.
	 */
	zc_wake_all(t);
}
