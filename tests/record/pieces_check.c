/* The pieces of a split recording, read for split_check and order_check (pieces_check.h). */
#include "pieces_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool seq_run_add(struct seq_run *run, int64_t seq)
{
	if (seq <= run->last)
		return false;
	if (run->first < 0)
		run->first = seq;
	run->last = seq;
	run->count++;
	return true;
}

bool seq_run_whole(const struct seq_run *run, uint64_t n)
{
	return run->count == n && (uint64_t)(run->last - run->first + 1) == n;
}

int pieces_fail(const char *prog, const char *what, const char *file)
{
	fprintf(stderr, "%s: %s%s%s\n", prog, file ? file : "", file ? ": " : "", what);
	return 1;
}

int pieces_read(const char *prog, char **files, int n, piece_message_fn *each, piece_last_fn *last,
		void *ctx)
{
	for (int i = 0; i < n; i++) {
		struct bag_reader r;
		if (bag_open(files[i], &r) != 0)
			return pieces_fail(prog, r.err.text, NULL);
		int rc = 0, k = 0;
		uint64_t here = 0;
		struct bag_message m;
		if (r.truncated)
			rc = pieces_fail(prog, "no footer: the piece was not closed", files[i]);
		while (!rc && (k = bag_next(&r, &m)) > 0) {
			rc = each(ctx, files[i], &r, &m);
			here++;
		}
		if (!rc && k < 0)
			rc = pieces_fail(prog, r.err.text, NULL);
		if (!rc && !here)
			rc = pieces_fail(prog, "empty piece", files[i]);
		if (!rc && i == n - 1)
			last(ctx, &r);
		bag_close(&r);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t pieces_dropped(const struct bag_reader *r, const char *topic)
{
	char key[300];
	snprintf(key, sizeof key, "dropped:%.255s", topic);
	uint64_t dropped = 0;
	for (int j = 0; j < r->nmetadata; j++) {
		const char *v = strcmp(r->metadata[j].name, "zcast")
					? NULL
					: bag_meta(r->metadata[j].meta, r->metadata[j].nmeta, key);
		if (v)
			dropped = strtoull(v, NULL, 10);
	}
	return dropped;
}
