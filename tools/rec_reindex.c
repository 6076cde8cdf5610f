/* zcast bag reindex DIR: a recording whose recorder died, repaired as a whole. Every piece without
 * a summary is reindexed (bag_reindex: the messages of its complete chunks kept), and
 * DIR/metadata.yaml, which a killed recorder leaves as it last wrote it (at the piece's opening:
 * often 0 messages), is rewritten from what the pieces hold: files, times, topics and counts.
 * A piece a live recorder still writes (locked) refuses the whole directory before anything is
 * changed. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec.h"

struct topics {
	struct rec_topic_count *t;
	int n, cap;
};

/* The channels of one piece added to the recording's topics (by name, in order of appearance). */
static bool add_topics(struct topics *ts, const struct bag_reader *r)
{
	for (int i = 0; i < r->nchannels; i++) {
		const struct bag_channel *ch = &r->channels[i];
		struct rec_topic_count *t = NULL;
		for (int k = 0; k < ts->n && !t; k++)
			if (!strcmp(ts->t[k].topic, ch->topic))
				t = &ts->t[k];
		if (!t) {
			struct rec_topic_count z;
			struct rec_topic_desc d;
			memset(&z, 0, sizeof z);
			rec_channel_read(r, ch, &d);
			snprintf(z.topic, sizeof z.topic, "%s", ch->topic);
			snprintf(z.type, sizeof z.type, "%s", d.type_name);
			snprintf(z.encoding, sizeof z.encoding, "%s", ch->encoding);
			if (!cli_append((void **)&ts->t, &ts->n, &ts->cap, &z, sizeof z))
				return false;
			t = &ts->t[ts->n - 1];
		}
		t->messages += ch->count;
	}
	return true;
}

/* One piece: reindexed when it has no summary, then counted. 0, or -1 (printed). */
static int piece(struct rec_piece *p, const char *comp, struct topics *ts, int *fixed)
{
	struct bag_err e;
	int lock = bag_lock(p->path, &e);
	struct bag_reader r;
	int x = lock < 0 ? -1 : bag_open(p->path, &r);
	if (x == 0 && (r.truncated || !r.summary_start)) {
		bag_close(&r);
		x = bag_reindex_locked(p->path, lock, comp, &e);
		if (x == 0) {
			printf("%s: reindexed\n", p->path);
			(*fixed)++;
			x = bag_open(p->path, &r);
		}
	}
	if (lock >= 0 && x != 0 && r.err.text[0])
		e = r.err;
	if (x == 0) {
		p->messages = r.messages;
		p->start = r.start_time;
		p->end = r.end_time;
		if (!add_topics(ts, &r)) {
			x = -1;
			bag_err_set(&e, p->path, -1, "out of memory");
		}
	}
	if (lock >= 0) {
		bag_close(&r);
		close(lock);
	}
	if (x != 0)
		fprintf(stderr, "zcast bag: %s\n", e.text);
	return x;
}

int rec_reindex_dir(const char *dir, const char *comp)
{
	struct rec_piece *p;
	int np = rec_pieces("bag", dir, &p);
	if (np < 0)
		return -1;
	/* Every piece free first: a recording still being written is left alone as a whole. */
	for (int i = 0; i < np; i++) {
		struct bag_err e;
		int lock = bag_lock(p[i].path, &e);
		if (lock < 0) {
			fprintf(stderr, "zcast bag: %s\n", e.text);
			free(p);
			return -1;
		}
		close(lock);
	}
	struct topics ts;
	memset(&ts, 0, sizeof ts);
	int x = 0, fixed = 0;
	for (int i = 0; i < np && x == 0; i++)
		x = piece(&p[i], comp, &ts, &fixed);
	if (x == 0 && rec_index_write(dir, p, np, ts.t, ts.n) != 0) {
		fprintf(stderr, "zcast bag: cannot write %s/metadata.yaml\n", dir);
		x = -1;
	}
	if (x == 0)
		printf("%s: %d of %d pieces reindexed, metadata.yaml rewritten\n", dir, fixed, np);
	free(ts.t);
	free(p);
	return x;
}
