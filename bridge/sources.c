/* Recognising a message sent again (docs/BRIDGE.md, "No loops, no duplicates").
 *
 * When a bridge takes over a topic (a standby after a crash, or a restart), it sends again what its
 * predecessor may have sent but not seen acknowledged. A receiving bridge drops those: every bridge
 * of one host and zcast domain is one source (its writers say "zcastsrc=<boot id>/<domain>;" in
 * USER_DATA) and stamps a message with a timestamp derived from the message alone (boot time in
 * whole seconds + the zcast publish time, which is taken under the topic lock with the sequence
 * number, so it grows with it). Per source, a sample not newer than the newest delivered is a
 * resend. The newest per source lives in the route's state file, so a restarted receiving bridge
 * keeps filtering. Writers without a source (ROS 2 nodes, other DDS programs) are never filtered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ZB_HANDLES 32

struct zb_sources {
	struct zb_state *state; /* shared memory: entries are copied in at start, written through */
	dds_entity_t reader;
	char id[ZB_SOURCES][ZB_SOURCE_LEN];
	int64_t last[ZB_SOURCES];
	struct {
		dds_instance_handle_t h;
		int src; /* index, or -1: not a bridge */
	} cache[ZB_HANDLES];
	unsigned next_cache, next_evict;
};

void zb_source_id(const char *zdomain, char out[ZB_SOURCE_LEN])
{
	char boot[64] = "unknown";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(boot, sizeof boot, f))
			snprintf(boot, sizeof boot, "unknown");
		fclose(f);
	}
	boot[strcspn(boot, "\n")] = 0;
	snprintf(out, ZB_SOURCE_LEN, "%s/%s", boot, zdomain);
}

/* The boot time in whole seconds (/proc/stat btime): the same in every process of a boot. */
static int64_t boot_time_ns(void)
{
	static _Atomic int64_t cached = -1; /* routes' threads may race to fill it: same value */
	int64_t c = atomic_load(&cached);
	if (c >= 0)
		return c;
	long long bt = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	if (f)
		fclose(f);
	atomic_store(&cached, (int64_t)bt * 1000000000);
	return (int64_t)bt * 1000000000;
}

int64_t zb_source_ts(int64_t publish_time_ns)
{
	return boot_time_ns() + publish_time_ns;
}

struct zb_sources *zb_sources_new(struct zb_state *state, dds_entity_t reader)
{
	struct zb_sources *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->state = state;
	s->reader = reader;
	for (int i = 0; i < ZB_SOURCES; i++) { /* read once, checked: the file is shared memory */
		memcpy(s->id[i], (const void *)state->in[i].id, ZB_SOURCE_LEN);
		s->id[i][ZB_SOURCE_LEN - 1] = 0;
		s->last[i] = ZB_READ_ONCE(state->in[i].last_ts);
	}
	return s;
}

void zb_sources_free(struct zb_sources *s)
{
	free(s);
}

/* The source a publication announces ("zcastsrc=...;" in its USER_DATA), or NULL. */
static int parse_source(const char *ud, size_t n, char out[ZB_SOURCE_LEN])
{
	static const char key[] = "zcastsrc=";
	for (size_t i = 0; i + sizeof key - 1 <= n; i++) {
		if ((i == 0 || ud[i - 1] == ';') && memcmp(ud + i, key, sizeof key - 1) == 0) {
			size_t b = i + sizeof key - 1, e = b;
			while (e < n && ud[e] != ';')
				e++;
			if (e - b == 0 || e - b >= ZB_SOURCE_LEN)
				return 0;
			memcpy(out, ud + b, e - b);
			out[e - b] = 0;
			return 1;
		}
	}
	return 0;
}

static int source_of(struct zb_sources *s, dds_instance_handle_t h)
{
	for (unsigned i = 0; i < s->next_cache; i++)
		if (s->cache[i].h == h)
			return s->cache[i].src;
	int src = -1;
	char id[ZB_SOURCE_LEN];
	dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(s->reader, h);
	void *ud = NULL;
	size_t n = 0;
	if (ep && dds_qget_userdata(ep->qos, &ud, &n) && ud && parse_source(ud, n, id)) {
		for (int i = 0; i < ZB_SOURCES && src < 0; i++)
			if (strcmp(s->id[i], id) == 0)
				src = i;
		if (src < 0) { /* a new source takes a free entry, else the oldest-numbered one */
			for (int i = 0; i < ZB_SOURCES && src < 0; i++)
				if (!s->id[i][0])
					src = i;
			if (src < 0)
				src = (int)(s->next_evict++ % ZB_SOURCES);
			memcpy(s->id[src], id, ZB_SOURCE_LEN);
			s->last[src] = 0;
			memcpy((void *)s->state->in[src].id, id, ZB_SOURCE_LEN);
			s->state->in[src].last_ts = 0;
		}
	}
	dds_free(ud);
	if (!ep) /* no longer matched: unknown now, perhaps known later */
		return -1;
	dds_builtintopic_free_endpoint(ep);
	unsigned slot = s->next_cache < ZB_HANDLES ? s->next_cache++ : (unsigned)(h % ZB_HANDLES);
	s->cache[slot].h = h;
	s->cache[slot].src = src;
	return src;
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
