/* bag_open passes over a long record it ignores (another writer's kind, opcode 0x80) instead of
 * reading it whole into memory: a 64 MiB one between the messages of a file
 *   - whose Data End has no CRC: opened with under 1 MiB read from the file and no buffer of the
 *     reader over 1 MiB (it read and held all 64 MiB);
 *   - whose Data End has the right CRC: opened, the CRC checked by reading on block by block (no
 *     buffer over 1 MiB); with a wrong CRC: refused as a CRC mismatch.
 * Every message before and after it is read. The record's bytes are a hole of a sparse file. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag.h"
#include "bag_check.h"

#define BIG (64ull << 20)
#define BOUND (1u << 20)

static void message(struct bag_buf *b, uint32_t seq)
{
	size_t at = bag_record_begin(b, BAG_OP_MESSAGE);
	bag_put_u16(b, 1);
	bag_put_u32(b, seq);
	bag_put_u64(b, 1000 + seq); /* log time */
	bag_put_u64(b, 1000 + seq); /* publish time */
	bag_put(b, "payload", 7);
	bag_record_end(b, at);
}

/* Bytes this process has read so far (read and pread, from /proc/self/io). */
static unsigned long long rchar(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/self/io", "r");
	if (f) {
		if (fscanf(f, "rchar: %llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* The file (head, BIG bytes of the ignored record, tail up to Data End, Data End with `crc`,
 * footer); *data_crc: the CRC of its data section. */
static void write_file(const char *path, int kind, uint32_t *data_crc)
{
	struct bag_buf head = {0}, tail = {0}, end = {0};
	bag_put(&head, BAG_MAGIC, BAG_MAGIC_LEN);
	size_t at = bag_record_begin(&head, BAG_OP_HEADER);
	bag_put_str(&head, "ros2");
	bag_put_str(&head, "test_bag_skip");
	bag_record_end(&head, at);
	at = bag_record_begin(&head, BAG_OP_CHANNEL);
	bag_put_u16(&head, 1);
	bag_put_u16(&head, 0); /* no schema */
	bag_put_str(&head, "/skip/t");
	bag_put_str(&head, "zcast.raw");
	bag_put_map(&head, NULL, 0);
	bag_record_end(&head, at);
	message(&head, 1);
	message(&head, 2);
	bag_put_u8(&head, 0x80); /* the ignored record: opcode, length, then BIG bytes (a hole) */
	bag_put_u64(&head, BIG);
	message(&tail, 3);
	message(&tail, 4);

	uint32_t crc = bag_crc32(0, head.p, head.len);
	uint8_t *zeros = calloc(1, BOUND);
	for (uint64_t n = 0; zeros && n < BIG; n += BOUND)
		crc = bag_crc32(crc, zeros, BOUND);
	free(zeros);
	crc = bag_crc32(crc, tail.p, tail.len);
	*data_crc = crc;

	at = bag_record_begin(&end, BAG_OP_DATA_END);
	bag_put_u32(&end, kind == 0 ? 0 : kind == 1 ? crc : crc ^ 1);
	bag_record_end(&end, at);
	at = bag_record_begin(&end, BAG_OP_FOOTER);
	bag_put_u64(&end, 0); /* no summary */
	bag_put_u64(&end, 0);
	bag_put_u32(&end, 0);
	bag_record_end(&end, at);
	bag_put(&end, BAG_MAGIC, BAG_MAGIC_LEN);

	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "create %s", path);
	off_t off = (off_t)(head.len + BIG);
	CHECK(pwrite(fd, head.p, head.len, 0) == (ssize_t)head.len &&
		  pwrite(fd, tail.p, tail.len, off) == (ssize_t)tail.len &&
		  pwrite(fd, end.p, end.len, off + (off_t)tail.len) == (ssize_t)end.len,
	      "write %s", path);
	close(fd);
	bag_buf_free(&head);
	bag_buf_free(&tail);
	bag_buf_free(&end);
}

static void check_open(const char *path, int kind)
{
	uint32_t data_crc;
	write_file(path, kind, &data_crc);
	struct bag_reader r;
	unsigned long long before = rchar();
	int rc = bag_open(path, &r);
	unsigned long long read = rchar() - before;
	const char *what = kind == 0 ? "no CRC" : kind == 1 ? "right CRC" : "wrong CRC";
	printf("%s: bag_open %d, %llu bytes read, buffers %zu %zu %zu B\n", what, rc, read,
	       r.body.cap, r.raw.cap, r.msg.cap);
	CHECK(r.body.cap <= BOUND && r.raw.cap <= BOUND, "%s: a buffer of %zu / %zu bytes", what,
	      r.body.cap, r.raw.cap);
	if (kind == 2) {
		CHECK(rc != 0 && strstr(r.err.text, "data section CRC mismatch"),
		      "wrong CRC: opened (%d) or another error: %s", rc, r.err.text);
		if (rc != 0)
			bag_close(&r);
		return;
	}
	CHECK(rc == 0, "%s: %s", what, r.err.text);
	if (rc != 0) {
		bag_close(&r);
		return;
	}
	if (kind == 0)
		CHECK(read < BOUND, "no CRC: %llu bytes read to open", read);
	CHECK(r.messages == 4, "%s: %llu messages counted", what, (unsigned long long)r.messages);
	struct bag_message m;
	uint32_t seqs = 0;
	while (bag_next(&r, &m) > 0)
		seqs = seqs * 10 + m.sequence;
	CHECK(seqs == 1234, "%s: messages read %u", what, seqs);
	bag_close(&r);
}

int main(void)
{
	char path[] = "/tmp/zcast-bag-skip-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	for (int kind = 0; kind < 3; kind++)
		check_open(path, kind);
	unlink(path);
	if (failures)
		return 1;
	printf("test_bag_skip: ok\n");
	return 0;
}
