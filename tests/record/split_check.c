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

#include "bag.h"

static int fail(const char *what, const char *file)
{
	fprintf(stderr, "split_check: %s%s%s\n", file ? file : "", file ? ": " : "", what);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return fail("usage: split_check lossless|drops N MIN_PIECES TOPIC FILE...", NULL);
	bool lossless = !strcmp(argv[1], "lossless");
	uint64_t n = strtoull(argv[2], NULL, 10), dropped = 0, count = 0;
	int min_pieces = atoi(argv[3]);
	const char *topic = argv[4];
	char key[300];
	snprintf(key, sizeof key, "dropped:%s", topic);
	int64_t first = -1, last = -1;
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
			/* the low 32 bits of the zcast sequence: this test stays far below 2^32 */
			int64_t seq = m.sequence;
			if (seq <= last) {
				fprintf(stderr,
					"split_check: %s: sequence %" PRId64 " after %" PRId64 "\n",
					argv[i], seq, last);
				return 1;
			}
			if (first < 0)
				first = seq;
			last = seq;
			here++;
		}
		if (k < 0)
			return fail(r.err.text, NULL);
		if (!here)
			return fail("empty piece", argv[i]);
		count += here;
		for (int j = 0; i == argc - 1 && j < r.nmetadata; j++)
			if (!strcmp(r.metadata[j].name, "zcast") &&
			    bag_meta(r.metadata[j].meta, r.metadata[j].nmeta, key))
				dropped =
				    strtoull(bag_meta(r.metadata[j].meta, r.metadata[j].nmeta, key),
					     NULL, 10);
		bag_close(&r);
	}
	printf("pieces %d messages %" PRIu64 " dropped %" PRIu64 "\n", argc - 5, count, dropped);
	if (argc - 5 < min_pieces)
		return fail("fewer pieces than wanted", NULL);
	if (lossless && (count != n || (uint64_t)(last - first + 1) != n))
		return fail("lossless: not every message in exactly one piece", NULL);
	if (!lossless && count + dropped != n)
		return fail("recorded + dropped != published", NULL);
	return 0;
}
