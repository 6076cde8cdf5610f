/* The data section record by record: complete records of the file, chunks decompressed and CRC
 * checked, their records one by one; the end is Data End, or for a file whose writer died (no
 * footer) the last complete record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_read.h"

uint64_t bag_max_chunk = 1ull << 30;

static const char *chunk_fields(struct bag_cur *c, uint64_t *size, uint32_t *crc, char comp[16],
				struct bag_cur *data)
{
	bag_get_u64(c); /* message start time */
	bag_get_u64(c); /* message end time */
	*size = bag_get_u64(c);
	*crc = bag_get_u32(c);
	struct bag_cur name = bag_get_prefixed(c);
	uint64_t n = bag_get_u64(c);
	if (c->bad)
		return "chunk record shorter than its fields";
	if (n != c->len - c->at)
		return "chunk's records length differs from its record length";
	*data = bag_get_rest(c);
	if (name.len >= 16 || memchr(name.p, 0, name.len))
		return "unknown chunk compression";
	memcpy(comp, name.p, name.len);
	comp[name.len] = 0;
	if (!bag_compression_known(comp))
		return "unknown chunk compression (zstd, lz4 or none)";
	if (*size > bag_max_chunk)
		return "chunk's uncompressed size is implausibly large";
	return NULL;
}

static int load_chunk(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body, data;
	uint64_t size;
	uint32_t crc;
	char comp[16];
	const char *why = chunk_fields(&c, &size, &crc, comp, &data);
	if (why)
		return bag_fail(r, rec, "%s", why);
	if (!comp[0] && !r->first_pass) {
		/* Uncompressed, after the first pass checked its size and CRC: read where it is (the
		 * player's message goes from the file into its loan with one copy). */
		r->recs = data.p;
		r->chunk_len = data.len;
		r->chunk_at = 0;
		r->chunk_offset = rec->offset;
		r->have_chunk = true;
		return 0;
	}
	if (size > r->chunk_cap || !r->chunk) {
		uint8_t *p = realloc(r->chunk, size ? size : 1); /* never NULL: decompressors offset it */
		if (!p)
			return bag_fail(r, rec, "%s", "out of memory for the chunk");
		r->chunk = p;
		r->chunk_cap = size ? size : 1;
	}
	if (!bag_decompress(comp, data.p, data.len, r->chunk, size, &why)) {
		char msg[200];
		snprintf(msg, sizeof msg, "chunk does not decompress (%s): %s", comp[0] ? comp : "none",
			 why);
		return bag_fail(r, rec, "%s", msg);
	}
	if (crc && r->first_pass && bag_crc32(0, r->chunk, size) != crc) /* once per open */
		return bag_fail(r, rec, "%s", "chunk CRC mismatch (corrupted records)");
	r->recs = r->chunk;
	r->chunk_len = size;
	r->chunk_at = 0;
	r->chunk_offset = rec->offset;
	r->have_chunk = true;
	if (r->first_pass) {
		if (!r->chunks)
			snprintf(r->compression, sizeof r->compression, "%s", comp);
		r->chunks++;
		r->chunk_bytes_compressed += data.len;
		r->chunk_bytes_uncompressed += size;
	}
	return 0;
}

static int chunk_record(struct bag_reader *r, struct bag_rec *rec)
{
	size_t left = r->chunk_len - r->chunk_at;
	rec->in_chunk = true;
	rec->chunk_at = r->chunk_at;
	rec->offset = r->chunk_offset;
	if (left < 9)
		return bag_fail(r, rec, "%s", "chunk ends inside a record's opcode and length");
	const uint8_t *p = r->recs + r->chunk_at;
	uint64_t len = bag_le64(p + 1);
	if (len > left - 9)
		return bag_fail(r, rec, "%s", "record runs past the end of its chunk");
	rec->op = p[0];
	rec->body = (struct bag_cur){p + 9, (size_t)len, 0, false};
	r->chunk_at += 9 + (size_t)len;
	if (rec->op != BAG_OP_SCHEMA && rec->op != BAG_OP_CHANNEL && rec->op != BAG_OP_MESSAGE) {
		char what[64];
		snprintf(what, sizeof what, "record type 0x%02x is not allowed in a chunk", rec->op);
		return bag_fail(r, rec, "%s", what);
	}
	return 1;
}

/* The end of the complete records: Data End, or (no footer) a cut-off record. */
static int data_end(struct bag_reader *r, const struct bag_rec *rec)
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
	if (crc && bag_crc32(0, r->map, rec->offset) != crc)
		return bag_fail(r, rec, "%s", "data section CRC mismatch (corrupted data)");
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
		if (r->at > limit || limit - r->at < 9 || bag_le64(r->map + r->at + 1) > limit - r->at - 9) {
			if (!r->has_footer || r->at >= limit)
				return r->has_footer ? bag_fail(r, rec, "%s", "no data end record before the summary")
						     : data_end(r, NULL);
			return bag_fail(r, rec, "%s", "record runs past the start of the summary");
		}
		rec->op = r->map[r->at];
		uint64_t len = bag_le64(r->map + r->at + 1);
		rec->body = (struct bag_cur){r->map + r->at + 9, (size_t)len, 0, false};
		r->at += 9 + len;
		if (rec->op == BAG_OP_DATA_END)
			return data_end(r, rec) < 0 ? -1 : 0;
		if (rec->op == BAG_OP_HEADER && r->data_start)
			return bag_fail(r, rec, "%s", "a second header record");
		if (rec->op == BAG_OP_FOOTER)
			return bag_fail(r, rec, "%s", "footer record inside the data section");
		if (rec->op != BAG_OP_CHUNK)
			return 1;
		if (load_chunk(r, rec) < 0)
			return -1;
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
		const uint8_t *p = off < r->chunk_len ? r->recs + off : NULL;
		if (!p || r->chunk_len - off < 9 + 2 + 4 + 8 || p[0] != BAG_OP_MESSAGE ||
		    (uint16_t)(p[9] | p[10] << 8) != ch || bag_le64(p + 15) != t)
			return bag_fail(r, rec, "%s",
					"message index entry does not point at a message of its "
					"channel and time in the chunk before it");
	}
	return 0;
}
