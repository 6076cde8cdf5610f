/* The receiving half of exactly once (docs/BRIDGE.md, "Exactly once").
 *
 * A bridge's DDS writer announces its source in USER_DATA ("zcastsrc=<16 hex digits>;"): the random
 * id of the topic's claim file on the sending host, the same for every bridge that ever serves that
 * topic there (a standby, a restart), different on every other host or /dev/shm. Its source
 * timestamps strictly grow with the topic's sequence, and a message sent again by a successor
 * carries the timestamp it was first sent with (route_out.c). So per source, a sample whose
 * timestamp is not newer than the newest delivered was delivered: it is a resend, and skipped. The
 * newest per source lives in the route's claim file, so a restarted receiving bridge goes on
 * filtering. Writers without a source (ROS 2 nodes, other DDS programs) are never filtered. */
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
	struct {
		dds_instance_handle_t h;
		int src; /* index, or -1: not a bridge */
	} cache[ZB_HANDLES];
	unsigned next_cache, next_evict;
};

struct zb_sources *zb_sources_new(struct zb_state *state, dds_entity_t reader)
{
	struct zb_sources *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
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
	static const char key[] = "zcastsrc=";
	for (size_t i = 0; i + sizeof key - 1 <= n; i++) {
		if ((i == 0 || ud[i - 1] == ';') && memcmp(ud + i, key, sizeof key - 1) == 0) {
			uint64_t v = 0;
			size_t k = i + sizeof key - 1, digits = 0;
			for (; k < n && ud[k] != ';' && digits < 17; k++, digits++) {
				char ch = ud[k];
				int d = ch >= '0' && ch <= '9'	 ? ch - '0'
					: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
								 : -1;
				if (d < 0)
					return 0;
				v = v << 4 | (uint64_t)d;
			}
			return digits == 16 && k < n ? v : 0;
		}
	}
	return 0;
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

static int source_of(struct zb_sources *s, dds_instance_handle_t h)
{
	for (unsigned i = 0; i < s->next_cache; i++)
		if (s->cache[i].h == h)
			return s->cache[i].src;
	dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(s->reader, h);
	if (!ep && s->catchup > 0)
		ep = dds_get_matched_publication_data(s->catchup, h);
	if (!ep) /* no longer matched: unknown now, perhaps known later */
		return -1;
	void *ud = NULL;
	size_t n = 0;
	uint64_t id = 0;
	if (dds_qget_userdata(ep->qos, &ud, &n) && ud)
		id = parse_source(ud, n);
	dds_free(ud);
	dds_builtintopic_free_endpoint(ep);
	int src = id ? source_index(s, id) : -1;
	unsigned slot = s->next_cache < ZB_HANDLES ? s->next_cache++ : (unsigned)(h % ZB_HANDLES);
	s->cache[slot].h = h;
	s->cache[slot].src = src;
	return src;
}

int zb_sources_is_bridge(struct zb_sources *s, dds_instance_handle_t publication)
{
	return source_of(s, publication) >= 0;
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
