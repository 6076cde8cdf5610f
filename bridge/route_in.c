/* A route from DDS to a local zcast topic: take the CDR bytes of a sample (dds_takecdr), write them
 * into a zcast loan behind the 4 reserved bytes of a typed message, validate, publish.
 *
 * Latency: samples are delivered from Cyclone's data-available listener, on the thread that
 * received them, as long as that needs no wait. A reliable route that must wait for a slot or for
 * room in a FULL queue never waits there (it would stall all of Cyclone's reception): it leaves the
 * sample in rt->pending, sets rt->draining and wakes the route's thread, which delivers it and
 * everything after it with waits, in order, and hands back to the listener when DDS has nothing
 * more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

static int open_pub(struct zb_route_rt *rt)
{
	const zcast_bridge_route *r = rt->cfg;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = zb_zdomain_opt(rt->b->cfg);
	o.type_name = r->type->name;
	memcpy(o.type_hash, r->type->hash, ZCAST_TYPE_HASH_SIZE);
	o.slot_size = r->max_size + ZCAST_TYPED_HEADER_OFFSET;
	o.slot_count = r->slots;
	o.history_depth = r->history;
	int e = zcast_pub_open(r->topic, &o, &rt->pub);
	if (e < 0) {
		fprintf(stderr, "zcast-bridge: in %s: %s\n", r->topic, zcast_last_error());
		return e;
	}
	return 0;
}

enum { DONE = 0, WOULD_WAIT = 1, DONE_INVALID = 2 /* not of the type: reported by the caller */ };
enum { WARN_SIZE = 1, WARN_INVALID = 2, WARN_NO_ROOM = 4, WARN_TYPE = 8 };

/* Counts a dropped sample; the first of each kind per route is reported. */
static void drop(struct zb_route_rt *rt, unsigned kind, const char *what, const char *why)
{
	atomic_fetch_add(&rt->dropped, 1);
	if (!(atomic_fetch_or(&rt->warned, kind) & kind))
		fprintf(stderr, "zcast-bridge: in %s: dropping %s%s%s\n", rt->cfg->topic, what,
			*why ? ": " : "", why);
}

static int deliver_normalized(struct zb_route_rt *rt, const void *bytes, size_t n,
			      const dds_sample_info_t *si, int wait);

/* Delivers one sample. Without `wait`, a reliable route returns WOULD_WAIT (nothing consumed)
 * where it would have to wait; a best-effort route drops instead. */
static int deliver_bytes(struct zb_route_rt *rt, const void *bytes, size_t n,
			 const dds_sample_info_t *si, int wait, int normalized)
{
	const zcast_bridge_route *r = rt->cfg;
	if (n < ZCAST_CDR_HEADER || n > r->max_size) {
		drop(rt, WARN_SIZE, "samples of a size out of range", "");
		return DONE;
	}
	zcast_msg *m = NULL;
	int e;
	ZB_CRASH("in:before-loan");
	if (!wait || !r->reliable)
		e = zcast_loan(rt->pub, n + 4, &m);
	else
		while ((e = zcast_loan_wait(rt->pub, n + 4, 100 * 1000 * 1000, &m)) ==
			   ZCAST_ETIMEDOUT &&
		       !atomic_load(&rt->b->stop))
			;
	if (e == ZCAST_ENOSLOT && r->reliable && !wait)
		return WOULD_WAIT;
	if (e < 0) {
		drop(rt, WARN_NO_ROOM, "samples finding no slot", zcast_strerror(e));
		return DONE;
	}
	uint8_t *d = zcast_msg_data(m);
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	d[0] = ZB_FROM_BRIDGE; /* an OUT route never sends it back (route_out.c) */
	memcpy(d + ZCAST_TYPED_HEADER_OFFSET, bytes, n);
	d[ZCAST_TYPED_HEADER_OFFSET + 3] &= (uint8_t)~3u; /* no padding in the slot */
	zcast_cdr_reader rd;
	if (zcast_cdr_read(r->type, d + ZCAST_TYPED_HEADER_OFFSET, n, &rd, rt->in_off, rt->in_len) <
	    0) {
		snprintf(rt->why, sizeof rt->why, "%s", zcast_last_error());
		zcast_msg_drop(m);
		return normalized ? DONE_INVALID : deliver_normalized(rt, bytes, n, si, wait);
	}
	/* stored at its CDR size: a writer may pad the sample (to 4, as rmw_cyclonedds does)
	 * without saying so in the options */
	if ((size_t)ZCAST_CDR_HEADER + rd.end < n)
		zcast_msg_resize(m, ZCAST_TYPED_PREFIX + rd.end);
	ZB_CRASH("in:after-loan");
	/* named before the publish, recorded after: a successor tells by the mark whether a publish
	 * this bridge died in or after happened (sources.c) */
	zcast_msg_set_mark(m, zb_sources_intent(rt->sources, si->publication_handle,
						si->source_timestamp));
	if (!wait || !r->reliable)
		e = zcast_publish(rt->pub, m);
	else
		while ((e = zcast_publish_wait(rt->pub, m, 100 * 1000 * 1000)) < 0 &&
		       (e == ZCAST_ETIMEDOUT || e == ZCAST_EAGAIN) && !atomic_load(&rt->b->stop))
			;
	if (e == ZCAST_EAGAIN && r->reliable && !wait) {
		zcast_msg_drop(m); /* the thread loans and copies again: only when congested */
		return WOULD_WAIT;
	}
	if (e < 0) {
		zcast_msg_drop(m);
		drop(rt, WARN_NO_ROOM, "samples finding no room", zcast_strerror(e));
		return DONE;
	}
	ZB_CRASH("in:after-publish");
	zb_sources_delivered(rt->sources, si->publication_handle, si->source_timestamp);
	atomic_fetch_add(&rt->forwarded, 1);
	return DONE;
}

/* A sample not in zcast's form (big endian, a 0-length string), rewritten into it (normalize.c). */
static int deliver_normalized(struct zb_route_rt *rt, const void *bytes, size_t n,
			      const dds_sample_info_t *si, int wait)
{
	uint8_t *norm;
	size_t nn;
	int e = DONE_INVALID;
	if (n >= 2 && ((const uint8_t *)bytes)[1] == 0) /* the reason if it is not rewritten */
		snprintf(rt->why, sizeof rt->why, "big-endian CDR not of type %s",
			 rt->cfg->type->name);
	if (zb_normalize(rt->cfg->type, bytes, n, &norm, &nn) == 0) {
		e = deliver_bytes(rt, norm, nn, si, wait, 1);
		free(norm);
	}
	if (e == DONE_INVALID) {
		drop(rt, WARN_INVALID, "invalid samples", rt->why);
		e = DONE;
	}
	return e;
}

static int deliver(struct zb_route_rt *rt, const void *bytes, size_t n, const dds_sample_info_t *si,
		   int wait)
{
	char theirs[ZCAST_TYPE_HASH_STR_SIZE];
	if (!zb_sources_type_ok(rt->sources, si->publication_handle, theirs)) {
		/* same type name, another definition: its bytes would be read in our layout */
		char ours[ZCAST_TYPE_HASH_STR_SIZE], why[200];
		zcast_type_hash_str(rt->cfg->type->hash, ours);
		snprintf(why, sizeof why, "the writer announces %s, %s is %s", theirs,
			 rt->cfg->type->name, ours);
		drop(rt, WARN_TYPE, "samples of a writer of another type hash", why);
		return DONE;
	}
	if (zb_sources_seen(rt->sources, si->publication_handle, si->source_timestamp)) {
		atomic_fetch_add(&rt->skipped, 1); /* sent again by a bridge that took over */
		return DONE;
	}
	if (n >= 2 && ((const uint8_t *)bytes)[1] == 0) /* big endian */
		return deliver_normalized(rt, bytes, n, si, wait);
	return deliver_bytes(rt, bytes, n, si, wait, 0);
}

/* With a catch-up reader, each sample of a writer both readers match reaches both (one packet to
 * the participant): the catch-up reader delivers those of bridges that keep messages for it (their
 * kept messages first, then the rest, in order), the other one those of every other writer, also
 * of a bridge whose writer is volatile (catchup=0 on its out route: the catch-up reader never
 * matches it, and its samples would otherwise be delivered by neither). */
static int mine(struct zb_route_rt *rt, dds_entity_t reader, const dds_sample_info_t *si)
{
	if (!rt->catchup)
		return 1;
	return (reader == rt->catchup) ==
	       zb_sources_catchup_reads(rt->sources, si->publication_handle);
}

/* Delivers what one reader holds. WOULD_WAIT: the sample is left in rt->pending. */
static int drain_reader(struct zb_route_rt *rt, dds_entity_t reader, int wait)
{
	for (;;) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		if (dds_takecdr(reader, &sd, 1, &si, DDS_ANY_STATE) <= 0)
			return DONE;
		if (si.valid_data && mine(rt, reader, &si)) {
			size_t n;
			const void *bytes = zb_serdata_bytes(sd, &n);
			if (deliver(rt, bytes, n, &si, wait) == WOULD_WAIT) {
				rt->pending = sd, rt->pending_si = si;
				return WOULD_WAIT;
			}
		}
		ddsi_serdata_unref(sd);
		if (atomic_load(&rt->b->stop))
			return DONE;
	}
}

/* Delivers what DDS holds. Returns WOULD_WAIT (a sample left in rt->pending) or DONE (empty). */
static int drain(struct zb_route_rt *rt, int wait)
{
	struct ddsi_serdata *sd = rt->pending;
	if (sd) {
		rt->pending = NULL;
		size_t n;
		const void *bytes = zb_serdata_bytes(sd, &n);
		if (deliver(rt, bytes, n, &rt->pending_si, wait) == WOULD_WAIT) {
			rt->pending = sd;
			return WOULD_WAIT;
		}
		ddsi_serdata_unref(sd);
	}
	if (drain_reader(rt, rt->endpoint, wait) == WOULD_WAIT)
		return WOULD_WAIT;
	return rt->catchup ? drain_reader(rt, rt->catchup, wait) : DONE;
}

/* Cyclone's listener: deliver now unless the route's thread is draining. */
static void on_data(dds_entity_t reader, void *arg)
{
	(void)reader;
	struct zb_route_rt *rt = arg;
	pthread_mutex_lock(&rt->mu);
	int handed = 0;
	if (!rt->draining && atomic_load(&rt->state) == ZCAST_BRIDGE_ACTIVE &&
	    drain(rt, 0) == WOULD_WAIT) {
		rt->draining = handed = 1;
		pthread_cond_signal(&rt->cv);
	}
	pthread_mutex_unlock(&rt->mu);
	if (handed && rt->group)
		zb_pool_wake(rt); /* its worker waits for room (zb_in_drain) */
}

int zb_in_drain(struct zb_route_rt *rt)
{
	pthread_mutex_lock(&rt->mu);
	/* the listener keeps off while draining is set; a sample that comes after DONE is the
	 * listener's again */
	rt->draining = drain(rt, 0) == WOULD_WAIT;
	int waiting = rt->draining;
	pthread_mutex_unlock(&rt->mu);
	return waiting;
}

/* The route's thread: drains with waits when the listener handed over; every 100 ms it also
 * drains without waiting (a safety net: nothing relies on it). */
static void run(struct zb_route_rt *rt)
{
	pthread_mutex_lock(&rt->mu);
	while (!atomic_load(&rt->b->stop)) {
		if (!rt->draining) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000)
				ts.tv_sec++, ts.tv_nsec -= 1000000000;
			pthread_cond_timedwait(&rt->cv, &rt->mu, &ts);
			if (!rt->draining && drain(rt, 0) == WOULD_WAIT)
				rt->draining = 1;
			continue;
		}
		/* draining: the listener keeps off the publisher and the reader until we hand back,
		 * so the waits happen without the lock */
		pthread_mutex_unlock(&rt->mu);
		drain(rt, 1);
		pthread_mutex_lock(&rt->mu);
		if (drain(rt, 0) == DONE) /* a sample that came just now is not left behind */
			rt->draining = 0;
	}
	pthread_mutex_unlock(&rt->mu);
}

/* A receiving bridge that restarts must get what the sending bridges wrote while it was down: a
 * second reader, transient local, gets the messages they keep for it (catchup=N, qos.c). Not
 * needed when the route's own reader is transient local (history=N); catchup=0 on the IN route
 * does without it. */
static int open_catchup(struct zb_route_rt *rt, const dds_listener_t *l)
{
	if (!rt->cfg->reliable || rt->cfg->history || !rt->cfg->catchup)
		return 0; /* catchup=0: the route does without */
	dds_qos_t *q = zb_catchup_qos(rt->cfg);
	/* no listener until the filter knows the reader: a sample must not come first */
	dds_entity_t r = q ? dds_create_reader(rt->b->participant, rt->topic, q, NULL) : -1;
	dds_delete_qos(q);
	if (r < 0) {
		fprintf(stderr, "zcast-bridge: in %s: catch-up reader: %s\n", rt->cfg->topic,
			dds_strretcode(r));
		return -1;
	}
	zb_sources_set_catchup(rt->sources, r);
	/* SYNC: zb_graph_publish loads it (acquire) */
	__atomic_store_n(&rt->catchup, r, __ATOMIC_RELEASE);
	dds_set_listener(r, l);
	zb_graph_publish(rt->b);
	return 0;
}

int zb_in_open(struct zb_route_rt *rt)
{
	uint32_t nf = rt->cfg->type->n_flat ? rt->cfg->type->n_flat : 1;
	rt->in_off = calloc(nf, sizeof *rt->in_off);
	rt->in_len = calloc(nf, sizeof *rt->in_len);
	int e = 0;
	dds_listener_t *l = dds_create_listener(rt);
	if (l)
		dds_lset_data_available(l, on_data);
	/* the catch-up reader as early as before the marks (what it can still get from the sending
	 * bridges shrinks while it waits); nothing is delivered before ACTIVE, so the record is
	 * recovered in time */
	/* the readers once the claim is announced: a peer that matches them can then drop them when
	 * this bridge dies and a successor announces the claim anew (peers.c) */
	if (!rt->in_off || !rt->in_len || !l || open_pub(rt) < 0 ||
	    zb_peers_wait_announced(rt->b->peers, &rt->b->stop) < 0 || zb_route_dds_open(rt, l) < 0 ||
	    !(rt->sources = zb_sources_new(rt->claim->state, rt->endpoint, rt->cfg->type)) ||
	    open_catchup(rt, l) < 0 || zb_sources_recover(rt->sources, rt->pub, &rt->b->stop) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		e = -1;
	} else {
		pthread_mutex_lock(&rt->mu);
		atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
		pthread_mutex_unlock(&rt->mu);
	}
	if (l)
		dds_delete_listener(l); /* the readers keep their copies */
	return e;
}

void *zb_route_in(void *arg)
{
	struct zb_route_rt *rt = arg;
	if (zb_route_claim_open(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return NULL;
	}
	if (zb_route_claim(rt) < 0)
		return NULL;
	if (zb_in_open(rt) == 0)
		run(rt);
	return NULL;
}
