/* Reader-side parts of tools/bag: one record of the data section or of a chunk. */
#ifndef ZCAST_BAG_READ_H
#define ZCAST_BAG_READ_H

#include "bag.h"

struct bag_rec {
	uint8_t op;
	struct bag_cur body; /* the record's content */
	uint64_t offset;     /* file offset (of its chunk, when in_chunk) */
	bool in_chunk;
	size_t chunk_at; /* offset in the chunk's uncompressed records */
	/* A message whose data was left in the file (bag_next_lazy): body holds its fields only. */
	bool lazy;
	uint64_t data_at;
	size_t data_len;
};
/* ---- fileread.c: the file read with pread, never mapped ---- */
/* n bytes at file offset `at` into dst. False with r->err ("file: offset: what: ...") when the
 * file ends before (it was cut since it was opened) or the read fails (r->err_errno). */
bool bag_read_at(struct bag_reader *r, uint64_t at, void *dst, size_t n, const char *what);
/* n bytes at `at` into b (its contents replaced): b->p, or NULL with r->err. */
const uint8_t *bag_read_buf(struct bag_reader *r, struct bag_buf *b, uint64_t at, size_t n,
			    const char *what);

/* The next record of the data section, descending into chunks (a chunk itself is not returned).
 * 1 with *rec, 0 at the end of the data section (or of the complete records of a cut file), -1 on
 * bad data (r->err). */
int bag_next_record(struct bag_reader *r, struct bag_rec *rec);
/* Sets r->err to "file: offset: " + fmt (one %s: what) for the record; returns -1. */
int bag_fail(struct bag_reader *r, const struct bag_rec *rec, const char *fmt, const char *what);
int bag_parse_message(struct bag_reader *r, const struct bag_rec *rec, struct bag_message *m);
/* An Attachment record checked (fields, CRC) and kept in r->attachments (attach.c). */
int bag_add_attachment(struct bag_reader *r, const struct bag_rec *rec);
void bag_free_attachments(struct bag_reader *r);
/* A Message Index record against the chunk just read (first pass). */
int bag_check_message_index(struct bag_reader *r, const struct bag_rec *rec);

#endif
