/* The data section record by record: complete records of the file, chunks decompressed and CRC
 * checked, their records one by one; the end is Data End, or for a file whose writer died (no
 * footer) the last complete record. Bytes come from the file by pread (fileread.c): on the first
 * pass (bag_open) every record whole, so the data section CRC is taken over the bytes as read,
 * but for a long record the reader ignores (one of another writer's kinds): it is passed over, and
 * only a Data End that has a CRC makes the reader read on from there, block by block, to check
 * it. Afterwards only what the walk of messages returns, a message of an uncompressed chunk
 * without its data (read once, to where its reader wants it: bag_message_read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_read.h"

uint64_t bag_max_chunk = 1ull << 30;

#define MESSAGE_FIELDS (2 + 4 + 8 + 8) /* channel, sequence, log and publish time */
#define SKIP_LEN (64 * 1024) /* an ignored record this long is not read (see the top) */
#define CRC_BLOCK 16384	     /* what the CRC's catch-up reads at a time */

/* First pass: bytes read in file order go into the data section CRC (Data End checks it). */
static void crc_feed(struct bag_reader *r, uint64_t at, const uint8_t *p, size_t n)
{
	if (r->first_pass && at == r->crc_at) {
		r->data_crc = bag_crc32(r->data_crc, p, n);
		r->crc_at += n;
	}
}

/* A chunk record's fields from c, its opening (the records after them need not be in memory);
 * body_len is the whole record's. */
static const char *chunk_fields(struct bag_cur *c, uint64_t body_len, uint64_t *size,
				uint32_t *crc, char comp[16], uint64_t *data_len)
{
	bag_get_u64(c); /* message start time */
	bag_get_u64(c); /* message end time */
	*size = bag_get_u64(c);
	*crc = bag_get_u32(c);
	uint32_t name_len = bag_get_u32(c);
	if (c->bad || name_len > body_len - c->at || body_len - c->at - name_len < 8)
		return "chunk record shorter than its fields";
	if (name_len >= 16) /* known names are short: the opening read holds any that fits */
		return "unknown chunk compression";
	const uint8_t *name = c->p + c->at;
	c->at += name_len;
	uint64_t n = bag_get_u64(c);
	if (c->bad)
		return "chunk record shorter than its fields";
	if (n != body_len - c->at)
		return "chunk's records length differs from its record length";
	*data_len = n;
	if (memchr(name, 0, name_len))
		return "unknown chunk compression";
	memcpy(comp, name, name_len);
	comp[name_len] = 0;
	if (!bag_compression_known(comp))
		return "unknown chunk compression (zstd, lz4 or none)";
	if (*size > bag_max_chunk)
		return "chunk's uncompressed size is implausibly large";
	return NULL;
}

/* The chunk record whose body (len bytes) starts at file offset body_at. */
static int load_chunk(struct bag_reader *r, const struct bag_rec *rec, uint64_t body_at,
		      uint64_t len)
{
	size_t open_len = len < sizeof r->fields ? (size_t)len : sizeof r->fields;
	if (!bag_read_at(r, body_at, r->fields, open_len, "chunk record"))
		return -1;
	struct bag_cur c = {r->fields, open_len, 0, false};
	uint64_t size, data_len;
	uint32_t crc;
	char comp[16];
	const char *why = chunk_fields(&c, len, &size, &crc, comp, &data_len);
	if (why)
		return bag_fail(r, rec, "%s", why);
	crc_feed(r, body_at, r->fields, c.at);
	uint64_t data_at = body_at + c.at;
	r->chunk_at = 0;
	r->chunk_offset = rec->offset;
	r->have_chunk = true;
	if (!comp[0] && !r->first_pass) {
		/* Uncompressed, after the first pass checked its size and CRC: its records are read
		 * from the file as they are walked, a message's data straight to where its reader
		 * wants it (bag_message_read: the player's loan). */
		r->recs = NULL;
		r->chunk_data_at = data_at;
		r->chunk_len = (size_t)data_len;
		return 0;
	}
	const uint8_t *data = bag_read_buf(r, &r->raw, data_at, (size_t)data_len, "chunk records");
	if (!data)
		return -1;
	crc_feed(r, data_at, data, (size_t)data_len);
	if (!comp[0]) { /* first pass, uncompressed: checked where it was read */
		if (size != data_len) {
			bag_fail(r, rec, "%s",
				 "chunk does not decompress (none): uncompressed chunk size differs "
				 "from its records");
			return -1;
		}
		r->recs = data;
	} else {
		if (size > r->chunk_cap || !r->chunk) {
			/* never NULL: decompressors offset it */
			uint8_t *p = realloc(r->chunk, size ? size : 1);
			if (!p)
				return bag_fail(r, rec, "%s", "out of memory for the chunk");
			r->chunk = p;
			r->chunk_cap = size ? size : 1;
		}
		if (!bag_decompress(comp, data, (size_t)data_len, r->chunk, size, &why)) {
			char msg[200];
			snprintf(msg, sizeof msg, "chunk does not decompress (%s): %s", comp, why);
			return bag_fail(r, rec, "%s", msg);
		}
		r->recs = r->chunk;
	}
	if (crc && r->first_pass && bag_crc32(0, r->recs, size) != crc) /* once per open */
		return bag_fail(r, rec, "%s", "chunk CRC mismatch (corrupted records)");
	r->chunk_len = (size_t)size;
	if (r->first_pass) {
		if (!r->chunks)
			snprintf(r->compression, sizeof r->compression, "%s", comp);
		r->chunks++;
		r->chunk_bytes_compressed += data_len;
		r->chunk_bytes_uncompressed += size;
	}
	return 0;
}

/* A message whose fields are at p (n <= MESSAGE_FIELDS bytes of a body of len) and whose data
 * stays in the file at data_at, for bag_message_read. */
static void lazy_message(struct bag_rec *rec, const uint8_t *p, uint64_t len, uint64_t data_at)
{
	size_t n = len < MESSAGE_FIELDS ? (size_t)len : MESSAGE_FIELDS;
	rec->body = (struct bag_cur){p, n, 0, false};
	rec->lazy = true;
	rec->data_at = data_at;
	rec->data_len = len > MESSAGE_FIELDS ? (size_t)(len - MESSAGE_FIELDS) : 0;
}

static int chunk_record(struct bag_reader *r, struct bag_rec *rec)
{
	size_t left = r->chunk_len - r->chunk_at;
	rec->in_chunk = true;
	rec->chunk_at = r->chunk_at;
	rec->offset = r->chunk_offset;
	if (left < 9)
		return bag_fail(r, rec, "%s", "chunk ends inside a record's opcode and length");
	const uint8_t *p = r->recs ? r->recs + r->chunk_at : r->fields;
	uint64_t at = r->chunk_data_at + r->chunk_at; /* in the file, when recs is NULL */
	/* from the file: opcode, length and (for a message) its fields in one read */
	size_t head = left < 9 + MESSAGE_FIELDS ? left : 9 + MESSAGE_FIELDS;
	if (!r->recs && !bag_read_at(r, at, r->fields, head, "chunk record"))
		return -1;
	uint64_t len = bag_le64(p + 1);
	if (len > left - 9)
		return bag_fail(r, rec, "%s", "record runs past the end of its chunk");
	rec->op = p[0];
	r->chunk_at += 9 + (size_t)len;
	if (rec->op != BAG_OP_SCHEMA && rec->op != BAG_OP_CHANNEL && rec->op != BAG_OP_MESSAGE) {
		char what[64];
		snprintf(what, sizeof what, "record type 0x%02x is not allowed in a chunk", rec->op);
		return bag_fail(r, rec, "%s", what);
	}
	if (r->recs) {
		rec->body = (struct bag_cur){p + 9, (size_t)len, 0, false};
	} else if (rec->op == BAG_OP_MESSAGE) {
		lazy_message(rec, p + 9, len, at + 9 + MESSAGE_FIELDS);
	} else {
		const uint8_t *b = bag_read_buf(r, &r->body, at + 9, (size_t)len, "chunk record");
		if (!b)
			return -1;
		rec->body = (struct bag_cur){b, (size_t)len, 0, false};
	}
	return 1;
}

/* Records whose content the first pass (bag_open's walk) does not look at: their bytes count
 * only in the data section CRC. */
static bool ignored(uint8_t op)
{
	return op != BAG_OP_HEADER && op != BAG_OP_FOOTER && op != BAG_OP_SCHEMA &&
	       op != BAG_OP_CHANNEL && op != BAG_OP_MESSAGE && op != BAG_OP_MESSAGE_INDEX &&
	       op != BAG_OP_ATTACHMENT && op != BAG_OP_METADATA && op != BAG_OP_DATA_END;
}

/* The data section CRC on from where crc_feed stopped (a record passed over) up to `end`, read a
 * block at a time. False with r->err. */
static bool crc_catch_up(struct bag_reader *r, uint64_t end, uint32_t *crc)
{
	uint8_t block[CRC_BLOCK];
	uint32_t c = r->data_crc;
	for (uint64_t at = r->crc_at; at < end;) {
		size_t n = end - at < sizeof block ? (size_t)(end - at) : sizeof block;
		if (!bag_read_at(r, at, block, n, "record"))
			return false;
		c = bag_crc32(c, block, n);
		at += n;
	}
	*crc = c;
	return true;
}

/* The end of the complete records: Data End, or (no footer) a cut-off record. crc: the CRC of the
 * bytes before it as far as crc_feed got (first pass). */
static int data_end(struct bag_reader *r, const struct bag_rec *rec, uint32_t crc_before)
{
	r->ended = true;
	if (!rec) {
		r->truncated = true;
		r->data_end = r->at;
		return 0;
	}
	r->data_end_at = rec->offset;
	r->data_end = rec->offset + 9 + rec->body.len;
	if (!r->first_pass)
		return 0;
	struct bag_cur c = rec->body;
	uint32_t crc = bag_get_u32(&c);
	if (c.bad)
		return bag_fail(r, rec, "%s", "data end record shorter than its CRC");
	if (crc && r->crc_at < rec->offset && !crc_catch_up(r, rec->offset, &crc_before))
		return -1;
	if (crc && crc_before != crc)
		return bag_fail(r, rec, "%s", "data section CRC mismatch (corrupted data)");
	return 0;
}

/* The body of a top-level record other than a chunk: whole on the first pass (but for a long
 * ignored one: nothing); afterwards a message's fields (its data left in the file), Data End's,
 * and nothing of the records the walk of messages passes over. */
static int record_body(struct bag_reader *r, struct bag_rec *rec, uint64_t body_at, uint64_t len)
{
	if (r->first_pass && ignored(rec->op) && len >= SKIP_LEN) {
		rec->body = (struct bag_cur){r->fields, 0, 0, false}; /* crc_feed stops here */
		return 0;
	}
	if (!r->first_pass && rec->op == BAG_OP_MESSAGE) {
		size_t n = len < MESSAGE_FIELDS ? (size_t)len : MESSAGE_FIELDS;
		if (!bag_read_at(r, body_at, r->fields, n, "message record"))
			return -1;
		lazy_message(rec, r->fields, len, body_at + MESSAGE_FIELDS);
		return 0;
	}
	if (!r->first_pass && rec->op != BAG_OP_DATA_END) {
		rec->body = (struct bag_cur){r->fields, 0, 0, false};
		return 0;
	}
	const uint8_t *b = bag_read_buf(r, &r->body, body_at, (size_t)len, "record");
	if (!b)
		return -1;
	crc_feed(r, body_at, b, (size_t)len);
	rec->body = (struct bag_cur){b, (size_t)len, 0, false};
	return 0;
}

int bag_next_record(struct bag_reader *r, struct bag_rec *rec)
{
	for (;;) {
		memset(rec, 0, sizeof *rec);
		if (r->chunk_at < r->chunk_len)
			return chunk_record(r, rec);
		if (r->ended)
			return 0;
		uint64_t limit = r->has_footer ? (r->summary_start ? r->summary_start : r->footer_at)
					       : r->size;
		rec->offset = r->at;
		uint8_t h[9];
		bool room = r->at <= limit && limit - r->at >= 9;
		if (room && !bag_read_at(r, r->at, h, sizeof h, "record"))
			return -1;
		if (!room || bag_le64(h + 1) > limit - r->at - 9) {
			if (!r->has_footer || r->at >= limit)
				return r->has_footer ? bag_fail(r, rec, "%s", "no data end record before the summary")
						     : data_end(r, NULL, 0);
			return bag_fail(r, rec, "%s", "record runs past the start of the summary");
		}
		uint32_t crc_before = r->data_crc;
		crc_feed(r, r->at, h, sizeof h);
		rec->op = h[0];
		uint64_t len = bag_le64(h + 1), body_at = r->at + 9;
		r->at = body_at + len;
		if (rec->op == BAG_OP_CHUNK) {
			if (load_chunk(r, rec, body_at, len) < 0)
				return -1;
			continue;
		}
		if (record_body(r, rec, body_at, len) < 0)
			return -1;
		if (rec->op == BAG_OP_DATA_END)
			return data_end(r, rec, crc_before) < 0 ? -1 : 0;
		if (rec->op == BAG_OP_HEADER && r->data_start)
			return bag_fail(r, rec, "%s", "a second header record");
		if (rec->op == BAG_OP_FOOTER)
			return bag_fail(r, rec, "%s", "footer record inside the data section");
		return 1;
	}
}

int bag_check_message_index(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body;
	uint16_t ch = bag_get_u16(&c);
	struct bag_cur e = bag_get_prefixed(&c);
	if (c.bad || e.len % 16)
		return bag_fail(r, rec, "%s", "malformed message index record");
	if (!r->have_chunk)
		return bag_fail(r, rec, "%s", "message index before any chunk");
	while (e.at < e.len) {
		uint64_t t = bag_get_u64(&e), off = bag_get_u64(&e);
		const uint8_t *p = off < r->chunk_len && r->recs ? r->recs + off : NULL;
		if (!p || r->chunk_len - off < 9 + 2 + 4 + 8 || p[0] != BAG_OP_MESSAGE ||
		    (uint16_t)(p[9] | p[10] << 8) != ch || bag_le64(p + 15) != t)
			return bag_fail(r, rec, "%s",
					"message index entry does not point at a message of its "
					"channel and time in the chunk before it");
	}
	return 0;
}
