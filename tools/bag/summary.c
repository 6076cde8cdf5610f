/* The summary section (schemas, channels, statistics, chunk, attachment and metadata indexes), one
 * Summary Offset record per group, the footer with the summary CRC, and the closing magic. */
#include "bag_chunk.h"

static void group(struct bag_buf *out, struct bag_buf *offsets, uint8_t op,
		  const struct bag_buf *records, uint64_t base)
{
	if (!records || !records->len)
		return;
	uint64_t at = base + out->len;
	bag_put(out, records->p, records->len);
	size_t s = bag_record_begin(offsets, BAG_OP_SUMMARY_OFFSET);
	bag_put_u8(offsets, op);
	bag_put_u64(offsets, at);
	bag_put_u64(offsets, records->len);
	bag_record_end(offsets, s);
}

static void statistics(const struct bag_summary_in *in, struct bag_buf *b)
{
	size_t s = bag_record_begin(b, BAG_OP_STATISTICS);
	bag_put_u64(b, in->messages);
	bag_put_u16(b, in->nschemas);
	bag_put_u32(b, in->nchannels);
	bag_put_u32(b, in->nattachments);
	bag_put_u32(b, in->nmetadata);
	bag_put_u32(b, in->nchunks);
	bag_put_u64(b, in->messages ? in->start : 0);
	bag_put_u64(b, in->messages ? in->end : 0);
	struct bag_buf counts = {0};
	for (uint32_t i = 0; i < in->nchannels; i++) {
		bag_put_u16(&counts, (uint16_t)i);
		bag_put_u64(&counts, in->channel_counts[i]);
	}
	bag_put_bytes(b, counts.p, counts.len);
	bag_buf_free(&counts);
	bag_record_end(b, s);
}

void bag_summary_encode(const struct bag_summary_in *in, uint64_t start, struct bag_buf *out)
{
	struct bag_buf offsets = {0}, stats = {0};
	out->len = 0;
	group(out, &offsets, BAG_OP_SCHEMA, in->schemas, start);
	group(out, &offsets, BAG_OP_CHANNEL, in->channels, start);
	statistics(in, &stats);
	group(out, &offsets, BAG_OP_STATISTICS, &stats, start);
	group(out, &offsets, BAG_OP_CHUNK_INDEX, in->chunk_indexes, start);
	group(out, &offsets, BAG_OP_ATTACHMENT_INDEX, in->attachment_indexes, start);
	group(out, &offsets, BAG_OP_METADATA_INDEX, in->metadata_indexes, start);
	uint64_t offsets_start = start + out->len;
	bag_put(out, offsets.p, offsets.len);
	bag_put_u8(out, BAG_OP_FOOTER);
	bag_put_u64(out, 20);
	bag_put_u64(out, start);
	bag_put_u64(out, offsets_start);
	/* The CRC covers the summary start through the footer's summary_offset_start field. */
	if (!out->failed)
		bag_put_u32(out, bag_crc32(0, out->p, out->len));
	bag_put(out, BAG_MAGIC, BAG_MAGIC_LEN);
	bag_buf_free(&offsets);
	bag_buf_free(&stats);
}
