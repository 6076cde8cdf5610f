/* Checks the pieces of a recording of several topics, each published by one publisher (N messages
 * a topic, consecutive zcast sequence numbers), given in their numbered order: every piece opens
 * (our full check), has its footer and a message; per topic the sequence numbers rise strictly over
 * all pieces (no message in two pieces); and
 *   lossless: exactly N messages a topic, consecutive;
 *   drops:    per topic, recorded + dropped (the last piece's "zcast" metadata) == N;
 * and, the point of this check, no message's log time is before the one written just before it
 * (file order is publish-time order across topics: docs/RECORDING.md, "Order").
 * Prints "pieces P messages M backwards B"; exit 1 with why otherwise.
 * Usage: order_check lossless|drops N TOPICS MIN_PIECES FILE... */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag.h"

#define MAX_TOPICS 16

struct topic {
	char name[256];
	uint64_t count, dropped;
	int64_t first, last;
};

static struct topic topics[MAX_TOPICS];
static int ntopics;

static struct topic *topic_of(const char *name)
{
	for (int i = 0; i < ntopics; i++)
		if (!strcmp(topics[i].name, name))
			return &topics[i];
	if (ntopics == MAX_TOPICS)
		return NULL;
	struct topic *t = &topics[ntopics++];
	snprintf(t->name, sizeof t->name, "%s", name);
	t->first = t->last = -1;
	return t;
}

static int fail(const char *what, const char *file)
{
	fprintf(stderr, "order_check: %s%s%s\n", file ? file : "", file ? ": " : "", what);
	return 1;
}

/* The drops of every topic, from the "zcast" metadata of the last piece. */
static void read_drops(const struct bag_reader *r)
{
	for (int j = 0; j < r->nmetadata; j++) {
		if (strcmp(r->metadata[j].name, "zcast"))
			continue;
		for (int i = 0; i < ntopics; i++) {
			char key[300];
			snprintf(key, sizeof key, "dropped:%.255s", topics[i].name);
			const char *v = bag_meta(r->metadata[j].meta, r->metadata[j].nmeta, key);
			topics[i].dropped = v ? strtoull(v, NULL, 10) : 0;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return fail("usage: order_check lossless|drops N TOPICS MIN_PIECES FILE...", NULL);
	bool lossless = !strcmp(argv[1], "lossless");
	uint64_t n = strtoull(argv[2], NULL, 10), messages = 0, backwards = 0, prev = 0;
	int want_topics = atoi(argv[3]), min_pieces = atoi(argv[4]);
	const char *prev_topic = "";
	int64_t prev_seq = 0;
	for (int i = 5; i < argc; i++) {
		struct bag_reader r;
		if (bag_open(argv[i], &r) != 0)
			return fail(r.err.text, NULL);
		if (r.truncated)
			return fail("no footer: the piece was not closed", argv[i]);
		struct bag_message m;
		uint64_t here = 0;
		int k;
		while ((k = bag_next(&r, &m)) > 0) {
			struct topic *t = topic_of(bag_channel_get(&r, m.channel)->topic);
			if (!t)
				return fail("too many topics", argv[i]);
			int64_t seq = m.sequence; /* low 32 bits: this test stays far below 2^32 */
			if (seq <= t->last) {
				fprintf(stderr,
					"order_check: %s: %s: sequence %" PRId64 " after %" PRId64
					"\n",
					argv[i], t->name, seq, t->last);
				return 1;
			}
			if (t->first < 0)
				t->first = seq;
			t->last = seq;
			t->count++;
			if (messages && m.log_time < prev && backwards++ < 5)
				fprintf(
				    stderr,
				    "order_check: %s: %s %" PRId64 " at %" PRIu64 " ns, %" PRIu64
				    " ns before the message written before it (%s %" PRId64 ")\n",
				    argv[i], t->name, seq, m.log_time, prev - m.log_time,
				    prev_topic, prev_seq);
			prev = m.log_time;
			prev_topic = t->name;
			prev_seq = seq;
			messages++;
			here++;
		}
		if (k < 0)
			return fail(r.err.text, NULL);
		if (!here)
			return fail("empty piece", argv[i]);
		if (i == argc - 1)
			read_drops(&r);
		bag_close(&r);
	}
	printf("pieces %d messages %" PRIu64 " backwards %" PRIu64 "\n", argc - 5, messages,
	       backwards);
	if (argc - 5 < min_pieces)
		return fail("fewer pieces than wanted", NULL);
	if (ntopics != want_topics)
		return fail("not every topic was recorded", NULL);
	for (int i = 0; i < ntopics; i++) {
		const struct topic *t = &topics[i];
		if (lossless && (t->count != n || (uint64_t)(t->last - t->first + 1) != n))
			return fail("lossless: not every message in exactly one piece", t->name);
		if (!lossless && t->count + t->dropped != n)
			return fail("recorded + dropped != published", t->name);
	}
	if (backwards)
		return fail("messages in the file are not in publish-time order", NULL);
	return 0;
}
