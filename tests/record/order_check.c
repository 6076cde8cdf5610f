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

#include "pieces_check.h"

#define MAX_TOPICS 16

struct topic {
	char name[256];
	struct seq_run run;
	uint64_t dropped;
};

static struct topic topics[MAX_TOPICS];
static int ntopics;

/* The message written just before (file order), and how often one was older than it. */
static uint64_t messages, backwards, prev;
static const char *prev_topic = "";
static int64_t prev_seq;

static struct topic *topic_of(const char *name)
{
	for (int i = 0; i < ntopics; i++)
		if (!strcmp(topics[i].name, name))
			return &topics[i];
	if (ntopics == MAX_TOPICS)
		return NULL;
	struct topic *t = &topics[ntopics++];
	snprintf(t->name, sizeof t->name, "%s", name);
	t->run = (struct seq_run)SEQ_RUN_NONE;
	return t;
}

static int each(void *ctx, const char *file, const struct bag_reader *r, const struct bag_message *m)
{
	(void)ctx;
	struct topic *t = topic_of(bag_channel_get(r, m->channel)->topic);
	if (!t)
		return pieces_fail("order_check", "too many topics", file);
	int64_t seq = m->sequence;
	if (!seq_run_add(&t->run, seq)) {
		fprintf(stderr, "order_check: %s: %s: sequence %" PRId64 " after %" PRId64 "\n", file,
			t->name, seq, t->run.last);
		return 1;
	}
	if (messages && m->log_time < prev && backwards++ < 5)
		fprintf(stderr,
			"order_check: %s: %s %" PRId64 " at %" PRIu64 " ns, %" PRIu64
			" ns before the message written before it (%s %" PRId64 ")\n",
			file, t->name, seq, m->log_time, prev - m->log_time, prev_topic, prev_seq);
	prev = m->log_time;
	prev_topic = t->name;
	prev_seq = seq;
	messages++;
	return 0;
}

/* The drops of every topic, from the "zcast" metadata of the last piece. */
static void last(void *ctx, const struct bag_reader *r)
{
	(void)ctx;
	for (int i = 0; i < ntopics; i++)
		topics[i].dropped = pieces_dropped(r, topics[i].name);
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return pieces_fail("order_check",
				   "usage: order_check lossless|drops N TOPICS MIN_PIECES FILE...", NULL);
	bool lossless = !strcmp(argv[1], "lossless");
	uint64_t n = strtoull(argv[2], NULL, 10);
	int want_topics = atoi(argv[3]), min_pieces = atoi(argv[4]);
	int rc = pieces_read("order_check", argv + 5, argc - 5, each, last, NULL);
	if (rc)
		return rc;
	printf("pieces %d messages %" PRIu64 " backwards %" PRIu64 "\n", argc - 5, messages,
	       backwards);
	if (argc - 5 < min_pieces)
		return pieces_fail("order_check", "fewer pieces than wanted", NULL);
	if (ntopics != want_topics)
		return pieces_fail("order_check", "not every topic was recorded", NULL);
	for (int i = 0; i < ntopics; i++) {
		const struct topic *t = &topics[i];
		if (lossless && !seq_run_whole(&t->run, n))
			return pieces_fail("order_check",
					   "lossless: not every message in exactly one piece", t->name);
		if (!lossless && t->run.count + t->dropped != n)
			return pieces_fail("order_check", "recorded + dropped != published",
					   t->name);
	}
	if (backwards)
		return pieces_fail("order_check",
				   "messages in the file are not in publish-time order", NULL);
	return 0;
}
