/* What the checks of a split recording (split_check, order_check) share: reading its pieces in
 * their numbered order, where every piece must open (our full check: chunk CRCs, indexes, summary),
 * have its footer and at least one message; a topic's run of zcast sequence numbers; the drops the
 * last piece's "zcast" metadata counts. */
#ifndef ZCAST_TEST_PIECES_CHECK_H
#define ZCAST_TEST_PIECES_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "bag.h"

/* One publisher's messages on a topic: the low 32 bits of their zcast sequence numbers (these
 * tests stay far below 2^32). */
struct seq_run {
	int64_t first, last; /* -1: none yet */
	uint64_t count;
};
#define SEQ_RUN_NONE {.first = -1, .last = -1}

/* Adds seq; false when it does not rise over the last one (a message in two pieces, or out of
 * order). */
bool seq_run_add(struct seq_run *run, int64_t seq);
/* Lossless: exactly n messages, consecutive (every message in exactly one piece). */
bool seq_run_whole(const struct seq_run *run, uint64_t n);

/* Called for every message of every piece, in file order; a nonzero return ends the reading with
 * it. */
typedef int piece_message_fn(void *ctx, const char *file, const struct bag_reader *r,
			     const struct bag_message *m);
/* Called with the last piece, before it is closed (for its metadata). */
typedef void piece_last_fn(void *ctx, const struct bag_reader *r);

/* Reads files[0..n) as above: 0, or what `each` returned, or 1 after printing why. */
int pieces_read(const char *prog, char **files, int n, piece_message_fn *each, piece_last_fn *last,
		void *ctx);
/* The "dropped:TOPIC" count of r's "zcast" metadata (0 when it has none). */
uint64_t pieces_dropped(const struct bag_reader *r, const char *topic);
/* Prints "PROG: [FILE: ]what" to stderr; returns 1 (the exit status of a failed check). */
int pieces_fail(const char *prog, const char *what, const char *file);

#endif
