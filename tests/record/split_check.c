/* Checks the pieces of a split recording of one topic published by one publisher (N messages,
 * consecutive zcast sequence numbers), given in their numbered order: every piece opens (our full
 * check: chunk CRCs, indexes, summary), has its footer and at least one message; the sequence
 * numbers over all pieces rise strictly (no message in two pieces, none out of order); and
 *   lossless: exactly N messages, consecutive (every message in exactly one piece);
 *   drops:    recorded + dropped (the last piece's "zcast" metadata) == N.
 * At least MIN_PIECES pieces. Prints "pieces P messages M dropped D"; exit 1 with why otherwise.
 * Usage: split_check lossless|drops N MIN_PIECES TOPIC FILE... */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pieces_check.h"

struct split {
	const char *topic;
	struct seq_run run;
	uint64_t dropped;
};

static int each(void *ctx, const char *file, const struct bag_reader *r, const struct bag_message *m)
{
	(void)r;
	struct split *s = ctx;
	int64_t prev = s->run.last;
	if (!seq_run_add(&s->run, m->sequence)) {
		fprintf(stderr, "split_check: %s: sequence %" PRId64 " after %" PRId64 "\n", file,
			(int64_t)m->sequence, prev);
		return 1;
	}
	return 0;
}

static void last(void *ctx, const struct bag_reader *r)
{
	struct split *s = ctx;
	s->dropped = pieces_dropped(r, s->topic);
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return pieces_fail("split_check",
				   "usage: split_check lossless|drops N MIN_PIECES TOPIC FILE...", NULL);
	bool lossless = !strcmp(argv[1], "lossless");
	uint64_t n = strtoull(argv[2], NULL, 10);
	int min_pieces = atoi(argv[3]);
	struct split s = {.topic = argv[4], .run = SEQ_RUN_NONE};
	int rc = pieces_read("split_check", argv + 5, argc - 5, each, last, &s);
	if (rc)
		return rc;
	printf("pieces %d messages %" PRIu64 " dropped %" PRIu64 "\n", argc - 5, s.run.count,
	       s.dropped);
	if (argc - 5 < min_pieces)
		return pieces_fail("split_check", "fewer pieces than wanted", NULL);
	if (lossless && !seq_run_whole(&s.run, n))
		return pieces_fail("split_check", "lossless: not every message in exactly one piece",
				   NULL);
	if (!lossless && s.run.count + s.dropped != n)
		return pieces_fail("split_check", "recorded + dropped != published", NULL);
	return 0;
}
