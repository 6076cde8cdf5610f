/* Writer-side parts of tools/bag (not for the reader): an open chunk and the summary. */
#ifndef ZCAST_BAG_CHUNK_H
#define ZCAST_BAG_CHUNK_H

#include <pthread.h>
#include <sys/uio.h>

#include "bag.h"

/* The records of one chunk and, per channel that has messages in it, its message index. A
 * buffered chunk (compressed) holds all its records in `records`; a streamed one (uncompressed,
 * direct.c) holds only those not yet written, the first `written` bytes being in the file. */
struct bag_chunk {
	struct bag_buf records;
	uint64_t written;
	uint64_t start, end; /* log times of its messages (valid when nmsgs > 0) */
	uint64_t nmsgs;
	struct bag_buf *index; /* per channel id: (log_time, offset) pairs */
	int nindex;	       /* entries of index */
	uint16_t *used;	       /* channels with an index entry, in first-use order */
	int nused, capused;
	struct bag_chunk *next; /* queue link */
	/* the bytes after the Chunk record's fields (set by bag_chunk_encode: the records themselves
	 * when uncompressed, not copied), and the CRC of the uncompressed records (0: none) */
	const uint8_t *body;
	size_t body_len;
	uint32_t records_crc;
};
void bag_chunk_reset(struct bag_chunk *c);
void bag_chunk_free(struct bag_chunk *c);
/* The chunk's uncompressed records length (written and buffered). */
uint64_t bag_chunk_length(const struct bag_chunk *c);
/* Appends a Message record; false when out of memory. */
bool bag_chunk_message(struct bag_chunk *c, uint16_t channel, uint32_t sequence, uint64_t log_time,
		       uint64_t publish_time, const void *data, size_t n);
/* Appends a Message record's opcode, length and fields for n bytes of data that the caller writes
 * next, right after the buffered records (direct.c). False when out of memory. */
bool bag_chunk_message_head(struct bag_chunk *c, uint16_t channel, uint32_t sequence,
			    uint64_t log_time, uint64_t publish_time, size_t n);
/* Appends another record (a schema or channel) as it is. */
void bag_chunk_record(struct bag_chunk *c, const struct bag_buf *rec);
/* The Chunk record's fields before its `body_len` bytes of records (rec: the record's opening,
 * with c->records_crc), and the message index records that follow the chunk at file offset
 * `chunk_offset` + chunk length; adds the chunk's Chunk Index record to `chunk_indexes`. */
bool bag_chunk_finish(struct bag_chunk *c, const char *compression, size_t body_len,
		      uint64_t chunk_offset, struct bag_buf *head, struct bag_buf *indexes,
		      struct bag_buf *chunk_indexes);
/* A buffered chunk compressed into `compressed` (c->body), its CRC (when `crc`), then
 * bag_chunk_finish. */
bool bag_chunk_encode(struct bag_chunk *c, const char *compression, int level, bool crc,
		      uint64_t chunk_offset, struct bag_buf *head, struct bag_buf *compressed,
		      struct bag_buf *indexes, struct bag_buf *chunk_indexes);
/* Bytes of a Chunk record before its records when uncompressed (opcode, length, fields). */
#define BAG_CHUNK_HEAD_RAW (1 + 8 + 8 + 8 + 8 + 4 + 4 + 8)

/* Everything the summary section repeats or counts (summary.c). */
struct bag_summary_in {
	const struct bag_buf *schemas, *channels, *chunk_indexes, *metadata_indexes;
	uint64_t messages, start, end;
	uint16_t nschemas;
	uint32_t nchannels, nchunks, nmetadata;
	const uint64_t *channel_counts; /* per channel id, nchannels entries */
	const struct bag_buf *attachment_indexes;
	uint32_t nattachments;
};
/* The summary section, summary offset section, footer and closing magic, for a summary that starts
 * at file offset `start`. */
void bag_summary_encode(const struct bag_summary_in *in, uint64_t start, struct bag_buf *out);

/* The writer (writer.c; direct.c streams its uncompressed chunks). */
struct bag_writer {
	char *path;
	int fd;
	char compression[8];
	int level;
	size_t chunk_size;
	/* appender side */
	struct bag_chunk *cur;
	struct bag_buf schemas, channels;
	uint16_t nschemas;
	uint32_t nchannels;
	uint64_t *counts; /* per channel */
	uint64_t messages, start, end;
	struct bag_buf *metadata; /* one Metadata record each */
	int nmetadata;
	struct bag_buf *attachments; /* one Attachment record each (attach.c) */
	int nattachments;
	/* SYNC: the queue, free list, error and `stop` are guarded by mu; the appender signals
	 * `work` after queueing, the writer thread signals `room` after writing (its partner). */
	pthread_mutex_t mu;
	pthread_cond_t work, room;
	struct bag_chunk *queue_head, *queue_tail, *free_list;
	int queued, max_queued;
	/* For size estimates (bag_writer_size), also guarded by mu: the records of the chunks
	 * queued, and of the chunks written with what they took in the file (the Chunk record and
	 * its message indexes), and the file's size after the last of them. */
	uint64_t queued_bytes, chunks_in, chunks_out, settled;
	bool threaded, stop, failed;
	pthread_t thread;
	bool direct; /* uncompressed chunks streamed to the file by the appender (direct.c) */
	bool crc;    /* chunk and data section CRCs computed (else 0: "not computed") */
	bool chunk_open;   /* direct: the chunk's placeholder opening is in the file, at chunk_at */
	uint64_t chunk_at;
	/* writer side (the thread, or the appender when not threaded) */
	uint64_t offset; /* bytes written */
	uint32_t data_crc;
	struct bag_buf head, compressed, indexes, chunk_indexes;
	uint32_t nchunks;
	int err; /* errno of the failure */
};

/* Writes the iovecs whole (advancing them) and counts w->offset; no CRC. False with w->err. */
bool bag_write_iov(struct bag_writer *w, struct iovec *iov, int n);

/* ---- attach.c: the Attachment records, written (by `write`) at close with their index ---- */
bool bag_attachments_write(struct bag_writer *w, struct bag_buf *index,
			   bool (*write)(struct bag_writer *, const struct bag_buf *));
void bag_attachments_free(struct bag_writer *w);

/* ---- direct.c: an uncompressed chunk streamed to the file as it fills ---- */
/* Appends a message to the open chunk, writing it (or a buffer of small ones) at once. */
int bag_direct_message(struct bag_writer *w, uint16_t channel, uint32_t sequence,
		       uint64_t log_time, uint64_t publish_time, const void *data, size_t n);
/* Completes the open chunk: the rest of its records, its real opening, its message indexes. */
int bag_direct_seal(struct bag_writer *w);

#endif
