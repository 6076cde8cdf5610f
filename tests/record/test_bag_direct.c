/* Uncompressed chunks streamed to the file (tools/bag/direct.c): a large message is in the file
 * when bag_writer_message returns (written from the caller's buffer, not copied into a chunk); a
 * copy of the file taken while a chunk is open (a writer killed there) opens with every earlier
 * chunk, and reindex keeps exactly those; the finished file has every message, its chunk and data
 * section CRCs checked by the reader; with no_crc both are 0 and the file still reads.
 * Usage: test_bag_direct [DIR] (the copy of the open file is left in DIR as open-chunk-as-is.mcap,
 * for the independent reader of tests/record/mcap_check.cjs). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"
#include "bag_check.h"

#define BIG (100u << 10)

static uint8_t payload[BIG];

static void fill(int i)
{
	for (size_t k = 0; k < BIG; k++)
		payload[k] = (uint8_t)(i * 13 + k * 7 + (k >> 9));
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;
	while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0)
		CHECK(fwrite(buf, 1, n, b) == n, "copy %s", to);
	if (a)
		fclose(a);
	if (b)
		fclose(b);
}

/* Opens path; every message i of it must be message i as written (payload and small ones). */
static int read_back(const char *path, bool *truncated)
{
	struct bag_reader r;
	if (bag_open(path, &r) < 0) {
		fprintf(stderr, "FAIL: %s\n", r.err.text);
		failures++;
		bag_close(&r);
		return -1;
	}
	*truncated = r.truncated;
	struct bag_message m;
	int n = 0, k;
	while ((k = bag_next(&r, &m)) > 0) {
		bool big = m.sequence % 2 == 0;
		fill((int)m.sequence);
		CHECK(m.sequence == (uint32_t)n && m.log_time == 1000 + (uint64_t)n, "order at %d", n);
		CHECK(m.len == (big ? BIG : 40) && !memcmp(m.data, payload, m.len), "bytes of %d", n);
		n++;
	}
	CHECK(k == 0, "%s: %s", path, r.err.text);
	bag_close(&r);
	return n;
}

static void message(struct bag_writer *w, int ch, int i)
{
	fill(i);
	CHECK(bag_writer_message(w, ch, (uint32_t)i, 1000 + (uint64_t)i, (uint64_t)i, payload,
				 i % 2 == 0 ? BIG : 40) == 0,
	      "message %d", i);
}

/* The file's first chunk's CRC field and its Data End CRC (0: not computed). */
static void crcs(const char *path, uint32_t *chunk, uint32_t *data)
{
	struct bag_reader r;
	uint8_t c[9 + 28], d[9 + 4];
	*chunk = *data = 1;
	if (bag_open(path, &r) == 0 && r.data_end_at &&
	    pread(r.fd, c, sizeof c, (off_t)r.data_start) == (ssize_t)sizeof c &&
	    pread(r.fd, d, sizeof d, (off_t)r.data_end_at) == (ssize_t)sizeof d && c[0] == BAG_OP_CHUNK) {
		*chunk = bag_le32(c + 9 + 24);
		*data = bag_le32(d + 9);
	}
	bag_close(&r);
}

static void run(const char *dir, bool no_crc)
{
	char path[4200], cut[4200];
	snprintf(path, sizeof path, "%s/direct%s.mcap", dir, no_crc ? "-nocrc" : "");
	snprintf(cut, sizeof cut, "%s/open-chunk-as-is.mcap", dir);
	struct bag_writer_opts o = {.compression = "", .chunk_size = 1u << 20, .no_crc = no_crc};
	struct bag_writer *w;
	struct bag_err e = {{0}};
	if (bag_writer_open(path, &o, &w, &e) != 0) {
		fprintf(stderr, "FAIL open: %s\n", e.text);
		exit(1);
	}
	int ch = bag_writer_channel(w, 0, "/big", "zcast.raw", NULL, 0);
	long before = file_size(path);
	message(w, ch, 0);
	CHECK(file_size(path) >= before + (long)BIG,
	      "a %u-byte message is not in the file when its append returns (%ld -> %ld bytes)",
	      BIG, before, file_size(path));
	for (int i = 1; i < 4; i++)
		message(w, ch, i);
	CHECK(bag_writer_flush(w) == 0, "flush");
	for (int i = 4; i < 7; i++) /* an open chunk: its opening is still the placeholder */
		message(w, ch, i);
	if (!no_crc) {
		copy_file(path, cut);
		bool trunc = false;
		CHECK(read_back(cut, &trunc) == 4 && trunc,
		      "the file of a writer killed inside a chunk: the 4 messages of its sealed chunk");
		char re[4300];
		snprintf(re, sizeof re, "%s/open-chunk-reindexed.mcap", dir);
		copy_file(cut, re);
		CHECK(bag_reindex(re, NULL, &e) == 0, "reindex: %s", e.text);
		CHECK(read_back(re, &trunc) == 4 && !trunc, "reindexed: the sealed chunk's messages");
	}
	CHECK(bag_writer_close(w, &e) == 0, "close: %s", e.text);
	bool trunc = true;
	CHECK(read_back(path, &trunc) == 7 && !trunc, "all 7 messages of %s", path);
	uint32_t chunk, data;
	crcs(path, &chunk, &data);
	CHECK(no_crc ? chunk == 0 && data == 0 : chunk != 0 && data != 0,
	      "CRCs %08x (chunk) %08x (data section) with no_crc %d", chunk, data, no_crc);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/zcast-bag-direct-XXXXXX";
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
	if (!dir || (argc > 1 && mkdir(dir, 0755) != 0 && file_size(dir) < 0))
		return 1;
	run(dir, false);
	run(dir, true);
	if (argc < 2) {
		char cmd[200];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0, "%s", cmd);
	}
	if (failures)
		return 1;
	printf("streamed uncompressed chunks, kill -9 inside a chunk, CRCs on and off: ok\n");
	return 0;
}
