/* MCAP files (https://mcap.dev/spec), written and read by zcast's own code: the recorder's writer
 * (chunked, zstd or lz4, message indexes, summary, footer), a reader that checks every record and
 * reports bad input as "file: offset: what", and reindex. One concept per file:
 *   bytes.c     growing buffers, little-endian fields, a bounds-checked cursor
 *   crc32.c     the CRC-32 MCAP uses
 *   compress.c  zstd / lz4 frames
 *   chunk.c     an open chunk: records and per-channel message indexes
 *   writer.c    schemas, channels, messages, metadata; a writer thread that compresses and writes
 *   direct.c    uncompressed chunks streamed to the file, large messages without a copy
 *   summary.c   summary section, summary offsets and footer
 *   fileread.c  the reader's only way to the file's bytes: pread (never mmap: a file cut by
 *               another process while it is read is an error, not SIGBUS)
 *   records.c   the data section record by record, into chunks
 *   reader.c    opening, the data section walk, messages in file order
 *   verify.c    the summary checked against the data section
 *   reindex.c   a summary rebuilt for a file whose writer died
 *   lock.c      the writer's lock on its file, which reindex respects
 *   attach.c    attachments: checked and kept by the reader, written with their index */
#ifndef ZCAST_BAG_H
#define ZCAST_BAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bag_op {
	BAG_OP_HEADER = 0x01,
	BAG_OP_FOOTER = 0x02,
	BAG_OP_SCHEMA = 0x03,
	BAG_OP_CHANNEL = 0x04,
	BAG_OP_MESSAGE = 0x05,
	BAG_OP_CHUNK = 0x06,
	BAG_OP_MESSAGE_INDEX = 0x07,
	BAG_OP_CHUNK_INDEX = 0x08,
	BAG_OP_ATTACHMENT = 0x09,
	BAG_OP_ATTACHMENT_INDEX = 0x0a,
	BAG_OP_STATISTICS = 0x0b,
	BAG_OP_METADATA = 0x0c,
	BAG_OP_METADATA_INDEX = 0x0d,
	BAG_OP_SUMMARY_OFFSET = 0x0e,
	BAG_OP_DATA_END = 0x0f,
};
#define BAG_MAGIC "\x89MCAP0\r\n"
#define BAG_MAGIC_LEN 8
#define BAG_MAX_CHANNELS 65535

/* An error as text: "file: offset: what" (offset omitted when the file as a whole is at fault). */
struct bag_err {
	char text[512];
};
void bag_err_set(struct bag_err *e, const char *file, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- bytes.c ---- */
struct bag_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed; /* out of memory at some point: the contents are incomplete */
};
void bag_buf_free(struct bag_buf *b);
uint8_t *bag_buf_grow(struct bag_buf *b, size_t n); /* room for n more bytes, or NULL */
void bag_put(struct bag_buf *b, const void *p, size_t n);
void bag_put_u8(struct bag_buf *b, uint8_t v);
void bag_put_u16(struct bag_buf *b, uint16_t v);
void bag_put_u32(struct bag_buf *b, uint32_t v);
void bag_put_u64(struct bag_buf *b, uint64_t v);
void bag_put_str(struct bag_buf *b, const char *s); /* uint32 length + bytes */
void bag_put_bytes(struct bag_buf *b, const void *p, size_t n); /* uint32 length + bytes */
/* Starts a record: opcode and a length patched by bag_record_end. Returns its start. */
size_t bag_record_begin(struct bag_buf *b, uint8_t op);
void bag_record_end(struct bag_buf *b, size_t start);
/* A string-to-string map: uint32 byte length, then key and value strings. */
void bag_put_map(struct bag_buf *b, const char *const *kv, int npairs);

/* A read cursor over untrusted bytes: every get checks the room left; once one fails the cursor
 * is failed and every later get returns zeros. */
struct bag_cur {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};
uint8_t bag_get_u8(struct bag_cur *c);
uint16_t bag_get_u16(struct bag_cur *c);
uint32_t bag_get_u32(struct bag_cur *c);
uint64_t bag_get_u64(struct bag_cur *c);
/* uint32-length-prefixed bytes (strings, byte arrays, maps): a sub-cursor over them. */
struct bag_cur bag_get_prefixed(struct bag_cur *c);
/* The rest of the cursor's bytes. */
struct bag_cur bag_get_rest(struct bag_cur *c);
uint64_t bag_le64(const uint8_t *p);
uint32_t bag_le32(const uint8_t *p);

/* ---- crc32.c ---- */
uint32_t bag_crc32(uint32_t crc, const void *p, size_t n); /* start with 0 */
/* The CRC of A then B from crc(A), crc(B) and B's length (no pass over the bytes). */
uint32_t bag_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

/* ---- compress.c ---- */
/* "zstd", "lz4" or "" (none). */
bool bag_compression_known(const char *name);
/* Compresses n bytes into out (replacing its contents). False on failure. */
bool bag_compress(const char *name, int level, const uint8_t *p, size_t n, struct bag_buf *out);
/* Decompresses exactly `want` bytes into out (of room want). False (with why) otherwise. */
bool bag_decompress(const char *name, const uint8_t *p, size_t n, uint8_t *out, size_t want,
		    const char **why);

/* ---- writer.c ---- */
struct bag_writer;
struct bag_writer_opts {
	const char *compression; /* "zstd" (default), "lz4", "" */
	int level;		 /* compression level (0: the library's default) */
	size_t chunk_size;	 /* a chunk is sealed when its records reach this (default 4 MiB) */
	const char *profile;	 /* header profile ("ros2") */
	const char *library;	 /* header library */
	bool threaded;		 /* compress and write on a thread of the writer's own (compressed
				  * chunks; uncompressed ones are written by the appender as they
				  * fill, large messages from where they are: no copy) */
	bool no_crc;		 /* chunk and data section CRCs left 0 (MCAP: "not computed") */
	int queue_chunks;	 /* sealed chunks waiting at most before an append waits (default 4) */
};
int bag_writer_open(const char *path, const struct bag_writer_opts *o, struct bag_writer **out,
		    struct bag_err *e);
/* Adds a schema; returns its id (1..) or -1. The record goes into the current chunk. */
int bag_writer_schema(struct bag_writer *w, const char *name, const char *encoding,
		      const void *data, size_t n);
/* Adds a channel (schema 0: none); kv holds npairs key/value pairs of metadata. Returns its id
 * (0..) or -1. */
int bag_writer_channel(struct bag_writer *w, int schema, const char *topic, const char *encoding,
		       const char *const *kv, int npairs);
/* Appends a message to the current chunk (copying data; uncompressed, a large message is written
 * before the call returns, from data itself); seals the chunk when it is full. */
int bag_writer_message(struct bag_writer *w, int channel, uint32_t sequence, uint64_t log_time,
		       uint64_t publish_time, const void *data, size_t n);
/* Seals and writes the current chunk now (for a recorder: at most this much is lost to kill -9). */
int bag_writer_flush(struct bag_writer *w);
/* Waits until every sealed chunk is written (compressed, in the file). 0, or -1 once a write
 * failed. */
int bag_writer_wait(struct bag_writer *w);
/* A Metadata record, written at close (kv copied now; a later call with the same name replaces it). */
int bag_writer_metadata(struct bag_writer *w, const char *name, const char *const *kv, int npairs);
/* An Attachment record (a file kept beside the messages: n bytes of data copied now), written at
 * close with its Attachment Index in the summary (attach.c). 0 or -1 (out of memory). */
int bag_writer_attachment(struct bag_writer *w, uint64_t log_time, uint64_t create_time,
			  const char *name, const char *media_type, const void *data, size_t n);
/* The file's size if it were closed now, less its summary (for size-based splitting): bytes
 * written, plus the records of the chunks queued and of the open one, scaled by how much the
 * chunks of this file written so far took in it (compressed, with their message indexes).
 * *measured is false until one is written: records are then counted at their own size.
 * *queued: a sealed chunk is waiting to be written. */
uint64_t bag_writer_size(struct bag_writer *w, bool *measured, bool *queued);
uint64_t bag_writer_messages(const struct bag_writer *w);
/* Renames the file being written (rename(2)); later errors name the new path. 0 or -1 (e set). */
int bag_writer_rename(struct bag_writer *w, const char *path, struct bag_err *e);
/* Writes what is left, the summary and footer, and closes. Frees w. 0 or -1 (e set). */
int bag_writer_close(struct bag_writer *w, struct bag_err *e);

/* ---- reader.c ---- */
struct bag_schema {
	uint16_t id;
	char *name, *encoding;
	const uint8_t *data;
	uint32_t len;
};
struct bag_channel {
	uint16_t id, schema_id;
	char *topic, *encoding;
	int nmeta;
	char **meta; /* nmeta key, value pairs */
	uint64_t count; /* messages seen in the data section */
};
struct bag_message {
	uint16_t channel;
	uint32_t sequence;
	uint64_t log_time, publish_time;
	const uint8_t *data; /* NULL from bag_next_lazy when the data is still in the file */
	size_t len;
	uint64_t offset;  /* file offset of its record, or of its chunk */
	uint64_t data_at; /* file offset of the data when data is NULL */
};
struct bag_metadata {
	char *name;
	int nmeta;
	char **meta;
};
/* An Attachment record as the reader checked it (its CRC when not 0); data is a copy. */
struct bag_attachment {
	uint64_t log_time, create_time;
	char *name, *media_type;
	uint8_t *data;
	uint64_t len;
	uint64_t offset, record_len; /* its record in the file (opcode and length included) */
};
struct bag_reader {
	const char *path;
	int fd;		/* read with pread only (fileread.c); -1 when closed */
	uint64_t size;	/* when opened: a file cut shorter since reads short, an error */
	int err_errno;	/* with err: the errno of a failed open or read (0: bad content) */
	bool has_footer;	/* the file ends with a footer and magic */
	bool truncated;		/* no footer: its writer died (complete records are all read) */
	uint64_t data_end;	/* end of the last complete data-section record */
	uint64_t summary_start; /* 0: no summary */
	char *profile, *library;
	struct bag_schema *schemas;
	int nschemas;
	struct bag_channel *channels; /* sorted by nothing: find with bag_channel_get */
	int nchannels;
	struct bag_metadata *metadata;
	int nmetadata;
	struct bag_attachment *attachments; /* in file order */
	int nattachments;
	uint64_t messages, chunks, start_time, end_time;
	uint64_t chunk_bytes_compressed, chunk_bytes_uncompressed;
	char compression[16]; /* of the first chunk */
	/* where things are */
	uint64_t data_start, data_end_at; /* first data record; the Data End record (0: none) */
	uint64_t summary_offset_start, footer_at;
	uint32_t summary_crc;
	/* walk state */
	uint64_t at;	      /* next data-section record */
	bool ended;	      /* the walk met Data End or the end of the complete records */
	bool first_pass;      /* bag_open's walk: counts chunks, checks CRCs and indexes */
	bool have_chunk;      /* a chunk was read (message indexes refer to it) */
	uint8_t *chunk;	      /* decompressed records of the current chunk (owned) */
	const uint8_t *recs;  /* the current chunk's records in memory: chunk, or raw (see
			       * load_chunk); NULL when they are read from the file as walked */
	size_t chunk_len, chunk_cap, chunk_at;
	uint64_t chunk_offset;
	uint64_t chunk_data_at;	  /* file offset of the records when recs is NULL */
	struct bag_buf raw, body; /* a chunk record's bytes as in the file; another record's body */
	struct bag_buf msg;	  /* bag_next: a message's data read from the file */
	uint8_t fields[64];	  /* a record's opening read on its own (records.c) */
	uint32_t data_crc;	  /* first pass: CRC of the file's bytes [0, crc_at) as read */
	uint64_t crc_at;
	struct bag_err err;
};
/* Opens and walks the whole file once: schemas, channels, counts, every chunk's CRC, and (with a
 * summary) that the summary agrees with the data. A truncated file (no footer) opens, with
 * r->truncated and the complete records only. 0 or -1 with r->err. */
int bag_open(const char *path, struct bag_reader *r);
void bag_close(struct bag_reader *r);
/* Restarts the message walk at the start of the data section. */
void bag_rewind(struct bag_reader *r);
/* Rewinds and frees the current chunk's buffer: a reader kept open while others are read. */
void bag_idle(struct bag_reader *r);
/* The next message in file order: 1, 0 at the end, -1 on bad data (r->err). Its data stays valid
 * until the next call. */
int bag_next(struct bag_reader *r, struct bag_message *m);
/* The same, but the data of a message in an uncompressed chunk stays in the file (m->data NULL)
 * until bag_message_read puts it where the caller wants it: read once, straight to its place. */
int bag_next_lazy(struct bag_reader *r, struct bag_message *m);
/* m->len bytes of the message just returned into dst: read from the file, or copied from the
 * decompressed chunk. 0 or -1 (r->err). */
int bag_message_read(struct bag_reader *r, const struct bag_message *m, void *dst);
const struct bag_channel *bag_channel_get(const struct bag_reader *r, uint16_t id);
const struct bag_schema *bag_schema_get(const struct bag_reader *r, uint16_t id);
const char *bag_meta(char *const *kv, int n, const char *key); /* value or NULL */

/* Largest uncompressed chunk the reader accepts (default 1 GiB; the fuzz target lowers it). */
extern uint64_t bag_max_chunk;
/* Tests only (NULL otherwise): called before each read of a reader's file (fileread.c), at the
 * offset it reads, so a test can cut the file between two reads. */
extern void (*bag_read_hook)(const struct bag_reader *r, uint64_t at);

/* ---- verify.c: the summary section against what bag_open counted ---- */
int bag_verify_summary(struct bag_reader *r);

/* ---- lock.c ---- */
/* flock(LOCK_EX | LOCK_NB) on fd: 0, or -1 with errno (EWOULDBLOCK: another holds it). */
int bag_lock_fd(int fd);
/* Opens path and takes its lock: the fd (close it to let go), or -1 with e ("FILE: is being
 * written (a recorder has it open)" when its writer holds it). */
int bag_lock(const char *path, struct bag_err *e);
/* True while path still names the file fd has open (not replaced since it was locked). */
bool bag_lock_still(int fd, const char *path);

/* ---- reindex.c ---- */
/* Rewrites `path` from its complete records with a fresh summary (a file cut by kill -9 becomes a
 * whole one). Messages of incomplete chunks are lost. A file its writer still holds (bag_lock) is
 * refused and left as it is. Prints nothing. 0 or -1. */
int bag_reindex(const char *path, const char *compression, struct bag_err *e);
/* The same for a file whose lock (bag_lock) the caller holds as the fd `lock`. */
int bag_reindex_locked(const char *path, int lock, const char *compression, struct bag_err *e);

#endif
