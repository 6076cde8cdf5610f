/* tools/bag: MCAP files written and read back (every compression, threaded or not, small chunks so
 * there are many), a file cut at every record boundary and inside records (opens with a prefix of
 * the messages, or fails with "file: offset: what"), reindex of a cut file, and corrupted bytes
 * (never a crash: an error naming file and offset, or a file that still checks). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"
#include "bag_check.h"

#define N_MSGS 3000
#define N_CH 3

static size_t msg_len(int i)
{
	return (size_t)(i * 7919 % 700);
}

static void msg_bytes(int i, uint8_t *p)
{
	for (size_t k = 0; k < msg_len(i); k++)
		p[k] = (uint8_t)(i * 31 + k * 7);
}

static void write_file(const char *path, const char *comp, bool threaded)
{
	struct bag_writer_opts o = {.compression = comp, .chunk_size = 16384, .threaded = threaded,
				    .profile = "ros2"};
	struct bag_writer *w;
	struct bag_err e = {{0}};
	if (bag_writer_open(path, &o, &w, &e) != 0) {
		fprintf(stderr, "open: %s\n", e.text);
		exit(1);
	}
	int s = bag_writer_schema(w, "std_msgs/msg/String", "ros2msg", "string data\n", 12);
	const char *kv[] = {"offered_qos_profiles", "- depth: 1\n", "k", "v"};
	for (int c = 0; c < N_CH; c++) {
		char topic[32];
		snprintf(topic, sizeof topic, "/t%d", c);
		CHECK(bag_writer_channel(w, c ? s : 0, topic, c ? "cdr" : "zcast-raw", kv, 2) == c,
		      "channel id");
	}
	uint8_t buf[700];
	for (int i = 0; i < N_MSGS; i++) {
		msg_bytes(i, buf);
		CHECK(bag_writer_message(w, i % N_CH, (uint32_t)i, 1000 + (uint64_t)i * 10,
					 (uint64_t)i, buf, msg_len(i)) == 0,
		      "message %d", i);
	}
	const char *meta[] = {"drops./t0", "0"};
	bag_writer_metadata(w, "zcast", meta, 1);
	CHECK(bag_writer_close(w, &e) == 0, "close: %s", e.text);
}

/* Reads a file; returns messages read (they must be 0, 1, ... in order), -1 on an open error. */
static int read_file(const char *path, bool *truncated, struct bag_err *err)
{
	struct bag_reader r;
	if (bag_open(path, &r) < 0) {
		*err = r.err;
		bag_close(&r);
		return -1;
	}
	*truncated = r.truncated;
	struct bag_message m;
	int n = 0, k;
	uint8_t buf[700];
	while ((k = bag_next(&r, &m)) > 0) {
		msg_bytes(n, buf);
		CHECK(m.sequence == (uint32_t)n && m.channel == n % N_CH && m.len == msg_len(n) &&
			  !memcmp(m.data, buf, m.len) && m.log_time == 1000 + (uint64_t)n * 10,
		      "%s: message %d differs", path, n);
		n++;
	}
	CHECK(k == 0, "%s: walk error %s", path, r.err.text);
	CHECK((uint64_t)n == r.messages, "%s: counted %llu, read %d", path,
	      (unsigned long long)r.messages, n);
	bag_close(&r);
	return n;
}

static void cut_copy(const char *from, const char *to, size_t len, long flip)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint8_t *p = malloc(len + 1);
	CHECK(pread(in, p, len, 0) == (ssize_t)len, "read back");
	if (flip >= 0 && (size_t)flip < len)
		p[flip] ^= 0x5a;
	CHECK(write(out, p, len) == (ssize_t)len, "write copy");
	free(p);
	close(in);
	close(out);
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static bool names_file_and_offset(const char *text, const char *path)
{
	size_t n = strlen(path);
	return !strncmp(text, path, n) && text[n] == ':' && text[n + 1] == ' ';
}

static void cuts(const char *path, const char *dir)
{
	char cut[512];
	snprintf(cut, sizeof cut, "%s/cut.mcap", dir);
	size_t size = file_size(path);
	int last = -1, opened = 0;
	for (size_t len = 0; len < size; len += len < 64 ? 1 : 997) {
		cut_copy(path, cut, len, -1);
		bool tr = false;
		struct bag_err e = {{0}};
		int n = read_file(cut, &tr, &e);
		if (n < 0) {
			CHECK(names_file_and_offset(e.text, cut), "error text '%s'", e.text);
			continue;
		}
		opened++;
		CHECK(tr, "a cut file opens as truncated");
		CHECK(n >= last, "a longer cut lost messages (%d < %d)", n, last);
		last = n;
		struct bag_err re = {{0}};
		CHECK(bag_reindex(cut, NULL, &re) == 0, "reindex: %s", re.text);
		int again = read_file(cut, &tr, &e);
		CHECK(again == n && !tr, "reindexed cut: %d messages (had %d), truncated %d: %s", again,
		      n, tr, e.text);
	}
	CHECK(opened > 10 && last > N_MSGS / 2, "cut files open (%d, last %d)", opened, last);
}

static void corruptions(const char *path, const char *dir)
{
	char bad[512];
	snprintf(bad, sizeof bad, "%s/bad.mcap", dir);
	size_t size = file_size(path);
	int errors = 0;
	for (long at = 0; at < (long)size; at += 211) {
		cut_copy(path, bad, size, at);
		bool tr;
		struct bag_err e = {{0}};
		if (read_file(bad, &tr, &e) < 0) {
			CHECK(names_file_and_offset(e.text, bad), "error text '%s'", e.text);
			errors++;
		}
	}
	CHECK(errors > 0, "no corruption was detected");
}

int main(void)
{
	char dir[] = "/tmp/zcast-test-bag-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	const char *comps[] = {"zstd", "lz4", ""};
	char path[512];
	for (int c = 0; c < 3; c++)
		for (int t = 0; t < 2; t++) {
			snprintf(path, sizeof path, "%s/f%d%d.mcap", dir, c, t);
			write_file(path, comps[c], t);
			bool tr = true;
			struct bag_err e = {{0}};
			int n = read_file(path, &tr, &e);
			CHECK(n == N_MSGS && !tr, "%s: %d messages, truncated %d: %s", path, n, tr,
			      e.text);
		}
	snprintf(path, sizeof path, "%s/f00.mcap", dir);
	cuts(path, dir);
	corruptions(path, dir);
	struct bag_err e = {{0}};
	bool tr;
	snprintf(path, sizeof path, "%s/foreign", dir);
	FILE *f = fopen(path, "w");
	fputs("PK\x03\x04 not an mcap file", f);
	fclose(f);
	CHECK(read_file(path, &tr, &e) < 0 && strstr(e.text, ": 0: not an MCAP file"), "foreign: %s",
	      e.text);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("bag: write, read, cuts, reindex, corruptions: ok\n");
	return failures ? 1 : 0;
}
