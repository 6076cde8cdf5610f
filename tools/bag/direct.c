/* Uncompressed chunks streamed to the file as they fill, so a message is never copied into a chunk
 * buffer: a large message's record fields are written and then its data from where the caller has
 * it (for the recorder: the shared-memory slot), in one writev; small messages are gathered and
 * written a buffer at a time. The chunk's opening cannot be known before the chunk is complete
 * (its length, times, CRC), so a placeholder stands in its place and is overwritten (pwrite) when
 * the chunk is sealed, before its message indexes are written. The placeholder's record length
 * runs far past any file: a reader of a file whose writer was killed meanwhile takes it for the
 * cut-off last record, exactly as it would a chunk written by one writev that was cut short, so
 * every earlier chunk stays readable (kill -9) and `zcast bag reindex` keeps them. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "bag_chunk.h"

/* Messages this large are written from where they are; smaller ones are copied into the buffer,
 * which is written when it holds DIRECT_FLUSH bytes (a syscall costs more than a small copy). */
#define DIRECT_MIN_PAYLOAD (64u << 10)
#define DIRECT_FLUSH (1u << 20)

/* A Chunk opcode and a record length of 2^52: "the rest of this record is not in the file". */
static const uint8_t placeholder[BAG_CHUNK_HEAD_RAW] = {BAG_OP_CHUNK, 0, 0, 0, 0, 0, 0, 0x10};

/* Writes the buffered records, then n bytes of data (may be 0), behind the chunk's placeholder. */
static bool direct_write(struct bag_writer *w, const void *data, size_t n)
{
	struct bag_chunk *c = w->cur;
	struct bag_buf *b = &c->records;
	if (b->failed) {
		w->err = ENOMEM;
		return false;
	}
	struct iovec v[3];
	int k = 0;
	if (!w->chunk_open) {
		w->chunk_at = w->offset;
		v[k++] = (struct iovec){(void *)placeholder, sizeof placeholder};
	}
	v[k++] = (struct iovec){b->p, b->len};
	if (n)
		v[k++] = (struct iovec){(void *)data, n};
	if (w->crc) /* while the data is in the cache the write is about to read it from */
		c->records_crc = bag_crc32(bag_crc32(c->records_crc, b->p, b->len), data, n);
	if (!bag_write_iov(w, v, k))
		return false;
	w->chunk_open = true;
	c->written += b->len + n;
	b->len = 0;
	return true;
}

int bag_direct_message(struct bag_writer *w, uint16_t channel, uint32_t sequence,
		       uint64_t log_time, uint64_t publish_time, const void *data, size_t n)
{
	struct bag_chunk *c = w->cur;
	bool big = n >= DIRECT_MIN_PAYLOAD;
	if (w->failed)
		return -1;
	bool ok = big ? bag_chunk_message_head(c, channel, sequence, log_time, publish_time, n)
		      : bag_chunk_message(c, channel, sequence, log_time, publish_time, data, n);
	if (!ok)
		w->err = ENOMEM;
	else if (big || c->records.len >= DIRECT_FLUSH)
		ok = direct_write(w, big ? data : NULL, big ? n : 0);
	w->failed |= !ok;
	return ok ? 0 : -1;
}

static bool pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t at, int *err)
{
	while (n > 0) {
		ssize_t r = pwrite(fd, p, n, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*err = r < 0 ? errno : EIO;
			return false;
		}
		p += r;
		n -= (size_t)r;
		at += (uint64_t)r;
	}
	return true;
}

int bag_direct_seal(struct bag_writer *w)
{
	struct bag_chunk *c = w->cur;
	if (!bag_chunk_length(c))
		return 0;
	bool ok = !w->failed && (!c->records.len || direct_write(w, NULL, 0));
	uint64_t len = c->written;
	if (ok && !bag_chunk_finish(c, "", len, w->chunk_at, &w->head, &w->indexes,
				    &w->chunk_indexes)) {
		w->err = ENOMEM;
		ok = false;
	}
	/* The real opening over the placeholder (the same length), then the indexes after it. */
	ok = ok && w->head.len == sizeof placeholder &&
	     pwrite_all(w->fd, w->head.p, w->head.len, w->chunk_at, &w->err);
	if (ok && w->crc) {
		uint32_t crc = bag_crc32(w->data_crc, w->head.p, w->head.len);
		crc = bag_crc32_combine(crc, c->records_crc, len);
		w->data_crc = bag_crc32(crc, w->indexes.p, w->indexes.len);
	}
	struct iovec v = {w->indexes.p, w->indexes.len};
	ok = ok && bag_write_iov(w, &v, 1);
	w->nchunks += ok;
	w->chunk_open = false;
	w->failed |= !ok;
	bag_chunk_reset(c);
	return ok ? 0 : -1;
}
