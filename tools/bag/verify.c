/* The summary section checked against the data section bag_open walked: summary CRC, every
 * summary offset inside the summary and naming its group, schemas and channels as in the data,
 * statistics equal to the counts, every chunk index pointing at its chunk and message indexes,
 * every attachment index at its attachment. The summary is read whole (it is small: definitions
 * and indexes); a record of the data section it points at, by its opening. */
#include <string.h>

#include "bag_read.h"

/* The bytes of [summary_start, footer's CRC field): r->body while verifying. */
static const uint8_t *sum_at(const struct bag_reader *r, uint64_t at)
{
	return r->body.p + (at - r->summary_start);
}

/* The opening of a data section record at `at` (n <= 11 bytes, inside the data section). */
static bool opening(struct bag_reader *r, uint64_t at, uint8_t *p, size_t n)
{
	return bag_read_at(r, at, p, n, "record the summary points at");
}

static int fail_at(struct bag_reader *r, uint64_t offset, const char *what)
{
	struct bag_rec rec = {.offset = offset};
	return bag_fail(r, &rec, "%s", what);
}

static int check_statistics(struct bag_reader *r, uint64_t at, struct bag_cur c)
{
	uint64_t msgs = bag_get_u64(&c);
	bag_get_u16(&c);		  /* schemas */
	uint32_t channels = bag_get_u32(&c);
	uint32_t attachments = bag_get_u32(&c);
	bag_get_u32(&c);		  /* metadata */
	uint32_t chunks = bag_get_u32(&c);
	uint64_t start = bag_get_u64(&c), end = bag_get_u64(&c);
	struct bag_cur counts = bag_get_prefixed(&c);
	if (c.bad || counts.len % 10)
		return fail_at(r, at, "malformed statistics record");
	if (msgs != r->messages || chunks != r->chunks || channels != (uint32_t)r->nchannels ||
	    attachments != (uint32_t)r->nattachments)
		return fail_at(r, at, "statistics disagree with the data section (messages, "
				      "chunks, channels or attachments)");
	if (msgs && (start != r->start_time || end != r->end_time))
		return fail_at(r, at, "statistics give other start or end times than the messages");
	while (counts.at < counts.len) {
		uint16_t id = bag_get_u16(&counts);
		uint64_t n = bag_get_u64(&counts);
		const struct bag_channel *ch = bag_channel_get(r, id);
		if (!ch || ch->count != n)
			return fail_at(r, at, "statistics give a channel another message count");
	}
	return 0;
}

static int check_chunk_index(struct bag_reader *r, uint64_t at, struct bag_cur c)
{
	bag_get_u64(&c);
	bag_get_u64(&c);
	uint64_t off = bag_get_u64(&c), len = bag_get_u64(&c);
	struct bag_cur ix = bag_get_prefixed(&c);
	uint64_t ix_len = bag_get_u64(&c);
	if (c.bad || ix.len % 10)
		return fail_at(r, at, "malformed chunk index record");
	uint8_t h[11];
	if (off < r->data_start || off > r->data_end || r->data_end - off < 9)
		return fail_at(r, at, "chunk index does not point at a chunk of its length");
	if (!opening(r, off, h, 9))
		return -1;
	if (h[0] != BAG_OP_CHUNK || bag_le64(h + 1) + 9 != len)
		return fail_at(r, at, "chunk index does not point at a chunk of its length");
	uint64_t ix_end = off + len + ix_len;
	while (ix.at < ix.len) {
		uint16_t ch = bag_get_u16(&ix);
		uint64_t p = bag_get_u64(&ix);
		bool in = p >= off + len && p < ix_end && ix_end <= r->data_end &&
			  r->data_end - p >= 11;
		if (in && !opening(r, p, h, 11))
			return -1;
		if (!in || h[0] != BAG_OP_MESSAGE_INDEX || (uint16_t)(h[9] | h[10] << 8) != ch)
			return fail_at(r, at, "chunk index points at no message index of its channel");
	}
	return 0;
}

/* An Attachment Index names an attachment the data walk read: its offset, length and name. */
static int check_attachment_index(struct bag_reader *r, uint64_t at, struct bag_cur c)
{
	uint64_t off = bag_get_u64(&c), len = bag_get_u64(&c);
	bag_get_u64(&c); /* log time */
	bag_get_u64(&c); /* create time */
	uint64_t size = bag_get_u64(&c);
	struct bag_cur name = bag_get_prefixed(&c);
	for (int i = 0; i < r->nattachments && !c.bad; i++) {
		const struct bag_attachment *a = &r->attachments[i];
		if (a->offset == off && a->record_len == len && a->len == size &&
		    strlen(a->name) == name.len && !memcmp(a->name, name.p, name.len))
			return 0;
	}
	return fail_at(r, at,
		       "attachment index does not point at an attachment of its length and name");
}

static int check_record(struct bag_reader *r, uint64_t at, uint8_t op, struct bag_cur body)
{
	if (op == BAG_OP_ATTACHMENT_INDEX)
		return check_attachment_index(r, at, body);
	if (op == BAG_OP_STATISTICS)
		return check_statistics(r, at, body);
	if (op == BAG_OP_CHUNK_INDEX)
		return check_chunk_index(r, at, body);
	if (op == BAG_OP_CHANNEL) {
		uint16_t id = bag_get_u16(&body);
		bag_get_u16(&body);
		struct bag_cur topic = bag_get_prefixed(&body);
		const struct bag_channel *ch = bag_channel_get(r, id);
		if (body.bad || !ch || strlen(ch->topic) != topic.len ||
		    memcmp(ch->topic, topic.p, topic.len))
			return fail_at(r, at, "summary channel differs from the data section's");
	}
	if (op == BAG_OP_SCHEMA) {
		uint16_t id = bag_get_u16(&body);
		if (body.bad || !bag_schema_get(r, id))
			return fail_at(r, at, "summary schema not in the data section");
	}
	return 0;
}

/* Records of [from, to): all complete; each checked. */
static int walk(struct bag_reader *r, uint64_t from, uint64_t to, bool offsets)
{
	while (from < to) {
		if (to - from < 9 || bag_le64(sum_at(r, from) + 1) > to - from - 9)
			return fail_at(r, from, "summary record runs past its section");
		uint8_t op = *sum_at(r, from);
		uint64_t len = bag_le64(sum_at(r, from) + 1);
		struct bag_cur body = {sum_at(r, from) + 9, (size_t)len, 0, false};
		int x = 0;
		if (offsets) {
			uint8_t group = bag_get_u8(&body);
			uint64_t s = bag_get_u64(&body), n = bag_get_u64(&body);
			if (op != BAG_OP_SUMMARY_OFFSET || body.bad || s < r->summary_start ||
			    s > r->summary_offset_start || n > r->summary_offset_start - s ||
			    (n && *sum_at(r, s) != group))
				x = fail_at(r, from, "summary offset does not point at its group");
		} else {
			x = check_record(r, from, op, body);
		}
		if (x < 0)
			return -1;
		from += 9 + len;
	}
	return 0;
}

int bag_verify_summary(struct bag_reader *r)
{
	if (!r->summary_start)
		return 0;
	uint64_t crc_end = r->footer_at + 9 + 16;
	size_t n = (size_t)(crc_end - r->summary_start);
	const uint8_t *sum = bag_read_buf(r, &r->body, r->summary_start, n, "summary");
	if (!sum)
		return -1;
	if (r->summary_crc && bag_crc32(0, sum, n) != r->summary_crc)
		return fail_at(r, r->footer_at, "summary CRC mismatch (corrupted summary)");
	if (r->summary_start < r->data_end)
		return fail_at(r, r->footer_at, "summary starts inside the data section");
	uint64_t offsets = r->summary_offset_start ? r->summary_offset_start : r->footer_at;
	if (walk(r, r->summary_start, offsets, false) < 0)
		return -1;
	return r->summary_offset_start ? walk(r, offsets, r->footer_at, true) : 0;
}
