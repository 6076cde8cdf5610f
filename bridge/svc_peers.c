/* The remote DDS endpoints a service route deals with, as many as are matched: the writers matched
 * by its reader (TO_DDS: the clients' request writers; FROM_DDS: the servers' reply writers) and
 * the readers matched by its writer (TO_DDS: the clients' reply readers). Each is read once from
 * Cyclone's discovery data when it first appears: its type verdict (the `typehash=` it announces)
 * and its `clientid=`. A table follows the matched set: the DDS match listeners mark it stale, the
 * route's thread rebuilds it from the matched handles before its next look-up, so an endpoint that
 * leaves is forgotten then (memory bounded by what is matched now, any number of clients). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_internal.h"

/* The value of `key` in the USER_DATA of an endpoint's discovery data, copied into v. */
static int ud_value(dds_builtintopic_endpoint_t *ep, const char *key, char *v, size_t cap)
{
	void *ud = NULL;
	size_t n = 0, vn;
	const char *s;
	int found = ep && dds_qget_userdata(ep->qos, &ud, &n) && ud &&
		    zb_user_data_value(ud, n, key, &s, &vn) && vn < cap;
	if (found)
		memcpy(v, s, vn), v[vn] = 0;
	dds_free(ud);
	return found;
}

/* 1 when ep announces none of the service's hashes, else 0 with rt->why saying so. */
static int type_verdict(struct zb_svc_rt *rt, dds_builtintopic_endpoint_t *ep)
{
	const zcast_service_type *t = rt->cfg->type;
	char theirs[ZCAST_TYPE_HASH_STR_SIZE + 8], h[3][ZCAST_TYPE_HASH_STR_SIZE];
	if (!ud_value(ep, "typehash", theirs, sizeof theirs))
		return 1; /* ROS 2 before Iron, plain DDS programs */
	zcast_type_hash_str(t->hash, h[0]);
	zcast_type_hash_str(t->request->hash, h[1]);
	zcast_type_hash_str(t->response->hash, h[2]);
	if (!strcmp(theirs, h[0]) || !strcmp(theirs, h[1]) || !strcmp(theirs, h[2]))
		return 1;
	snprintf(rt->why, sizeof rt->why, "the writer announces %s, %s is %s", theirs, t->name,
		 h[0]);
	return 0;
}

static dds_builtintopic_endpoint_t *ep_get(struct zb_svc_rt *rt, int readers,
					   dds_instance_handle_t h)
{
	return readers ? dds_get_matched_subscription_data(rt->writer, h)
		       : dds_get_matched_publication_data(rt->reader, h);
}

/* A new entry: what discovery says of endpoint h (or nothing, when it left meanwhile). */
static void peer_read(struct zb_svc_rt *rt, int readers, struct zb_svc_peer *p)
{
	dds_builtintopic_endpoint_t *ep = ep_get(rt, readers, p->h);
	p->ok = readers || type_verdict(rt, ep);
	p->has_id = ud_value(ep, "clientid", p->id, sizeof p->id);
	if (ep)
		dds_builtintopic_free_endpoint(ep);
}

static int cmp_handle(const void *a, const void *b)
{
	dds_instance_handle_t x = *(const dds_instance_handle_t *)a,
			      y = *(const dds_instance_handle_t *)b;
	return x < y ? -1 : x > y;
}

static struct zb_svc_peer *find(struct zb_svc_peers *ps, dds_instance_handle_t h)
{
	if (!ps->n)
		return NULL; /* ps->v may be NULL then, which bsearch must not be given */
	/* entries start with their handle, sorted by it */
	return bsearch(&h, ps->v, ps->n, sizeof *ps->v, cmp_handle);
}

/* The handles matched now, into ps->scratch (grown as needed): their number, or -1. */
static int matched_handles(struct zb_svc_rt *rt, struct zb_svc_peers *ps, int readers)
{
	for (;;) {
		dds_return_t n = readers ? dds_get_matched_subscriptions(rt->writer, ps->scratch,
									  ps->scratch_cap)
					 : dds_get_matched_publications(rt->reader, ps->scratch,
									 ps->scratch_cap);
		if (n < 0 || (size_t)n <= ps->scratch_cap)
			return n < 0 ? -1 : (int)n;
		dds_instance_handle_t *s = realloc(ps->scratch, (size_t)n * 2 * sizeof *s);
		if (!s)
			return -1;
		ps->scratch = s, ps->scratch_cap = (size_t)n * 2;
	}
}

/* Rebuilds the table from the matched handles when a listener marked it stale: entries kept for
 * those still matched, read for the new ones, dropped for those gone. */
static void refresh(struct zb_svc_rt *rt, struct zb_svc_peers *ps, int readers)
{
	/* SYNC: peers-stale — set by the match listeners (svc_dds.c on_*_matched) after Cyclone
	 * changed the matched set: cleared before the set is read, so a change after the read
	 * marks it stale again. */
	if (!atomic_exchange(&ps->stale, 0))
		return;
	int n = matched_handles(rt, ps, readers);
	struct zb_svc_peer *v = n > 0 ? calloc((size_t)n, sizeof *v) : NULL;
	if (n < 0 || (n > 0 && !v)) {
		atomic_store(&ps->stale, 1); /* try again at the next look-up */
		free(v);
		return;
	}
	if (n > 1) /* scratch may be NULL when nothing is matched */
		qsort(ps->scratch, (size_t)n, sizeof *ps->scratch, cmp_handle);
	for (int i = 0; i < n; i++) {
		struct zb_svc_peer *old = find(ps, ps->scratch[i]);
		if (old) {
			v[i] = *old;
			continue;
		}
		v[i].h = ps->scratch[i];
		peer_read(rt, readers, &v[i]);
	}
	free(ps->v);
	ps->v = v, ps->n = (uint32_t)n;
}

/* Endpoint h's entry, or NULL when it is not matched. A miss reads the matched set again: its
 * sample may be taken before the match listener ran. */
static struct zb_svc_peer *lookup(struct zb_svc_rt *rt, struct zb_svc_peers *ps, int readers,
				  dds_instance_handle_t h)
{
	refresh(rt, ps, readers);
	struct zb_svc_peer *p = find(ps, h);
	if (!p) {
		atomic_store(&ps->stale, 1);
		refresh(rt, ps, readers);
		p = find(ps, h);
	}
	return p;
}

void zb_svc_peers_free(struct zb_svc_peers *ps)
{
	free(ps->v), free(ps->scratch);
	*ps = (struct zb_svc_peers){0};
}

int zb_svc_peer_type_ok(struct zb_svc_rt *rt, dds_instance_handle_t writer)
{
	struct zb_svc_peer *p = lookup(rt, &rt->writers, 0, writer);
	if (!p)
		return 1; /* left since its sample came: it announces nothing any more */
	if (!p->ok) { /* a refusal says why again */
		dds_builtintopic_endpoint_t *ep = ep_get(rt, 0, writer);
		p->ok = type_verdict(rt, ep);
		if (ep)
			dds_builtintopic_free_endpoint(ep);
	}
	return p->ok;
}

int zb_svc_client_present(struct zb_svc_rt *rt, dds_instance_handle_t writer)
{
	struct zb_svc_peer *w = lookup(rt, &rt->writers, 0, writer);
	if (!w || !w->has_id)
		return w ? ZB_SVC_CLIENT_YES : ZB_SVC_CLIENT_GONE; /* no id: assume it is there */
	refresh(rt, &rt->readers, 1);
	for (uint32_t i = 0; i < rt->readers.n; i++)
		if (rt->readers.v[i].has_id && !strcmp(rt->readers.v[i].id, w->id))
			return ZB_SVC_CLIENT_YES;
	return ZB_SVC_CLIENT_MAYBE;
}
