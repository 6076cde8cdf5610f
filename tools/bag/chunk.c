/* An open chunk of the writer: records in memory, and the message index of each channel in it
 * (offsets count from the start of the chunk's uncompressed records, as MCAP says). */
#include <stdlib.h>
#include <string.h>

#include "bag_chunk.h"

void bag_chunk_reset(struct bag_chunk *c)
{
	c->records.len = 0;
	c->records.failed = false;
	c->written = 0;
	c->records_crc = 0;
	for (int i = 0; i < c->nused; i++)
		c->index[c->used[i]].len = 0;
	c->nused = 0;
	c->nmsgs = 0;
}

void bag_chunk_free(struct bag_chunk *c)
{
	if (!c)
		return;
	bag_buf_free(&c->records);
	for (int i = 0; i < c->nindex; i++)
		bag_buf_free(&c->index[i]);
	free(c->index);
	free(c->used);
	free(c);
}

static struct bag_buf *index_of(struct bag_chunk *c, uint16_t channel)
{
	if (channel >= c->nindex) {
		int n = channel + 16;
		struct bag_buf *v = realloc(c->index, (size_t)n * sizeof *v);
		if (!v)
			return NULL;
		memset(v + c->nindex, 0, (size_t)(n - c->nindex) * sizeof *v);
		c->index = v;
		c->nindex = n;
	}
	struct bag_buf *b = &c->index[channel];
	if (b->len == 0) {
		if (c->nused == c->capused) {
			int cap = c->capused ? 2 * c->capused : 16;
			uint16_t *u = realloc(c->used, (size_t)cap * sizeof *u);
			if (!u)
				return NULL;
			c->used = u;
			c->capused = cap;
		}
		c->used[c->nused++] = channel;
	}
	return b;
}

uint64_t bag_chunk_length(const struct bag_chunk *c)
{
	return c->written + c->records.len;
}

/* The message index entry and times of a message whose record starts at the end of the chunk. */
static bool note_message(struct bag_chunk *c, uint16_t channel, uint64_t log_time)
{
	struct bag_buf *ix = index_of(c, channel);
	if (!ix)
		return false;
	bag_put_u64(ix, log_time);
	bag_put_u64(ix, bag_chunk_length(c));
	if (ix->failed)
		return false;
	if (!c->nmsgs || log_time < c->start)
		c->start = log_time;
	if (!c->nmsgs || log_time > c->end)
		c->end = log_time;
	c->nmsgs++;
	return true;
}

bool bag_chunk_message_head(struct bag_chunk *c, uint16_t channel, uint32_t sequence,
			    uint64_t log_time, uint64_t publish_time, size_t n)
{
	if (!note_message(c, channel, log_time))
		return false;
	struct bag_buf *b = &c->records;
	bag_put_u8(b, BAG_OP_MESSAGE);
	bag_put_u64(b, 2 + 4 + 8 + 8 + (uint64_t)n);
	bag_put_u16(b, channel);
	bag_put_u32(b, sequence);
	bag_put_u64(b, log_time);
	bag_put_u64(b, publish_time);
	return !b->failed;
}

bool bag_chunk_message(struct bag_chunk *c, uint16_t channel, uint32_t sequence, uint64_t log_time,
		       uint64_t publish_time, const void *data, size_t n)
{
	if (!bag_chunk_message_head(c, channel, sequence, log_time, publish_time, n))
		return false;
	bag_put(&c->records, data, n);
	return !c->records.failed;
}

void bag_chunk_record(struct bag_chunk *c, const struct bag_buf *rec)
{
	bag_put(&c->records, rec->p, rec->len);
}

bool bag_chunk_finish(struct bag_chunk *c, const char *compression, size_t body_len,
		      uint64_t chunk_offset, struct bag_buf *head, struct bag_buf *indexes,
		      struct bag_buf *chunk_indexes)
{
	uint64_t start = c->nmsgs ? c->start : 0, end = c->nmsgs ? c->end : 0;
	uint64_t records_len = bag_chunk_length(c);
	head->len = 0;
	bag_put_u8(head, BAG_OP_CHUNK);
	size_t fields = 8 + 8 + 8 + 4 + 4 + strlen(compression) + 8;
	bag_put_u64(head, fields + body_len);
	bag_put_u64(head, start);
	bag_put_u64(head, end);
	bag_put_u64(head, records_len);
	bag_put_u32(head, c->records_crc);
	bag_put_str(head, compression);
	bag_put_u64(head, body_len);
	uint64_t chunk_len = head->len + body_len, at = chunk_offset + chunk_len;
	/* Message indexes follow the chunk; the chunk index points at each. */
	indexes->len = 0;
	struct bag_buf offsets = {0};
	for (int i = 0; i < c->nused; i++) {
		uint16_t ch = c->used[i];
		bag_put_u16(&offsets, ch);
		bag_put_u64(&offsets, at + indexes->len);
		size_t s = bag_record_begin(indexes, BAG_OP_MESSAGE_INDEX);
		bag_put_u16(indexes, ch);
		bag_put_bytes(indexes, c->index[ch].p, c->index[ch].len);
		bag_record_end(indexes, s);
	}
	struct bag_buf *ci = chunk_indexes;
	size_t s = bag_record_begin(ci, BAG_OP_CHUNK_INDEX);
	bag_put_u64(ci, start);
	bag_put_u64(ci, end);
	bag_put_u64(ci, chunk_offset);
	bag_put_u64(ci, chunk_len);
	bag_put_bytes(ci, offsets.p, offsets.len);
	bag_put_u64(ci, indexes->len);
	bag_put_str(ci, compression);
	bag_put_u64(ci, body_len);
	bag_put_u64(ci, records_len);
	bag_record_end(ci, s);
	bool ok = !head->failed && !indexes->failed && !offsets.failed && !ci->failed;
	bag_buf_free(&offsets);
	return ok;
}

bool bag_chunk_encode(struct bag_chunk *c, const char *compression, int level, bool crc,
		      uint64_t chunk_offset, struct bag_buf *head, struct bag_buf *compressed,
		      struct bag_buf *indexes, struct bag_buf *chunk_indexes)
{
	const struct bag_buf *r = &c->records;
	bool raw = !compression[0]; /* uncompressed: the records are written as they are */
	if (r->failed || (!raw && !bag_compress(compression, level, r->p, r->len, compressed)))
		return false;
	c->body = raw ? r->p : compressed->p;
	c->body_len = raw ? r->len : compressed->len;
	c->records_crc = crc ? bag_crc32(0, r->p, r->len) : 0;
	return bag_chunk_finish(c, compression, c->body_len, chunk_offset, head, indexes,
				chunk_indexes);
}
