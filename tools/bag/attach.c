/* Attachments (MCAP Attachment records: files such as a calibration kept beside the messages, in
 * the data section outside chunks). The reader checks each one (fields, CRC) and keeps a copy, so
 * reindex writes it back as it was; the writer keeps each until close and writes it with its
 * Attachment Index in the summary and its count in Statistics. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bag_chunk.h"
#include "bag_read.h"

static char *dup_text(struct bag_cur s)
{
	if (s.bad || memchr(s.p, 0, s.len))
		return NULL;
	return strndup(s.len ? (const char *)s.p : "", s.len);
}

int bag_add_attachment(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body;
	struct bag_attachment a = {.offset = rec->offset, .record_len = 9 + rec->body.len};
	a.log_time = bag_get_u64(&c);
	a.create_time = bag_get_u64(&c);
	struct bag_cur name = bag_get_prefixed(&c), type = bag_get_prefixed(&c);
	uint64_t n = bag_get_u64(&c);
	const char *why = NULL;
	if (c.bad || n > c.len - c.at || c.len - c.at - n != 4)
		why = "malformed attachment record";
	const uint8_t *data = why ? NULL : c.p + c.at;
	c.at += why ? 0 : (size_t)n;
	uint32_t crc = bag_get_u32(&c);
	if (!why && crc && bag_crc32(0, rec->body.p, rec->body.len - 4) != crc)
		why = "attachment CRC mismatch (corrupted attachment)";
	if (!why) {
		a.name = dup_text(name);
		a.media_type = dup_text(type);
		a.data = malloc(n ? (size_t)n : 1);
		a.len = n;
		if (!a.name || !a.media_type || !a.data)
			why = name.bad || memchr(name.p, 0, name.len) || memchr(type.p, 0, type.len)
				  ? "malformed attachment record"
				  : "out of memory";
	}
	struct bag_attachment *v =
	    why ? NULL : realloc(r->attachments, (size_t)(r->nattachments + 1) * sizeof *v);
	if (!v) {
		free(a.name);
		free(a.media_type);
		free(a.data);
		return bag_fail(r, rec, "%s", why ? why : "out of memory");
	}
	memcpy(a.data, data, (size_t)n);
	r->attachments = v;
	v[r->nattachments++] = a;
	return 0;
}

void bag_free_attachments(struct bag_reader *r)
{
	for (int i = 0; i < r->nattachments; i++) {
		free(r->attachments[i].name);
		free(r->attachments[i].media_type);
		free(r->attachments[i].data);
	}
	free(r->attachments);
	r->attachments = NULL;
	r->nattachments = 0;
}

int bag_writer_attachment(struct bag_writer *w, uint64_t log_time, uint64_t create_time,
			  const char *name, const char *media_type, const void *data, size_t n)
{
	struct bag_buf b = {0};
	size_t s = bag_record_begin(&b, BAG_OP_ATTACHMENT);
	bag_put_u64(&b, log_time);
	bag_put_u64(&b, create_time);
	bag_put_str(&b, name);
	bag_put_str(&b, media_type);
	bag_put_u64(&b, n);
	bag_put(&b, data, n);
	bag_put_u32(&b, b.failed || !w->crc ? 0 : bag_crc32(0, b.p + s + 9, b.len - s - 9));
	bag_record_end(&b, s);
	struct bag_buf *v =
	    b.failed ? NULL : realloc(w->attachments, (size_t)(w->nattachments + 1) * sizeof *v);
	if (!v) {
		bag_buf_free(&b);
		return -1;
	}
	w->attachments = v;
	v[w->nattachments++] = b;
	return 0;
}

bool bag_attachments_write(struct bag_writer *w, struct bag_buf *index,
			   bool (*write)(struct bag_writer *, const struct bag_buf *))
{
	for (int i = 0; i < w->nattachments; i++) {
		const struct bag_buf *a = &w->attachments[i];
		struct bag_cur c = {a->p + 9, a->len - 9, 0, false};
		uint64_t log_time = bag_get_u64(&c), create_time = bag_get_u64(&c);
		struct bag_cur name = bag_get_prefixed(&c), type = bag_get_prefixed(&c);
		uint64_t n = bag_get_u64(&c);
		size_t s = bag_record_begin(index, BAG_OP_ATTACHMENT_INDEX);
		bag_put_u64(index, w->offset);
		bag_put_u64(index, a->len);
		bag_put_u64(index, log_time);
		bag_put_u64(index, create_time);
		bag_put_u64(index, n);
		bag_put_bytes(index, name.p, name.len);
		bag_put_bytes(index, type.p, type.len);
		bag_record_end(index, s);
		if (!write(w, a))
			return false;
	}
	return true;
}

void bag_attachments_free(struct bag_writer *w)
{
	for (int i = 0; i < w->nattachments; i++)
		bag_buf_free(&w->attachments[i]);
	free(w->attachments);
}
