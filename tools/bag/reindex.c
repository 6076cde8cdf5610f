/* Reindex: a file whose writer died (no summary, maybe a cut-off last record) is rewritten from its
 * complete records with message indexes, summary and footer; schemas, channels, attachments,
 * metadata and every message of every complete chunk are kept, in order. Written beside the file,
 * then renamed over it, so a failure leaves the original as it was. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bag.h"

static int copy_definitions(struct bag_reader *r, struct bag_writer *w, int *schema_id,
			    int *channel_id)
{
	for (int i = 0; i < r->nschemas; i++) {
		const struct bag_schema *s = &r->schemas[i];
		schema_id[s->id] = bag_writer_schema(w, s->name, s->encoding, s->data, s->len);
		if (schema_id[s->id] < 0)
			return -1;
	}
	for (int i = 0; i < r->nchannels; i++) {
		const struct bag_channel *c = &r->channels[i];
		int sid = c->schema_id ? schema_id[c->schema_id] : 0;
		channel_id[c->id] = bag_writer_channel(w, sid, c->topic, c->encoding,
						       (const char *const *)c->meta, c->nmeta);
		if (channel_id[c->id] < 0)
			return -1;
	}
	for (int i = 0; i < r->nattachments; i++) {
		const struct bag_attachment *a = &r->attachments[i];
		if (bag_writer_attachment(w, a->log_time, a->create_time, a->name, a->media_type,
					  a->data, (size_t)a->len) < 0)
			return -1;
	}
	for (int i = 0; i < r->nmetadata; i++)
		if (bag_writer_metadata(w, r->metadata[i].name, (const char *const *)r->metadata[i].meta,
					r->metadata[i].nmeta) < 0)
			return -1;
	return 0;
}

static int copy_messages(struct bag_reader *r, struct bag_writer *w, const int *channel_id)
{
	struct bag_message m;
	int k;
	while ((k = bag_next(r, &m)) > 0)
		if (bag_writer_message(w, channel_id[m.channel], m.sequence, m.log_time,
				       m.publish_time, m.data, m.len) < 0)
			return -1;
	return k;
}

int bag_reindex(const char *path, const char *compression, struct bag_err *e)
{
	/* Held until the copy has replaced the file: no writer starts on it meanwhile. */
	int lock = bag_lock(path, e);
	if (lock < 0)
		return -1;
	int x = bag_reindex_locked(path, lock, compression, e);
	close(lock);
	return x;
}

int bag_reindex_locked(const char *path, int lock, const char *compression, struct bag_err *e)
{
	struct bag_reader r;
	if (bag_open(path, &r) < 0 || !bag_lock_still(lock, path)) {
		if (r.err.text[0])
			*e = r.err;
		else
			bag_err_set(e, path, -1, "replaced while it was being reindexed");
		bag_close(&r);
		return -1;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.reindex-%d", path, (int)getpid());
	struct bag_writer_opts o = {
	    .compression = compression ? compression : r.chunks ? r.compression : "zstd",
	    .profile = r.profile,
	    .library = r.library,
	};
	struct bag_writer *w;
	int *ids = calloc(2 * 65536, sizeof *ids);
	int x = -1;
	if (ids && bag_writer_open(tmp, &o, &w, e) == 0) {
		x = copy_definitions(&r, w, ids, ids + 65536);
		if (x == 0 && copy_messages(&r, w, ids + 65536) < 0) {
			x = -1;
			if (r.err.text[0])
				*e = r.err;
		}
		if (bag_writer_close(w, x == 0 ? e : NULL) < 0 && x == 0)
			x = -1;
		else if (x < 0 && !e->text[0])
			bag_err_set(e, path, -1, "cannot rewrite (out of memory)");
		if (x == 0 && rename(tmp, path) != 0) {
			bag_err_set(e, path, -1, "cannot replace the file with its reindexed copy");
			x = -1;
		}
		if (x < 0)
			unlink(tmp);
	} else if (!ids) {
		bag_err_set(e, path, -1, "out of memory");
	}
	free(ids);
	bag_close(&r);
	return x;
}
