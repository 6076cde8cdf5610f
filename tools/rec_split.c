/* Split files without a pause in the take loop: the next piece is opened ahead and the last one
 * closed behind, both on a helper thread. Closing a piece seals its last chunk, waits for its
 * writer thread to compress and write what is queued (up to five chunks of zstd: tens of ms),
 * writes the summary and closes the file; opening one creates the file, writes its header and
 * starts its writer thread. Done by the take loop, that pause made a DROP_OLD recorder lose the
 * messages of a fast topic at every split. Now the take loop only swaps writers.
 * The piece opened ahead is created as PATH.next (readers of a recording list *.mcap only, so a
 * recorder killed meanwhile leaves no empty piece) and renamed to PATH when it is taken. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec.h"

struct closing {
	struct bag_writer *w;
	struct closing *next;
};

struct rec_split {
	/* SYNC: everything below is guarded by mu; the take loop signals `work` after handing
	 * something over, the helper signals `done` after an open (partner of the wait in
	 * rec_split_take and of the one in rec_split_stop). */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t thread;
	bool stop;
	/* the piece to open ahead: want -> opening -> ready (w or err) */
	bool want, opening, ready;
	char path[4200], tmp[4300];
	struct bag_writer_opts o;
	struct bag_writer *w;
	struct bag_err err;
	struct closing *close_head, **close_tail; /* handed over, not closed yet */
	bool close_failed, reported;
	struct bag_err close_err;
};

static void open_ahead(struct rec_split *s)
{
	struct bag_writer_opts o = s->o;
	char tmp[sizeof s->tmp];
	memcpy(tmp, s->tmp, sizeof tmp);
	s->want = false;
	s->opening = true;
	pthread_mutex_unlock(&s->mu);
	struct bag_writer *w = NULL;
	struct bag_err e;
	memset(&e, 0, sizeof e);
	if (bag_writer_open(tmp, &o, &w, &e) != 0)
		w = NULL;
	pthread_mutex_lock(&s->mu);
	s->w = w;
	s->err = e;
	s->opening = false;
	s->ready = true;
	pthread_cond_broadcast(&s->done); /* SYNC: partner of the wait in rec_split_take */
}

static void close_behind(struct rec_split *s)
{
	struct closing *c = s->close_head;
	s->close_head = c->next;
	if (!s->close_head)
		s->close_tail = &s->close_head;
	pthread_mutex_unlock(&s->mu);
	struct bag_err e;
	memset(&e, 0, sizeof e);
	int r = bag_writer_close(c->w, &e);
	free(c);
	pthread_mutex_lock(&s->mu);
	if (r != 0 && !s->close_failed) {
		s->close_failed = true;
		s->close_err = e;
	}
}

static void *split_thread(void *arg)
{
	struct rec_split *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		/* An open first: the take loop may be waiting for it; a close waits for nobody. */
		if (s->want)
			open_ahead(s);
		else if (s->close_head)
			close_behind(s);
		else if (s->stop)
			break;
		else
			pthread_cond_wait(&s->work, &s->mu); /* SYNC: woken by every hand-over */
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int rec_split_start(struct rec_split **out)
{
	struct rec_split *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->done, NULL);
	s->close_tail = &s->close_head;
	if (pthread_create(&s->thread, NULL, split_thread, s) != 0) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->work);
		pthread_cond_destroy(&s->done);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void rec_split_prepare(struct rec_split *s, const char *path, const struct bag_writer_opts *o)
{
	pthread_mutex_lock(&s->mu);
	snprintf(s->path, sizeof s->path, "%s", path);
	snprintf(s->tmp, sizeof s->tmp, "%s.next", path);
	s->o = *o;
	s->want = true;
	s->ready = false;
	pthread_cond_signal(&s->work); /* SYNC: partner of the wait in split_thread */
	pthread_mutex_unlock(&s->mu);
}

int rec_split_take(struct rec_split *s, struct bag_writer **w, struct bag_err *e)
{
	pthread_mutex_lock(&s->mu);
	while (!s->ready) /* ended by open_ahead, which a prepare always queues first */
		pthread_cond_wait(&s->done, &s->mu); /* SYNC: woken by open_ahead */
	*w = s->w;
	*e = s->err;
	s->w = NULL;
	s->ready = false;
	char path[sizeof s->path];
	memcpy(path, s->path, sizeof path);
	pthread_mutex_unlock(&s->mu);
	if (!*w)
		return -1;
	if (bag_writer_rename(*w, path, e) == 0)
		return 0;
	rec_split_close(s, *w); /* not used: closed and removed behind */
	*w = NULL;
	return -1;
}

void rec_split_close(struct rec_split *s, struct bag_writer *w)
{
	struct closing *c = malloc(sizeof *c);
	if (!c) { /* no memory for the hand-over: closed here, as before the helper */
		struct bag_err e;
		if (bag_writer_close(w, &e) != 0) {
			pthread_mutex_lock(&s->mu);
			s->close_failed = true;
			s->close_err = e;
			pthread_mutex_unlock(&s->mu);
		}
		return;
	}
	c->w = w;
	c->next = NULL;
	pthread_mutex_lock(&s->mu);
	*s->close_tail = c;
	s->close_tail = &c->next;
	pthread_cond_signal(&s->work); /* SYNC: partner of the wait in split_thread */
	pthread_mutex_unlock(&s->mu);
}

bool rec_split_failed(struct rec_split *s)
{
	pthread_mutex_lock(&s->mu);
	bool failed = s->close_failed, report = failed && !s->reported;
	s->reported |= failed;
	struct bag_err e = s->close_err;
	pthread_mutex_unlock(&s->mu);
	if (report)
		fprintf(stderr, "zcast record: %s\n", e.text);
	return failed;
}

int rec_split_stop(struct rec_split *s)
{
	if (!s)
		return 0;
	pthread_mutex_lock(&s->mu);
	while (s->want || s->opening) /* a piece being opened ahead: let it finish, then drop it */
		pthread_cond_wait(&s->done, &s->mu); /* SYNC: woken by open_ahead */
	struct bag_writer *unused = s->ready ? s->w : NULL;
	char tmp[sizeof s->tmp];
	memcpy(tmp, s->tmp, sizeof tmp);
	s->w = NULL;
	s->ready = false;
	pthread_mutex_unlock(&s->mu);
	if (unused) {
		bag_writer_close(unused, NULL);
		unlink(tmp);
	}
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->work); /* SYNC: partner of the wait in split_thread */
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL); /* it ends once every piece handed over is closed */
	int r = rec_split_failed(s) ? -1 : 0;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->done);
	free(s);
	return r;
}
