/* The receiving half of exactly once (docs/BRIDGE.md, "Exactly once").
 *
 * A bridge's DDS writer announces its source in USER_DATA ("zcastsrc=<16 hex digits>;"): the random
 * id of the topic's claim file on the sending host, the same for every bridge that ever serves that
 * topic there (a standby, a restart), different on every other host or /dev/shm. Its source
 * timestamps strictly grow with the topic's sequence, and a message sent again by a successor
 * carries the timestamp it was first sent with (route_out.c). So per source, a sample whose
 * timestamp is not newer than the newest delivered was delivered: it is a resend, and skipped. The
 * newest per source lives in the route's claim file, so a restarted receiving bridge goes on
 * filtering. Writers without a source (ROS 2 nodes, other DDS programs) are never filtered.
 *
 * The newest is recorded after the publish returns; a bridge killed inside the publish, or after
 * it, leaves a message zcast completes that it did not record. So the publish in progress is named
 * first (source, timestamp and a mark the loan carries: zb_sources_intent), and a successor asks
 * the topic whether the publish with that mark reached anybody (zb_sources_recover). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ZB_HANDLES 32

struct zb_sources {
	struct zb_state *state; /* shared memory: entries are copied in at start, written through */
	dds_entity_t reader, catchup; /* a writer may be matched by one of them first */
	uint64_t id[ZB_SOURCES];
	int64_t last[ZB_SOURCES];
	char hash[ZCAST_TYPE_HASH_STR_SIZE]; /* the route's type's, as USER_DATA spells it */
	uint32_t next_mark; /* never 0, never the topic's last mark when the route started */
	struct {
		dds_instance_handle_t h;
		int src; /* index, or -1: not a bridge */
		int kept; /* it offers reliable transient local: the catch-up reader matches it */
		char other[ZCAST_TYPE_HASH_STR_SIZE]; /* the other type hash it announces, or "" */
	} cache[ZB_HANDLES];
	unsigned next_cache, next_evict;
};

struct zb_sources *zb_sources_new(struct zb_state *state, dds_entity_t reader,
				   const zcast_cdr_type *type)
{
	struct zb_sources *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	zcast_type_hash_str(type->hash, s->hash);
	s->state = state;
	s->reader = reader;
	for (int i = 0; i < ZB_SOURCES; i++) { /* read once: the file is shared memory */
		s->id[i] = ZB_READ_ONCE(state->in[i].source);
		s->last[i] = ZB_READ_ONCE(state->in[i].last_ts);
	}
	return s;
}

void zb_sources_set_catchup(struct zb_sources *s, dds_entity_t catchup)
{
	s->catchup = catchup;
}

void zb_sources_free(struct zb_sources *s)
{
	free(s);
}

/* The source a publication announces ("zcastsrc=<hex>;" in its USER_DATA), or 0. */
static uint64_t parse_source(const char *ud, size_t n)
{
	const char *s;
	size_t len;
	if (!zb_user_data_value(ud, n, "zcastsrc", &s, &len) || len != 16)
		return 0;
	uint64_t v = 0;
	for (size_t k = 0; k < len; k++) {
		char ch = s[k];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	return v;
}

/* The type hash the publication announces, into other[] if it is not ours ("" if it is ours or
 * it announces none). */
static void other_hash(const struct zb_sources *s, const char *ud, size_t n,
		       char other[ZCAST_TYPE_HASH_STR_SIZE])
{
	const char *v;
	size_t len;
	other[0] = 0;
	if (!zb_user_data_value(ud, n, "typehash", &v, &len) ||
	    (len == strlen(s->hash) && memcmp(v, s->hash, len) == 0))
		return;
	if (len >= ZCAST_TYPE_HASH_STR_SIZE) /* not a hash we could print: still not ours */
		snprintf(other, ZCAST_TYPE_HASH_STR_SIZE, "(%zu bytes)", len);
	else
		memcpy(other, v, len), other[len] = 0;
}

static int source_index(struct zb_sources *s, uint64_t id)
{
	for (int i = 0; i < ZB_SOURCES; i++)
		if (s->id[i] == id)
			return i;
	int src = -1; /* a new source takes a free entry, else the oldest-numbered one */
	for (int i = 0; i < ZB_SOURCES && src < 0; i++)
		if (!s->id[i])
			src = i;
	if (src < 0)
		src = (int)(s->next_evict++ % ZB_SOURCES);
	s->id[src] = id;
	s->last[src] = INT64_MIN;
	s->state->in[src].last_ts = INT64_MIN;
	s->state->in[src].source = id;
	return src;
}

/* What the publication announces, from the cache, else looked up; -1 if no longer matched. */
static int lookup(struct zb_sources *s, dds_instance_handle_t h)
{
	for (unsigned i = 0; i < s->next_cache; i++)
		if (s->cache[i].h == h)
			return (int)i;
	dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(s->reader, h);
	if (!ep && s->catchup > 0)
		ep = dds_get_matched_publication_data(s->catchup, h);
	if (!ep) /* no longer matched: unknown now, perhaps known later */
		return -1;
	void *ud = NULL;
	size_t n = 0;
	uint64_t id = 0;
	unsigned slot = s->next_cache < ZB_HANDLES ? s->next_cache++ : (unsigned)(h % ZB_HANDLES);
	s->cache[slot].other[0] = 0;
	if (dds_qget_userdata(ep->qos, &ud, &n) && ud) {
		id = parse_source(ud, n);
		other_hash(s, ud, n, s->cache[slot].other);
	}
	dds_free(ud);
	/* the catch-up reader (reliable, transient local) matches only a writer offering both; a
	 * bridge's writer with catchup=0 is volatile, and only the first reader gets its samples */
	dds_durability_kind_t dur = DDS_DURABILITY_VOLATILE;
	dds_reliability_kind_t rel = DDS_RELIABILITY_BEST_EFFORT;
	dds_qget_durability(ep->qos, &dur);
	dds_qget_reliability(ep->qos, &rel, NULL);
	s->cache[slot].kept = dur != DDS_DURABILITY_VOLATILE && rel == DDS_RELIABILITY_RELIABLE;
	dds_builtintopic_free_endpoint(ep);
	s->cache[slot].h = h;
	s->cache[slot].src = id ? source_index(s, id) : -1;
	return (int)slot;
}

static int source_of(struct zb_sources *s, dds_instance_handle_t h)
{
	int i = lookup(s, h);
	return i < 0 ? -1 : s->cache[i].src;
}

int zb_sources_type_ok(struct zb_sources *s, dds_instance_handle_t publication,
		       char theirs[ZCAST_TYPE_HASH_STR_SIZE])
{
	int i = lookup(s, publication);
	if (i < 0 || !s->cache[i].other[0])
		return 1;
	memcpy(theirs, s->cache[i].other, ZCAST_TYPE_HASH_STR_SIZE);
	return 0;
}

int zb_sources_catchup_reads(struct zb_sources *s, dds_instance_handle_t publication)
{
	int i = lookup(s, publication);
	return i >= 0 && s->cache[i].src >= 0 && s->cache[i].kept;
}

int zb_sources_seen(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts)
{
	int src = source_of(s, publication);
	return src >= 0 && ts <= s->last[src];
}

void zb_sources_delivered(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts)
{
	int src = source_of(s, publication);
	if (src >= 0 && ts > s->last[src]) {
		s->last[src] = ts;
		s->state->in[src].last_ts = ts;
	}
}

uint32_t zb_sources_intent(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts)
{
	int src = source_of(s, publication);
	if (src < 0)
		return 0;
	uint32_t mark = s->next_mark;
	s->next_mark = mark + 1 ? mark + 1 : 1;
	/* SYNC: in-intent: the mark first, so a half-written intent names no publish that happened;
	 * partner zb_sources_recover, in a successor (after this process died or let the claim go) */
	__atomic_store_n(&s->state->in_mark, mark, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state->in_source, s->id[src], __ATOMIC_RELEASE);
	__atomic_store_n(&s->state->in_ts, ts, __ATOMIC_RELEASE);
	return mark;
}

int zb_sources_recover(struct zb_sources *s, zcast_pub *pub, _Atomic int *stop)
{
	uint32_t last = 0;
	int e;
	/* under the topic lock: a predecessor that died inside its publish is repaired first */
	while ((e = zcast_pub_last_mark(pub, &last)) == ZCAST_ETIMEDOUT && !atomic_load(stop))
		;
	if (e < 0) {
		if (!atomic_load(stop))
			fprintf(stderr, "zcast-bridge: cannot read a topic's last mark: %s\n",
				zcast_last_error());
		return -1;
	}
	s->next_mark = last + 1 ? last + 1 : 1;
	/* SYNC: in-intent; partner zb_sources_intent. Read once: shared memory */
	uint32_t mark = __atomic_load_n(&s->state->in_mark, __ATOMIC_ACQUIRE);
	uint64_t id = __atomic_load_n(&s->state->in_source, __ATOMIC_ACQUIRE);
	int64_t ts = __atomic_load_n(&s->state->in_ts, __ATOMIC_ACQUIRE);
	if (!mark || mark != last || !id)
		return 0; /* that publish reached nobody (or none was in progress): deliver it again */
	int src = source_index(s, id);
	if (ts > s->last[src]) {
		s->last[src] = ts;
		s->state->in[src].last_ts = ts;
	}
	return 0;
}
