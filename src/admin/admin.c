/* Topic introspection and maintenance for tools: stat, gc, remove, list. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"

int zcast_topic_stat_get(const char *domain, const char *topic, zcast_topic_stat *st)
{
	if (!st)
		return ZCAST_EINVAL;
	domain = zc_domain_or_default(domain);
	int r = zc_check_names(topic, domain);
	if (r < 0)
		return r;
	struct zc_topic t;
	memset(&t, 0, sizeof t);
	if ((r = zc_topic_peek(&t, &zc_topic_maps, domain, topic)) < 0) {
		/* Not readable yet and held exclusively (byte 0): its creator is still at work. Held
		 * shared, it is in use by members while it fails the checks (another layout version, a
		 * rewritten header): that error is the answer, not "being created". */
		if (r != ZCAST_ENOENT && r != ZCAST_EPERM && t.fd >= 0 &&
		    zc_ofd_held_exclusive(t.fd, 0))
			r = zc_err(ZCAST_EAGAIN, "topic %s is being created", topic);
		zc_topic_detach(&t);
		return r;
	}
	struct zc_topic_hdr *h = t.hdr;
	memset(st, 0, sizeof *st);
	memcpy(st->type_name, h->type_name, sizeof st->type_name);
	st->type_name[sizeof st->type_name - 1] = 0;
	memcpy(st->type_hash, h->type_hash, sizeof st->type_hash);
	st->max_publishers = t.max_pubs;
	st->max_subscribers = t.max_subs;
	st->max_queue_depth = t.max_depth;
	st->history_capacity = t.history_cap;
	st->retain = (int)atomic_load(&h->retain);
	st->last_sequence = atomic_load(&h->last_seq);
	uint64_t hs = atomic_load(&h->hist_start), he = atomic_load(&h->hist_end);
	st->history_len = he >= hs && he - hs <= t.history_cap ? (uint32_t)(he - hs) : 0;
	/* Live members only: a peer killed a moment ago is not counted before anyone reclaimed it.
	 */
	for (uint32_t i = 0; i < t.max_pubs; i++)
		st->publishers += atomic_load(&t.pubs[i].state) == ZC_REC_ACTIVE &&
				  zc_member_alive(&t, zc_member_of_pub(&t, i));
	for (uint32_t i = 0; i < t.max_subs; i++)
		st->subscribers += atomic_load(&t.subs[i].state) == ZC_REC_ACTIVE &&
				   zc_member_alive(&t, zc_member_of_sub(&t, i));
	for (uint32_t p = 0; p < t.max_pools; p++) {
		struct zc_pool_map *m;
		if (atomic_load(&t.pools[p].state) == ZC_POOL_UNUSED || zc_pool_get(&t, p, &m) != 0)
			continue;
		st->pools++;
		for (uint32_t i = 0; i < m->slot_count; i++) {
			uint32_t s = ZC_STATE_ST(atomic_load(&zc_slot(m, i)->state));
			st->slots_total++;
			st->slots_free += s == ZC_SLOT_FREE;
			st->slots_loaned += s == ZC_SLOT_LOANED;
			st->slots_published += s == ZC_SLOT_PUBLISHED;
		}
		zc_pool_put(m);
	}
	/* Last, after the members: every member holds byte 0 (read) from before it claims its
	 * record until after it frees it, and creators and removers hold it (exclusive) from the
	 * moment the file exists until it is unlinked (segment.c). Free now, with no member
	 * counted before, means nobody uses it: a member that joins later is counted by the
	 * caller's next look, not missed here. */
	st->in_use = zc_ofd_held(t.fd, 0);
	zc_topic_detach(&t);
	return 0;
}

/* Attaches as a tool: a temporary member that may take the lock. */
static int attach_tool(struct zc_topic *t, const char **domain, const char *topic)
{
	*domain = zc_domain_or_default(*domain);
	int r = zc_check_names(topic, *domain);
	if (r < 0)
		return r;
	memset(t, 0, sizeof *t);
	zcast_topic_opts o;
	zcast_topic_opts_init(&o);
	o.mode = 0666; /* tools accept group topics; owners are still checked */
	r = zc_topic_attach(t, &zc_topic_maps, *domain, topic, &o, false);
	if (r < 0)
		zc_topic_detach(t);
	t->keep = true; /* a tool never removes a topic by leaving it, remove only on request */
	return r;
}

/* Members left after a reclaim, other than the caller. Under no lock: a tool's decision only. */
static uint32_t live_members(struct zc_topic *t)
{
	uint32_t live = 0;
	for (uint32_t i = 0; i < t->max_pubs; i++)
		live += atomic_load(&t->pubs[i].state) != ZC_REC_FREE;
	for (uint32_t i = 0; i < t->max_subs; i++)
		live += atomic_load(&t->subs[i].state) != ZC_REC_FREE;
	return live;
}

int zcast_topic_gc(const char *domain, const char *topic)
{
	struct zc_topic t;
	int r = attach_tool(&t, &domain, topic);
	if (r < 0)
		return r;
	r = zc_reclaim_locked(&t);
	if (r >= 0)
		r += t.reclaimed_at_attach;
	/* A topic nobody uses any more goes, unless it keeps something for the next opener: its
	 * history (Transient Local outlives its publisher) or `retain`. */
	uint64_t hs = atomic_load(&t.hdr->hist_start), he = atomic_load(&t.hdr->hist_end);
	if (r >= 0 && live_members(&t) == 0 && he == hs)
		t.keep = false;
	zc_topic_detach(&t);
	return r;
}

int zcast_topic_remove(const char *domain, const char *topic)
{
	struct zc_topic t;
	int r = attach_tool(&t, &domain, topic);
	if (r < 0)
		return r;
	if ((r = zc_reclaim_locked(&t)) >= 0) {
		uint32_t live = live_members(&t);
		if (live) {
			r = zc_err(ZCAST_EBUSY, "topic %s has %u live members", topic, live);
		} else {
			atomic_store(&t.hdr->retain, 0);
			t.keep = false; /* the last one out (us) unlinks */
			r = 0;
		}
	}
	zc_topic_detach(&t);
	return r;
}

int zcast_topic_list(const char *domain, int (*fn)(const char *topic, void *ctx), void *ctx)
{
	domain = zc_domain_or_default(domain);
	if (zcast_domain_name_valid(domain) != 0)
		return zc_err(ZCAST_EINVAL, "invalid domain name");
	char prefix[64];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.", domain);
	DIR *d = opendir("/dev/shm");
	if (!d)
		return zc_errno(ZCAST_ESYS, "opendir /dev/shm");
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)n) != 0 || e->d_name[n] == '@')
			continue;
		/* Reverse the name mapping: '.' separates components, and no component has a '.'. */
		char topic[ZC_NAME_MAX + 2];
		int len = snprintf(topic, sizeof topic, "/%s", e->d_name + n);
		if (len <= 1 || len > ZC_NAME_MAX)
			continue;
		for (int i = 0; i < len; i++)
			if (topic[i] == '.')
				topic[i] = '/';
		if (zcast_topic_name_valid(topic) != 0)
			continue;
		count++;
		if (fn && fn(topic, ctx))
			break;
	}
	closedir(d);
	return count;
}
