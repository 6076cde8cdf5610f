/* Attachments through reindex (tools/bag/attach.c): a file written with two attachments (one empty)
 * beside its messages reads them back checked; `bag reindex` of the whole file and of a copy cut
 * before its summary (as a killed writer leaves one) keeps them, each Attachment record
 * byte-identical to the original's, with the attachment count in Statistics (the reader checks it);
 * a corrupted attachment is refused with "file: offset: attachment CRC mismatch", an attachment
 * index that points elsewhere with "file: offset: attachment index does not point ...". With an
 * argument, the reindexed file is also left in that directory (for the independent reader). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"
#include "bag_check.h"

#define N_MSGS 500
#define DATA_LEN 5000

static uint8_t data[DATA_LEN];

struct want {
	const char *name, *type;
	uint64_t log_time, create_time;
	const uint8_t *data;
	size_t len;
};
static const struct want want[2] = {
    {"calibration.yaml", "application/yaml", 1500, 42, data, DATA_LEN},
    {"empty", "", 0, 0, data, 0},
};

static void write_file(const char *path)
{
	struct bag_writer_opts o = {.compression = "zstd", .chunk_size = 8192, .threaded = true};
	struct bag_writer *w;
	struct bag_err e = {{0}};
	CHECK(bag_writer_open(path, &o, &w, &e) == 0, "open: %s", e.text);
	CHECK(bag_writer_channel(w, 0, "/att/t", "zcast.raw", NULL, 0) == 0, "channel");
	for (int i = 0; i < N_MSGS; i++)
		CHECK(bag_writer_message(w, 0, (uint32_t)i, 1000 + (uint64_t)i, 0, data + i, 100) ==
			  0,
		      "message %d", i);
	for (int i = 0; i < 2; i++)
		CHECK(bag_writer_attachment(w, want[i].log_time, want[i].create_time, want[i].name,
					    want[i].type, want[i].data, want[i].len) == 0,
		      "attachment %d", i);
	CHECK(bag_writer_close(w, &e) == 0, "close: %s", e.text);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *p = NULL;
	*n = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && (p = malloc((size_t)st.st_size + 1)) &&
	    pread(fd, p, (size_t)st.st_size, 0) == st.st_size)
		*n = (size_t)st.st_size;
	if (fd >= 0)
		close(fd);
	return p;
}

static void put(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, p, n) == (ssize_t)n, "write %s", path);
	if (fd >= 0)
		close(fd);
}

/* Opens path and checks its attachments against want and (when orig) their records' bytes against
 * those in orig. Returns the offset of the Data End record (0: none). */
static uint64_t check(const char *path, bool complete, const uint8_t *orig, size_t orig_n)
{
	struct bag_reader r;
	if (bag_open(path, &r) != 0) {
		CHECK(0, "%s", r.err.text);
		bag_close(&r);
		return 0;
	}
	CHECK(r.has_footer == complete, "%s: footer %d", path, r.has_footer);
	CHECK(r.messages == N_MSGS, "%s: %llu messages", path, (unsigned long long)r.messages);
	CHECK(r.nattachments == 2, "%s: %d attachments", path, r.nattachments);
	size_t n;
	uint8_t *file = slurp(path, &n);
	for (int i = 0; i < 2 && i < r.nattachments && file; i++) {
		const struct bag_attachment *a = &r.attachments[i];
		CHECK(!strcmp(a->name, want[i].name) && !strcmp(a->media_type, want[i].type) &&
			  a->log_time == want[i].log_time && a->create_time == want[i].create_time,
		      "%s: attachment %d: %s %s", path, i, a->name, a->media_type);
		CHECK(a->len == want[i].len && !memcmp(a->data, want[i].data, want[i].len),
		      "%s: attachment %d: other data", path, i);
		CHECK(a->offset + a->record_len <= n && file[a->offset] == BAG_OP_ATTACHMENT,
		      "%s: attachment %d: not at its offset", path, i);
		if (!orig)
			continue;
		/* the same record in the original: the first one of its length with its name */
		bool same = false;
		for (size_t k = 0; k + a->record_len <= orig_n && !same; k++)
			same = !memcmp(orig + k, file + a->offset, a->record_len);
		CHECK(same, "%s: attachment %d: record not byte-identical to the original's", path,
		      i);
	}
	uint64_t end = r.data_end_at;
	free(file);
	bag_close(&r);
	return end;
}

/* The Attachment Index of the attachment at `at` pointed one byte further (and the summary CRC
 * zeroed, "not computed"): the reader refuses it. */
static void bad_index(const char *from, const char *to, uint64_t at, uint64_t len)
{
	size_t n;
	uint8_t *p = slurp(from, &n);
	size_t k = 0;
	for (k = 0; p && k + 25 <= n; k++) /* opcode, length, offset, record length */
		if (p[k] == BAG_OP_ATTACHMENT_INDEX && bag_le64(p + k + 9) == at &&
		    bag_le64(p + k + 17) == len)
			break;
	CHECK(p && k + 25 <= n && n > 12, "no attachment index in %s", from);
	if (p && k + 25 <= n && n > 12) {
		p[k + 9]++;
		memset(p + n - BAG_MAGIC_LEN - 4, 0, 4);
		put(to, p, n);
		struct bag_reader r;
		CHECK(bag_open(to, &r) != 0 &&
			  strstr(r.err.text, "attachment index does not point"),
		      "attachment index elsewhere: '%s'", r.err.text);
		bag_close(&r);
	}
	free(p);
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < DATA_LEN; i++)
		data[i] = (uint8_t)(i * 131 % 251); /* zeros included */
	char dir[] = "/tmp/zt-bag-attach-XXXXXX", a[64], cut[64], bad[64];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(a, sizeof a, "%s/a.mcap", dir);
	snprintf(cut, sizeof cut, "%s/cut.mcap", dir);
	snprintf(bad, sizeof bad, "%s/bad.mcap", dir);
	write_file(a);
	size_t orig_n;
	uint8_t *orig = slurp(a, &orig_n);
	uint64_t end = check(a, true, NULL, 0);
	CHECK(end > 0 && end < orig_n, "no data end record");

	/* cut before Data End: no summary, as a writer killed after the attachments leaves it */
	put(cut, orig, end);
	check(cut, false, orig, orig_n);
	struct bag_err e = {{0}};
	CHECK(bag_reindex(cut, NULL, &e) == 0, "reindex cut: %s", e.text);
	check(cut, true, orig, orig_n);

	CHECK(bag_reindex(a, NULL, &e) == 0, "reindex: %s", e.text);
	check(a, true, orig, orig_n);

	/* a byte of the first attachment's data changed: refused, naming the file and the record */
	struct bag_reader r;
	uint64_t at = 0, len = 0;
	if (bag_open(a, &r) == 0 && r.nattachments == 2) {
		at = r.attachments[0].offset;
		len = r.attachments[0].record_len;
	}
	bag_close(&r);
	size_t n;
	uint8_t *p = slurp(cut, &n);
	CHECK(p && at && at + len <= n, "attachment not found in the reindexed cut file");
	if (p && at && at + len <= n) {
		p[at + len - 4 - 10] ^= 0x5a; /* data, 10 bytes before the CRC */
		put(bad, p, n);
		char expect[128];
		snprintf(expect, sizeof expect, "%s: %llu: attachment CRC mismatch", bad,
			 (unsigned long long)at);
		CHECK(bag_open(bad, &r) != 0 && strstr(r.err.text, expect),
		      "corrupted attachment: '%s', wanted '%s'", r.err.text, expect);
		bag_close(&r);
	}
	free(p);
	bad_index(a, bad, at, len);
	if (argc > 1) { /* for the independent reader */
		char keep[4200];
		snprintf(keep, sizeof keep, "%s/attach.mcap", argv[1]);
		p = slurp(a, &n);
		if (p)
			put(keep, p, n);
		free(p);
	}
	unlink(a);
	unlink(cut);
	unlink(bad);
	rmdir(dir);
	free(orig);
	if (!failures)
		printf("attachments: written, read, kept by reindex (whole and cut), corruption "
		       "refused: ok\n");
	return failures ? 1 : 0;
}
