/* The MCAP reader: opens the file (read with pread only, fileread.c), checks magic, header and
 * footer, and walks the data section record by record (into chunks: decompressed, CRC checked).
 * Every field is read through a bounds-checked cursor; bad input, and a file cut shorter while it
 * is read, end in "file: offset: what", never a read past the end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"
#include "bag_read.h"

#define FOOTER_LEN (9 + 20)

static char *dup_str(struct bag_cur s, bool *bad)
{
	if (s.bad || memchr(s.p, 0, s.len)) {
		*bad = true;
		return NULL;
	}
	char *d = strndup(s.len ? (const char *)s.p : "", s.len);
	if (!d)
		*bad = true;
	return d;
}

const char *bag_meta(char *const *kv, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(kv[2 * i], key))
			return kv[2 * i + 1];
	return NULL;
}

static void free_map(char **kv, int n)
{
	for (int i = 0; i < 2 * n; i++)
		free(kv[i]);
	free(kv);
}

/* A string map into kv (key, value, ...); false on malformed bytes. */
static bool read_map(struct bag_cur *c, char ***kv, int *n)
{
	struct bag_cur m = bag_get_prefixed(c);
	*kv = NULL;
	*n = 0;
	bool bad = m.bad;
	while (!bad && m.at < m.len) {
		char **v = realloc(*kv, (size_t)(*n + 1) * 2 * sizeof *v);
		if (!v)
			break;
		*kv = v;
		v[2 * *n] = dup_str(bag_get_prefixed(&m), &bad);
		v[2 * *n + 1] = dup_str(bag_get_prefixed(&m), &bad);
		(*n)++;
	}
	if (bad || m.at < m.len) {
		free_map(*kv, *n);
		*kv = NULL;
		*n = 0;
		return false;
	}
	return true;
}

const struct bag_channel *bag_channel_get(const struct bag_reader *r, uint16_t id)
{
	for (int i = 0; i < r->nchannels; i++)
		if (r->channels[i].id == id)
			return &r->channels[i];
	return NULL;
}

const struct bag_schema *bag_schema_get(const struct bag_reader *r, uint16_t id)
{
	for (int i = 0; i < r->nschemas; i++)
		if (r->schemas[i].id == id)
			return &r->schemas[i];
	return NULL;
}

/* "what" for a record: its file offset, or its chunk's and its place in the chunk. */
int bag_fail(struct bag_reader *r, const struct bag_rec *rec, const char *fmt, const char *what)
{
	char msg[300];
	snprintf(msg, sizeof msg, fmt, what);
	if (rec && rec->in_chunk)
		bag_err_set(&r->err, r->path, (int64_t)r->chunk_offset,
			    "chunk record at uncompressed offset %zu: %s", rec->chunk_at, msg);
	else
		bag_err_set(&r->err, r->path, rec ? (int64_t)rec->offset : -1, "%s", msg);
	return -1;
}

static int add_schema(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body;
	struct bag_schema s = {0};
	bool bad = false;
	s.id = bag_get_u16(&c);
	s.name = dup_str(bag_get_prefixed(&c), &bad);
	s.encoding = dup_str(bag_get_prefixed(&c), &bad);
	struct bag_cur d = bag_get_prefixed(&c);
	s.data = d.p;
	s.len = (uint32_t)d.len;
	if (bad || c.bad || s.id == 0) {
		free(s.name);
		free(s.encoding);
		return bag_fail(r, rec, "%s", s.id == 0 && !c.bad ? "schema id 0 (reserved)" : "malformed schema record");
	}
	if (bag_schema_get(r, s.id)) { /* repeated (another chunk): keep the first */
		free(s.name);
		free(s.encoding);
		return 0;
	}
	/* Data of a schema in a chunk lives in the chunk buffer: keep a copy. */
	uint8_t *copy = malloc(s.len ? s.len : 1);
	struct bag_schema *v = realloc(r->schemas, (size_t)(r->nschemas + 1) * sizeof *v);
	if (!copy || !v) {
		free(copy);
		free(s.name);
		free(s.encoding);
		if (v)
			r->schemas = v;
		return bag_fail(r, rec, "%s", "out of memory");
	}
	memcpy(copy, s.data, s.len);
	s.data = copy;
	r->schemas = v;
	v[r->nschemas++] = s;
	return 0;
}

static int add_channel(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body;
	struct bag_channel ch = {0};
	bool bad = false;
	ch.id = bag_get_u16(&c);
	ch.schema_id = bag_get_u16(&c);
	ch.topic = dup_str(bag_get_prefixed(&c), &bad);
	ch.encoding = dup_str(bag_get_prefixed(&c), &bad);
	bad |= !read_map(&c, &ch.meta, &ch.nmeta) || c.bad;
	const char *why = bad ? "malformed channel record" : NULL;
	if (!why && ch.schema_id && !bag_schema_get(r, ch.schema_id))
		why = "channel names a schema not defined before it";
	if (!why && bag_channel_get(r, ch.id))
		why = "repeated"; /* another chunk: keep the first */
	struct bag_channel *v =
	    why ? NULL : realloc(r->channels, (size_t)(r->nchannels + 1) * sizeof *v);
	if (v) {
		r->channels = v;
		v[r->nchannels++] = ch;
		return 0;
	}
	free(ch.topic);
	free(ch.encoding);
	free_map(ch.meta, ch.nmeta);
	if (why && !strcmp(why, "repeated"))
		return 0;
	return bag_fail(r, rec, "%s", why ? why : "out of memory");
}

static int add_metadata(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_cur c = rec->body;
	struct bag_metadata m = {0};
	bool bad = false;
	m.name = dup_str(bag_get_prefixed(&c), &bad);
	bad |= !read_map(&c, &m.meta, &m.nmeta) || c.bad;
	struct bag_metadata *v =
	    bad ? NULL : realloc(r->metadata, (size_t)(r->nmetadata + 1) * sizeof *v);
	if (!v) {
		free(m.name);
		free_map(m.meta, m.nmeta);
		return bag_fail(r, rec, "%s", bad ? "malformed metadata record" : "out of memory");
	}
	r->metadata = v;
	v[r->nmetadata++] = m;
	return 0;
}

int bag_parse_message(struct bag_reader *r, const struct bag_rec *rec, struct bag_message *m)
{
	struct bag_cur c = rec->body;
	m->channel = bag_get_u16(&c);
	m->sequence = bag_get_u32(&c);
	m->log_time = bag_get_u64(&c);
	m->publish_time = bag_get_u64(&c);
	struct bag_cur d = bag_get_rest(&c); /* empty when lazy: the body is the fields only */
	m->data = rec->lazy ? NULL : d.p;
	m->len = rec->lazy ? rec->data_len : d.len;
	m->data_at = rec->lazy ? rec->data_at : 0;
	m->offset = rec->in_chunk ? r->chunk_offset : rec->offset;
	if (c.bad)
		return bag_fail(r, rec, "%s", "message record shorter than its fields");
	if (!bag_channel_get(r, m->channel)) {
		char why[64];
		snprintf(why, sizeof why, "message on channel %u, not defined before it", m->channel);
		return bag_fail(r, rec, "%s", why);
	}
	return 0;
}

static int count_message(struct bag_reader *r, const struct bag_rec *rec)
{
	struct bag_message m;
	if (bag_parse_message(r, rec, &m) < 0)
		return -1;
	struct bag_channel *ch = (struct bag_channel *)bag_channel_get(r, m.channel);
	ch->count++;
	if (!r->messages || m.log_time < r->start_time)
		r->start_time = m.log_time;
	if (!r->messages || m.log_time > r->end_time)
		r->end_time = m.log_time;
	r->messages++;
	return 0;
}

/* The first pass: definitions, counts, CRCs and message indexes. */
static int walk(struct bag_reader *r)
{
	struct bag_rec rec;
	int k;
	while ((k = bag_next_record(r, &rec)) > 0) {
		int x = 0;
		if (rec.op == BAG_OP_SCHEMA)
			x = add_schema(r, &rec);
		else if (rec.op == BAG_OP_CHANNEL)
			x = add_channel(r, &rec);
		else if (rec.op == BAG_OP_MESSAGE)
			x = count_message(r, &rec);
		else if (rec.op == BAG_OP_METADATA)
			x = add_metadata(r, &rec);
		else if (rec.op == BAG_OP_ATTACHMENT)
			x = bag_add_attachment(r, &rec);
		else if (rec.op == BAG_OP_MESSAGE_INDEX)
			x = bag_check_message_index(r, &rec);
		if (x < 0)
			return -1;
	}
	return k;
}

static int check_footer(struct bag_reader *r)
{
	uint8_t f[FOOTER_LEN + BAG_MAGIC_LEN];
	if (r->size < 2 * BAG_MAGIC_LEN + FOOTER_LEN)
		return 0;
	uint64_t at = r->size - BAG_MAGIC_LEN - FOOTER_LEN;
	if (!bag_read_at(r, at, f, sizeof f, "footer"))
		return -1;
	if (memcmp(f + FOOTER_LEN, BAG_MAGIC, BAG_MAGIC_LEN) || f[0] != BAG_OP_FOOTER ||
	    bag_le64(f + 1) != 20)
		return 0;
	r->has_footer = true;
	r->summary_start = bag_le64(f + 9);
	r->summary_offset_start = bag_le64(f + 17);
	r->summary_crc = bag_le32(f + 25);
	r->footer_at = at;
	uint64_t end = r->footer_at;
	if (r->summary_start > end || r->summary_offset_start > end ||
	    (r->summary_start && r->summary_start < BAG_MAGIC_LEN) ||
	    (r->summary_offset_start && r->summary_offset_start < r->summary_start)) {
		bag_err_set(&r->err, r->path, (int64_t)r->footer_at,
			    "footer points outside the file (summary at %llu, offsets at %llu)",
			    (unsigned long long)r->summary_start,
			    (unsigned long long)r->summary_offset_start);
		return -1;
	}
	return 0;
}

static int read_header(struct bag_reader *r)
{
	uint8_t magic[BAG_MAGIC_LEN];
	if (r->size >= BAG_MAGIC_LEN && !bag_read_at(r, 0, magic, sizeof magic, "magic"))
		return -1;
	if (r->size < BAG_MAGIC_LEN || memcmp(magic, BAG_MAGIC, BAG_MAGIC_LEN)) {
		bag_err_set(&r->err, r->path, 0, "not an MCAP file (no MCAP magic)");
		return -1;
	}
	r->data_crc = bag_crc32(0, magic, sizeof magic); /* the data section CRC starts here */
	r->crc_at = BAG_MAGIC_LEN;
	r->at = BAG_MAGIC_LEN;
	struct bag_rec rec;
	int k = bag_next_record(r, &rec);
	if (k <= 0 || rec.op != BAG_OP_HEADER) {
		if (k >= 0)
			bag_err_set(&r->err, r->path, BAG_MAGIC_LEN,
				    k == 0 ? "file ends before its header record"
					   : "first record is not a header");
		return -1;
	}
	bool bad = false;
	struct bag_cur c = rec.body;
	r->profile = dup_str(bag_get_prefixed(&c), &bad);
	r->library = dup_str(bag_get_prefixed(&c), &bad);
	if (bad)
		return bag_fail(r, &rec, "%s", "malformed header record");
	r->data_start = r->at;
	return 0;
}

int bag_open(const char *path, struct bag_reader *r)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (r->fd < 0 || fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r->err_errno = r->fd < 0 ? errno : EINVAL;
		bag_err_set(&r->err, path, -1, "cannot open: %s",
			    r->fd < 0 ? strerror(errno) : "not a regular file");
		return -1;
	}
	r->size = (uint64_t)st.st_size;
	r->first_pass = true;
	if (read_header(r) < 0 || check_footer(r) < 0 || walk(r) < 0)
		return -1;
	r->first_pass = false;
	r->truncated |= !r->has_footer; /* its writer did not finish (the data may all be there) */
	if (r->has_footer && !r->truncated && bag_verify_summary(r) < 0)
		return -1;
	bag_rewind(r);
	return 0;
}

void bag_rewind(struct bag_reader *r)
{
	r->at = r->data_start;
	r->chunk_len = r->chunk_at = 0;
	r->ended = false;
}

void bag_idle(struct bag_reader *r)
{
	bag_rewind(r);
	free(r->chunk);
	r->chunk = NULL;
	r->chunk_cap = 0;
	r->recs = NULL;
	bag_buf_free(&r->raw);
	bag_buf_free(&r->body);
	bag_buf_free(&r->msg);
}

int bag_next_lazy(struct bag_reader *r, struct bag_message *m)
{
	struct bag_rec rec;
	int k;
	r->err_errno = 0; /* an error of this call is its own */
	while ((k = bag_next_record(r, &rec)) > 0)
		if (rec.op == BAG_OP_MESSAGE)
			return bag_parse_message(r, &rec, m) < 0 ? -1 : 1;
	return k;
}

int bag_message_read(struct bag_reader *r, const struct bag_message *m, void *dst)
{
	if (m->data) {
		if (m->len)
			memcpy(dst, m->data, m->len);
		return 0;
	}
	return bag_read_at(r, m->data_at, dst, m->len, "message data") ? 0 : -1;
}

int bag_next(struct bag_reader *r, struct bag_message *m)
{
	int k = bag_next_lazy(r, m);
	if (k <= 0 || m->data)
		return k;
	const uint8_t *p = bag_read_buf(r, &r->msg, m->data_at, m->len, "message data");
	if (!p)
		return -1;
	m->data = p;
	return 1;
}

void bag_close(struct bag_reader *r)
{
	if (r->path && r->fd >= 0) /* opened by bag_open (a zeroed reader has no path) */
		close(r->fd);
	bag_buf_free(&r->raw);
	bag_buf_free(&r->body);
	bag_buf_free(&r->msg);
	for (int i = 0; i < r->nschemas; i++) {
		free(r->schemas[i].name);
		free(r->schemas[i].encoding);
		free((void *)r->schemas[i].data);
	}
	for (int i = 0; i < r->nchannels; i++) {
		free(r->channels[i].topic);
		free(r->channels[i].encoding);
		free_map(r->channels[i].meta, r->channels[i].nmeta);
	}
	for (int i = 0; i < r->nmetadata; i++) {
		free(r->metadata[i].name);
		free_map(r->metadata[i].meta, r->metadata[i].nmeta);
	}
	free(r->schemas);
	free(r->channels);
	free(r->metadata);
	bag_free_attachments(r);
	free(r->chunk);
	free(r->profile);
	free(r->library);
	memset(r, 0, sizeof *r);
}
