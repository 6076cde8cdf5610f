/* The MCAP writer: header, schemas and channels (into the chunk where they first appear, and
 * repeated in the summary), messages into chunks, sealed chunks compressed and written with their
 * message indexes in one write (so a writer killed at any moment leaves every earlier chunk whole),
 * attachments and metadata, data end, summary and footer. With opts.threaded the compression and
 * writing run on a thread of their own: an append copies the message into the chunk buffer and
 * returns.
 * Uncompressed chunks are not buffered: direct.c streams them to the file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bag_chunk.h"

/* Writes the iovecs whole; the data section's CRC is the caller's (write_all, write_chunk). */
bool bag_write_iov(struct bag_writer *w, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t r = writev(w->fd, iov, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			w->err = r < 0 ? errno : EIO;
			return false;
		}
		__atomic_fetch_add(&w->offset, (uint64_t)r, __ATOMIC_RELAXED);
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return true;
}

static bool write_all(struct bag_writer *w, struct iovec *iov, int n)
{
	for (int i = 0; i < n; i++)
		w->data_crc = bag_crc32(w->data_crc, iov[i].iov_base, iov[i].iov_len);
	return bag_write_iov(w, iov, n);
}

static bool write_buf(struct bag_writer *w, const struct bag_buf *b)
{
	struct iovec v = {b->p, b->len};
	return b->failed ? (w->err = ENOMEM, false) : write_all(w, &v, 1);
}

/* Compresses and writes one chunk and its message indexes (one writev). */
static bool write_chunk(struct bag_writer *w, struct bag_chunk *c)
{
	if (!bag_chunk_encode(c, w->compression, w->level, w->crc, w->offset, &w->head,
			      &w->compressed, &w->indexes, &w->chunk_indexes)) {
		w->err = ENOMEM;
		return false;
	}
	struct iovec v[3] = {{w->head.p, w->head.len},
			     {(void *)c->body, c->body_len},
			     {w->indexes.p, w->indexes.len}};
	w->nchunks++;
	if (w->crc) {
		/* Uncompressed records are checksummed once: their chunk CRC joins the data section's. */
		uint32_t crc = bag_crc32(w->data_crc, w->head.p, w->head.len);
		crc = c->body == c->records.p ? bag_crc32_combine(crc, c->records_crc, c->body_len)
					      : bag_crc32(crc, c->body, c->body_len);
		w->data_crc = bag_crc32(crc, w->indexes.p, w->indexes.len);
	}
	return bag_write_iov(w, v, 3);
}

/* A chunk of `in` bytes of records is in the file: its share of the size estimate moves from the
 * queue to the bytes written, and into the compression observed (with mu held, or unthreaded). */
static void chunk_written(struct bag_writer *w, uint64_t in, uint64_t before)
{
	uint64_t offset = __atomic_load_n(&w->offset, __ATOMIC_RELAXED);
	w->chunks_in += in;
	w->chunks_out += offset - before;
	w->settled = offset;
}

static void *writer_thread(void *arg)
{
	struct bag_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->queue_head && !w->stop)
			pthread_cond_wait(&w->work, &w->mu);
		struct bag_chunk *c = w->queue_head;
		if (!c)
			break;
		pthread_mutex_unlock(&w->mu);
		uint64_t in = c->records.len;
		uint64_t before = __atomic_load_n(&w->offset, __ATOMIC_RELAXED);
		bool ok = !w->failed && write_chunk(w, c);
		bag_chunk_reset(c);
		pthread_mutex_lock(&w->mu);
		w->failed |= !ok;
		w->queued_bytes -= in;
		if (ok)
			chunk_written(w, in, before);
		w->queue_head = c->next;
		if (!w->queue_head)
			w->queue_tail = NULL;
		w->queued--;
		c->next = w->free_list;
		w->free_list = c;
		pthread_cond_signal(&w->room); /* SYNC: partner of the wait in seal() */
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Hands the current chunk to the writer (thread) and starts a new one. */
static int seal(struct bag_writer *w)
{
	struct bag_chunk *c = w->cur;
	if (w->direct)
		return bag_direct_seal(w);
	if (!c->records.len)
		return 0;
	if (!w->threaded) {
		uint64_t in = c->records.len, before = w->offset;
		bool ok = !w->failed && write_chunk(w, c);
		w->failed |= !ok;
		if (ok)
			chunk_written(w, in, before);
		bag_chunk_reset(c);
		return ok ? 0 : -1;
	}
	pthread_mutex_lock(&w->mu);
	while (w->queued >= w->max_queued && !w->failed)
		pthread_cond_wait(&w->room, &w->mu); /* SYNC: woken by writer_thread */
	struct bag_chunk *n = w->free_list;
	if (n)
		w->free_list = n->next;
	c->next = NULL;
	if (w->queue_tail)
		w->queue_tail->next = c;
	else
		w->queue_head = c;
	w->queue_tail = c;
	w->queued++;
	w->queued_bytes += c->records.len;
	bool failed = w->failed;
	pthread_cond_signal(&w->work); /* SYNC: partner of the wait in writer_thread */
	pthread_mutex_unlock(&w->mu);
	w->cur = n ? n : calloc(1, sizeof *n);
	return w->cur && !failed ? 0 : -1;
}

int bag_writer_open(const char *path, const struct bag_writer_opts *o, struct bag_writer **out,
		    struct bag_err *e)
{
	const char *comp = o && o->compression ? o->compression : "zstd";
	if (!bag_compression_known(comp)) {
		bag_err_set(e, path, -1, "unknown compression '%s' (zstd, lz4 or none)", comp);
		return -1;
	}
	struct bag_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->cur = calloc(1, sizeof *w->cur)) || !(w->path = strdup(path))) {
		if (w)
			free(w->cur);
		free(w);
		bag_err_set(e, path, -1, "out of memory");
		return -1;
	}
	snprintf(w->compression, sizeof w->compression, "%s", comp);
	w->direct = !comp[0];
	w->crc = !(o && o->no_crc);
	w->level = o ? o->level : 0;
	w->chunk_size = o && o->chunk_size ? o->chunk_size : 4u << 20;
	w->max_queued = o && o->queue_chunks > 0 ? o->queue_chunks : 4;
	/* Locked before it is emptied and for as long as it is written: `zcast bag reindex` takes
	 * the same lock and refuses a file it cannot have, instead of replacing it under the
	 * writer (lock.c). */
	w->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	int why = w->fd < 0 ? errno : bag_lock_fd(w->fd) ? errno : 0;
	if (!why && ftruncate(w->fd, 0) != 0)
		why = errno;
	if (why) {
		const char *what = why == EWOULDBLOCK ? "is being written or reindexed (locked)"
						      : strerror(why);
		bag_err_set(e, path, -1, "cannot create: %s", what);
		if (w->fd >= 0)
			close(w->fd);
		free(w->cur);
		free(w->path);
		free(w);
		return -1;
	}
	struct bag_buf h = {0};
	bag_put(&h, BAG_MAGIC, BAG_MAGIC_LEN);
	size_t s = bag_record_begin(&h, BAG_OP_HEADER);
	bag_put_str(&h, o && o->profile ? o->profile : "");
	bag_put_str(&h, o && o->library ? o->library : "zcast");
	bag_record_end(&h, s);
	bool ok = write_buf(w, &h);
	bag_buf_free(&h);
	w->settled = w->offset;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->room, NULL);
	bool thread = o && o->threaded && !w->direct;
	if (ok && thread)
		w->threaded = pthread_create(&w->thread, NULL, writer_thread, w) == 0;
	if (!ok || (thread && !w->threaded)) {
		bag_err_set(e, path, -1, "cannot write: %s", strerror(w->err ? w->err : EAGAIN));
		bag_writer_close(w, NULL);
		unlink(path);
		return -1;
	}
	*out = w;
	return 0;
}

int bag_writer_schema(struct bag_writer *w, const char *name, const char *encoding,
		      const void *data, size_t n)
{
	if (w->nschemas == UINT16_MAX)
		return -1;
	uint16_t id = (uint16_t)(w->nschemas + 1);
	struct bag_buf r = {0};
	size_t s = bag_record_begin(&r, BAG_OP_SCHEMA);
	bag_put_u16(&r, id);
	bag_put_str(&r, name);
	bag_put_str(&r, encoding);
	bag_put_bytes(&r, data, n);
	bag_record_end(&r, s);
	bag_chunk_record(w->cur, &r);
	bag_put(&w->schemas, r.p, r.len);
	bool ok = !r.failed && !w->schemas.failed;
	bag_buf_free(&r);
	if (!ok)
		return -1;
	w->nschemas = id;
	return id;
}

int bag_writer_channel(struct bag_writer *w, int schema, const char *topic, const char *encoding,
		       const char *const *kv, int npairs)
{
	if (w->nchannels >= BAG_MAX_CHANNELS)
		return -1;
	uint64_t *counts = realloc(w->counts, (w->nchannels + 1) * sizeof *counts);
	if (!counts)
		return -1;
	w->counts = counts;
	counts[w->nchannels] = 0;
	uint16_t id = (uint16_t)w->nchannels;
	struct bag_buf r = {0};
	size_t s = bag_record_begin(&r, BAG_OP_CHANNEL);
	bag_put_u16(&r, id);
	bag_put_u16(&r, (uint16_t)schema);
	bag_put_str(&r, topic);
	bag_put_str(&r, encoding);
	bag_put_map(&r, kv, npairs);
	bag_record_end(&r, s);
	bag_chunk_record(w->cur, &r);
	bag_put(&w->channels, r.p, r.len);
	bool ok = !r.failed && !w->channels.failed;
	bag_buf_free(&r);
	if (!ok)
		return -1;
	w->nchannels++;
	return id;
}

int bag_writer_message(struct bag_writer *w, int channel, uint32_t sequence, uint64_t log_time,
		       uint64_t publish_time, const void *data, size_t n)
{
	if (channel < 0 || (uint32_t)channel >= w->nchannels)
		return -1;
	if (w->direct ? bag_direct_message(w, (uint16_t)channel, sequence, log_time, publish_time,
					   data, n) != 0
		      : !bag_chunk_message(w->cur, (uint16_t)channel, sequence, log_time,
					   publish_time, data, n))
		return -1;
	if (!w->messages || log_time < w->start)
		w->start = log_time;
	if (!w->messages || log_time > w->end)
		w->end = log_time;
	w->messages++;
	w->counts[channel]++;
	return bag_chunk_length(w->cur) >= w->chunk_size ? seal(w) : 0;
}

int bag_writer_flush(struct bag_writer *w)
{
	return seal(w);
}

int bag_writer_wait(struct bag_writer *w)
{
	if (!w->threaded)
		return w->failed ? -1 : 0;
	pthread_mutex_lock(&w->mu);
	/* SYNC: woken by writer_thread, chunk by chunk */
	while (w->queued > 0 && !w->failed)
		pthread_cond_wait(&w->room, &w->mu);
	bool failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	return failed ? -1 : 0;
}

int bag_writer_metadata(struct bag_writer *w, const char *name, const char *const *kv, int npairs)
{
	struct bag_buf r = {0};
	size_t s = bag_record_begin(&r, BAG_OP_METADATA);
	bag_put_str(&r, name);
	bag_put_map(&r, kv, npairs);
	bag_record_end(&r, s);
	if (r.failed)
		return -1;
	for (int i = 0; i < w->nmetadata; i++) {
		struct bag_cur c = {w->metadata[i].p + 9, w->metadata[i].len - 9, 0, false};
		struct bag_cur old = bag_get_prefixed(&c);
		if (old.len == strlen(name) && !memcmp(old.p, name, old.len)) {
			bag_buf_free(&w->metadata[i]);
			w->metadata[i] = r;
			return 0;
		}
	}
	struct bag_buf *v = realloc(w->metadata, (size_t)(w->nmetadata + 1) * sizeof *v);
	if (!v) {
		bag_buf_free(&r);
		return -1;
	}
	w->metadata = v;
	v[w->nmetadata++] = r;
	return 0;
}

uint64_t bag_writer_size(struct bag_writer *w, bool *measured, bool *queued)
{
	uint64_t open = w->cur->records.len;
	if (w->direct) { /* streamed as it fills: the file is what it will be */
		*measured = true;
		*queued = false;
		return __atomic_load_n(&w->offset, __ATOMIC_RELAXED) + open;
	}
	/* Written, queued and the compression so far are read together (mu): a chunk is counted
	 * either queued or written, never both or neither. */
	pthread_mutex_lock(&w->mu);
	uint64_t settled = w->settled, pending = w->queued_bytes + open;
	uint64_t in = w->chunks_in, out = w->chunks_out;
	pthread_mutex_unlock(&w->mu);
	*measured = in > 0;
	*queued = pending > open;
	/* Before any chunk is written, records count 1:1 (never more than that is written). */
	return settled + (in ? (uint64_t)((double)pending * (double)out / (double)in) : pending);
}

int bag_writer_rename(struct bag_writer *w, const char *path, struct bag_err *e)
{
	char *p = strdup(path);
	if (!p || rename(w->path, path) != 0) {
		bag_err_set(e, w->path, -1, "cannot rename to %s: %s", path,
			    p ? strerror(errno) : "out of memory");
		free(p);
		return -1;
	}
	free(w->path); /* the writer thread never reads it: only the appender and close do */
	w->path = p;
	return 0;
}

uint64_t bag_writer_messages(const struct bag_writer *w)
{
	return w->messages;
}

/* Attachment and Metadata records, Data End, summary, footer. */
static bool write_tail(struct bag_writer *w)
{
	struct bag_buf mix = {0}, tail = {0}, aix = {0};
	bool ok = bag_attachments_write(w, &aix, write_buf);
	for (int i = 0; i < w->nmetadata && ok; i++) {
		struct bag_cur c = {w->metadata[i].p + 9, w->metadata[i].len - 9, 0, false};
		struct bag_cur name = bag_get_prefixed(&c);
		size_t s = bag_record_begin(&mix, BAG_OP_METADATA_INDEX);
		bag_put_u64(&mix, w->offset);
		bag_put_u64(&mix, w->metadata[i].len);
		bag_put_bytes(&mix, name.p, name.len);
		bag_record_end(&mix, s);
		ok = write_buf(w, &w->metadata[i]);
	}
	bag_put_u8(&tail, BAG_OP_DATA_END);
	bag_put_u64(&tail, 4);
	bag_put_u32(&tail, 0);
	if (ok && !tail.failed) {
		uint32_t crc = w->crc ? w->data_crc : 0; /* magic through the last record before it */
		for (int i = 0; i < 4; i++)
			tail.p[9 + i] = (uint8_t)(crc >> (8 * i));
		ok = write_buf(w, &tail);
	}
	struct bag_summary_in in = {&w->schemas,  &w->channels, &w->chunk_indexes,	  &mix,
				    w->messages,  w->start,	w->end,		  w->nschemas,
				    w->nchannels, w->nchunks,	(uint32_t)w->nmetadata, w->counts,
				    &aix,	  (uint32_t)w->nattachments};
	if (ok && aix.failed) /* no summary rather than one missing attachment indexes */
		ok = false, w->err = ENOMEM;
	if (ok) {
		bag_summary_encode(&in, w->offset, &tail);
		ok = write_buf(w, &tail);
	}
	bag_buf_free(&mix);
	bag_buf_free(&tail);
	bag_buf_free(&aix);
	return ok;
}

static void free_chunks(struct bag_chunk *c)
{
	while (c) {
		struct bag_chunk *n = c->next;
		bag_chunk_free(c);
		c = n;
	}
}

int bag_writer_close(struct bag_writer *w, struct bag_err *e)
{
	bool ok = seal(w) == 0;
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_signal(&w->work); /* SYNC: partner of the wait in writer_thread */
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	ok = ok && !w->failed && w->fd >= 0 && write_tail(w);
	if (w->fd >= 0 && close(w->fd) != 0 && ok) {
		w->err = errno;
		ok = false;
	}
	if (!ok)
		bag_err_set(e, w->path, -1, "cannot write: %s", strerror(w->err ? w->err : EIO));
	bag_chunk_free(w->cur);
	free_chunks(w->free_list);
	free_chunks(w->queue_head);
	bag_buf_free(&w->schemas);
	bag_buf_free(&w->channels);
	bag_buf_free(&w->head);
	bag_buf_free(&w->compressed);
	bag_buf_free(&w->indexes);
	bag_buf_free(&w->chunk_indexes);
	for (int i = 0; i < w->nmetadata; i++)
		bag_buf_free(&w->metadata[i]);
	free(w->metadata);
	bag_attachments_free(w);
	free(w->counts);
	free(w->path);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->room);
	free(w);
	return ok ? 0 : -1;
}
