/* A recording cut shorter (truncate) by another process while the reader reads it: the reads after
 * the cut end in an error "file: offset: what" (-1), never in SIGBUS (the reader reads with pread
 * and never maps the file). For each compression: the file cut after it was opened, between two
 * messages, read by bag_next and by bag_next_lazy + bag_message_read; and cut before each single
 * read of bag_open and the walk of its messages (bag_read_hook), at every one of them in turn.
 * Usage: test_bag_shrink DIR */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"
#include "bag_check.h"

#define N 24
#define LEN 4096u

static uint8_t payload[LEN];

static void fill(int i)
{
	for (size_t k = 0; k < LEN; k++)
		payload[k] = (uint8_t)(i * 13 + k * 7);
}

static void write_file(const char *path, const char *comp)
{
	struct bag_writer_opts o = {.compression = comp, .chunk_size = 16384};
	struct bag_writer *w;
	struct bag_err e = {{0}};
	if (bag_writer_open(path, &o, &w, &e) != 0) {
		fprintf(stderr, "FAIL: %s\n", e.text);
		exit(1);
	}
	CHECK(bag_writer_channel(w, 0, "/shrink", "zcast.raw", NULL, 0) == 0, "channel");
	for (int i = 0; i < N; i++) {
		fill(i);
		CHECK(bag_writer_message(w, 0, (uint32_t)i, 1000 + (uint64_t)i, 0, payload, LEN) == 0,
		      "message %d", i);
	}
	CHECK(bag_writer_close(w, &e) == 0, "close: %s", e.text);
}

/* The next message, whole in memory (bag_next) or read into buf (bag_next_lazy, then
 * bag_message_read); its bytes checked against message `i`. 1, 0 or -1 as bag_next. */
static int next(struct bag_reader *r, bool lazy, int i)
{
	struct bag_message m;
	static uint8_t buf[LEN];
	int k = lazy ? bag_next_lazy(r, &m) : bag_next(r, &m);
	if (k <= 0)
		return k;
	if (lazy && (m.len > LEN || bag_message_read(r, &m, buf) < 0))
		return -1;
	fill(i);
	CHECK(m.len == LEN && !memcmp(lazy ? buf : m.data, payload, LEN), "bytes of message %d", i);
	return 1;
}

/* A failure, as the cut must give: -1, the error naming the file (and, where said, the cut). */
static void check_error(const struct bag_reader *r, int k, const char *path, bool cut_said,
			const char *how)
{
	CHECK(k == -1, "%s: %s: read on past the cut (%d)", path, how, k);
	CHECK(!strncmp(r->err.text, path, strlen(path)) && r->err.text[strlen(path)] == ':',
	      "%s: error does not name the file: %s", how, r->err.text);
	CHECK(!cut_said || strstr(r->err.text, "cut while being read"), "%s: %s", how, r->err.text);
}

/* Opened whole, 3 messages read, the file cut to half its size: the reads past the cut fail. */
static void cut_after_open(const char *path, const char *comp, bool lazy)
{
	write_file(path, comp);
	struct bag_reader r;
	if (bag_open(path, &r) != 0) {
		CHECK(0, "open: %s", r.err.text);
		bag_close(&r);
		return;
	}
	int i = 0, k = 1;
	while (i < 3 && (k = next(&r, lazy, i)) > 0)
		i++;
	CHECK(i == 3, "%s: first messages: %s", path, r.err.text);
	CHECK(truncate(path, (off_t)(r.size / 2)) == 0, "truncate %s", path);
	while ((k = next(&r, lazy, i)) > 0)
		i++;
	check_error(&r, k, path, true, lazy ? "lazy, cut after open" : "cut after open");
	CHECK(i < N, "%s: all %d messages read from half the file", path, i);
	bag_close(&r);
}

static const char *hook_path;
static int hook_reads, hook_cut_at;

/* Before the hook_cut_at-th read: the file is emptied. */
static void cut_hook(const struct bag_reader *r, uint64_t at)
{
	(void)r;
	(void)at;
	if (++hook_reads == hook_cut_at)
		CHECK(truncate(hook_path, 0) == 0, "truncate %s", hook_path);
}

/* Cut before read 1, then before read 2, ... until a walk of open and messages ends before it. */
static void cut_at_every_read(const char *path, const char *comp)
{
	int cuts = 0;
	for (int at = 1;; at++) {
		write_file(path, comp);
		hook_path = path;
		hook_reads = 0;
		hook_cut_at = at;
		bag_read_hook = cut_hook;
		struct bag_reader r;
		int k = bag_open(path, &r), i = 0;
		if (k == 0)
			while ((k = next(&r, false, i)) > 0)
				i++;
		bag_read_hook = NULL;
		if (hook_reads < at) { /* done before that read: the file read whole */
			CHECK(k == 0 && i == N, "%s: uncut: %d messages, %s", path, i, r.err.text);
			bag_close(&r);
			break;
		}
		check_error(&r, k, path, true, "cut before a read");
		bag_close(&r);
		cuts++;
	}
	CHECK(cuts > N, "%s: only %d reads", path, cuts);
	printf("%s: cut before each of its %d reads: an error each time\n", comp[0] ? comp : "none",
	       cuts);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	const char *comps[] = {"", "zstd", "lz4"};
	char path[4200];
	for (size_t c = 0; c < sizeof comps / sizeof comps[0]; c++) {
		snprintf(path, sizeof path, "%s/shrink-%s.mcap", dir, comps[c][0] ? comps[c] : "none");
		cut_after_open(path, comps[c], false);
		cut_after_open(path, comps[c], true);
		cut_at_every_read(path, comps[c]);
		unlink(path);
	}
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("a file cut while it is read: an error naming it, never a signal: ok\n");
	return 0;
}
