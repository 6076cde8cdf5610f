/* Writer-side parts of tools/bag (not for the reader): an open chunk and the summary. */
#ifndef ZCAST_BAG_CHUNK_H
#define ZCAST_BAG_CHUNK_H

#include "bag.h"

/* The records of one chunk and, per channel that has messages in it, its message index. */
struct bag_chunk {
	struct bag_buf records;
	uint64_t start, end; /* log times of its messages (valid when nmsgs > 0) */
	uint64_t nmsgs;
	struct bag_buf *index; /* per channel id: (log_time, offset) pairs */
	int nindex;	       /* entries of index */
	uint16_t *used;	       /* channels with an index entry, in first-use order */
	int nused, capused;
	struct bag_chunk *next; /* queue link */
	/* set by bag_chunk_encode: the bytes after the Chunk record's fields (the records themselves
	 * when uncompressed: not copied), and the CRC of the uncompressed records */
	const uint8_t *body;
	size_t body_len;
	uint32_t records_crc;
};
void bag_chunk_reset(struct bag_chunk *c);
void bag_chunk_free(struct bag_chunk *c);
/* Appends a Message record; false when out of memory. */
bool bag_chunk_message(struct bag_chunk *c, uint16_t channel, uint32_t sequence, uint64_t log_time,
		       uint64_t publish_time, const void *data, size_t n);
/* Appends another record (a schema or channel) as it is. */
void bag_chunk_record(struct bag_chunk *c, const struct bag_buf *rec);
/* The Chunk record's fields before its compressed bytes (rec: the record's opening), c->body, and
 * the message index records that follow the chunk at file offset `chunk_offset` + chunk length; adds
 * the chunk's Chunk Index record to `chunk_indexes`. */
bool bag_chunk_encode(struct bag_chunk *c, const char *compression, int level,
		      uint64_t chunk_offset, struct bag_buf *head, struct bag_buf *compressed,
		      struct bag_buf *indexes, struct bag_buf *chunk_indexes);

/* Everything the summary section repeats or counts (summary.c). */
struct bag_summary_in {
	const struct bag_buf *schemas, *channels, *chunk_indexes, *metadata_indexes;
	uint64_t messages, start, end;
	uint16_t nschemas;
	uint32_t nchannels, nchunks, nmetadata;
	const uint64_t *channel_counts; /* per channel id, nchannels entries */
};
/* The summary section, summary offset section, footer and closing magic, for a summary that starts
 * at file offset `start`. */
void bag_summary_encode(const struct bag_summary_in *in, uint64_t start, struct bag_buf *out);

#endif
