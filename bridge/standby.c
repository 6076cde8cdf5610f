/* Standing by for topics another bridge holds, on one thread per bridge waited for, not one per
 * topic (docs/BRIDGE.md, "One bridge per topic").
 *
 * A topic's claim is the OFD write lock on byte 0 of its claim file (claim.c). Each bridge also has
 * a random instance id, and while it holds a claim it holds a second lock in the same file, its
 * *marker*, on byte ZB_MARK_BASE + id. It takes the marker before it tries byte 0 (and drops it if
 * byte 0 is taken), so whoever holds byte 0 always shows its marker; both locks belong to the same
 * open file, so the kernel drops them together when the holder closes the file or dies, kill -9
 * included. A bridge that finds a topic taken therefore learns who holds it (F_OFD_GETLK on the
 * marker range) and waits on that holder: one watcher thread per other bridge, blocked in the lock
 * of that bridge's marker on one of the wanted topics (F_OFD_SETLKW). When the lock is handed to
 * it, that bridge has let the topic go, and the watcher tries every wanted topic again, then waits
 * on the next topic the same bridge still holds, and ends when it holds none (after one more try
 * of all, so a topic let go between the two looks is not missed). A dying bridge's files are
 * closed one by one, so each topic is waited on in its own file, never on a lock in another file
 * that might be dropped first.
 *
 * Nothing here reads the process id: it works across PID namespaces (containers sharing /dev/shm).
 * A topic held by a bridge that shows no marker (an older bridge) is waited on as before, by a
 * thread of its own blocked in the claim lock (zb_claim_lock_thread). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define ZB_MARK_BASE ((off_t)1 << 40)	       /* markers lie above the claim file's bytes */
#define ZB_ID_MASK (((uint64_t)1 << 40) - 1) /* ... and below 2^41 */
#define ZB_WATCHERS 64			       /* other bridges waited for at once, at most */
#define ZB_MARKS 16			       /* markers looked at per topic */

struct zb_watcher {
	struct zb_standby *sb;
	uint64_t id; /* the bridge waited for */
	pthread_t thread;
	int started; /* to be joined */
	int running; /* serving id (until it sets this 0 as the last thing under mu) */
};

struct zb_standby {
	pthread_mutex_t mu; /* the lists below; taken before a claim's lock, never after */
	uint64_t id;
	int stop;
	struct zb_claim *wanted[ZB_MAX_ROUTES]; /* claims not granted yet */
	size_t n_wanted;
	struct zb_watcher w[ZB_WATCHERS];
};

static int lock_byte(int fd, int cmd, short type, off_t at)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
	return fcntl(fd, cmd, &fl);
}

/* Takes the claim if it is free: the marker first, so that byte 0 is never held without it. */
static int try_claim(struct zb_standby *sb, struct zb_claim *c)
{
	if (lock_byte(c->fd, F_OFD_SETLK, F_WRLCK, ZB_MARK_BASE + (off_t)sb->id) < 0)
		return 0;
	if (lock_byte(c->fd, F_OFD_SETLK, F_WRLCK, 0) == 0)
		return 1;
	lock_byte(c->fd, F_OFD_SETLK, F_UNLCK, ZB_MARK_BASE + (off_t)sb->id);
	return 0;
}

/* The ids of the markers others hold in [lo, hi) of the file, up to max (GETLK reports one lock;
 * the ranges on both sides of it are asked again). */
static size_t find_marks(int fd, off_t lo, off_t hi, uint64_t *ids, size_t n, size_t max)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = lo, .l_len = hi - lo};
	if (lo >= hi || n == max || fcntl(fd, F_OFD_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return n;
	off_t at = fl.l_start > lo ? fl.l_start : lo; /* a wider foreign lock: its first byte here */
	ids[n++] = (uint64_t)(at - ZB_MARK_BASE);
	n = find_marks(fd, lo, at, ids, n, max);
	return find_marks(fd, at + 1, hi, ids, n, max);
}

static int holds_mark(int fd, uint64_t id)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET,
			   .l_start = ZB_MARK_BASE + (off_t)id, .l_len = 1};
	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

static void *watch(void *arg);

/* A watcher for bridge `id` (one already running serves). 0, or -1: none could be started. */
static int ensure_watcher(struct zb_standby *sb, uint64_t id)
{
	if (sb->stop)
		return 0;
	struct zb_watcher *free_w = NULL;
	for (int i = 0; i < ZB_WATCHERS; i++) {
		if (sb->w[i].running && sb->w[i].id == id)
			return 0;
		if (!sb->w[i].running && !free_w)
			free_w = &sb->w[i];
	}
	if (!free_w)
		return -1;
	if (free_w->started) /* it has ended: running is the last thing it cleared */
		pthread_join(free_w->thread, NULL);
	free_w->started = 0;
	free_w->sb = sb;
	free_w->id = id;
	free_w->running = 1;
	if (pthread_create(&free_w->thread, NULL, watch, free_w) != 0) {
		free_w->running = 0;
		return -1;
	}
	free_w->started = 1;
	return 0;
}

/* 1 claim granted, 0 its holder is watched, -1 it cannot be (no marker seen: an older bridge
 * holds it, or no watcher could start). Under mu. */
static int settle(struct zb_standby *sb, struct zb_claim *c)
{
	for (int tries = 0; tries < 3; tries++) {
		if (try_claim(sb, c))
			return 1;
		uint64_t ids[ZB_MARKS];
		size_t n = find_marks(c->fd, ZB_MARK_BASE, ZB_MARK_BASE + (off_t)ZB_ID_MASK + 1,
				      ids, 0, ZB_MARKS);
		for (size_t k = 0; k < n; k++)
			if (ensure_watcher(sb, ids[k]) < 0)
				return -1;
		if (n)
			return 0;
		/* byte 0 taken and no marker: the holder let go in between, or shows none */
	}
	return -1;
}

static void own_thread(struct zb_claim *c)
{
	if (zb_claim_lock_thread(c) != 0)
		fprintf(stderr, "zcast-bridge: cannot wait for %s\n", c->path);
}

/* Settles a claim: granted (handed to its routes), watched (returns 1: still wanted), or left to a
 * thread of its own blocked in the claim lock. Under mu. */
static int place(struct zb_standby *sb, struct zb_claim *c)
{
	int r = settle(sb, c);
	if (r == 1)
		zb_claim_granted(c);
	else if (r < 0)
		own_thread(c);
	return r == 0;
}

/* Tries every wanted claim again. Under mu. */
static void rescan(struct zb_standby *sb)
{
	for (size_t i = 0; i < sb->n_wanted && !sb->stop;) {
		if (place(sb, sb->wanted[i]))
			i++;
		else
			sb->wanted[i] = sb->wanted[--sb->n_wanted];
	}
}

/* The claim leaves the wanted ones for a thread blocked in its own lock. Under mu. */
static void give_up(struct zb_standby *sb, struct zb_claim *c, int e)
{
	fprintf(stderr, "zcast-bridge: cannot wait in %s: %s\n", c->path, strerror(e));
	for (size_t i = 0; i < sb->n_wanted; i++)
		if (sb->wanted[i] == c) {
			sb->wanted[i] = sb->wanted[--sb->n_wanted];
			own_thread(c);
			return;
		}
}

/* A wanted claim that bridge `id` holds (its marker is there), or NULL. Under mu. */
static struct zb_claim *held_by(struct zb_standby *sb, uint64_t id)
{
	for (size_t i = 0; i < sb->n_wanted; i++)
		if (holds_mark(sb->wanted[i]->fd, id))
			return sb->wanted[i];
	return NULL;
}

/* SYNC: the watcher's `running = 0` (under mu) is what ensure_watcher reads (under mu) before it
 * joins the thread and reuses the slot. */
static void *watch(void *arg)
{
	struct zb_watcher *w = arg;
	struct zb_standby *sb = w->sb;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* cancelled only in the lock wait */
	pthread_mutex_lock(&sb->mu);
	while (!sb->stop) {
		struct zb_claim *c = held_by(sb, w->id);
		if (!c) { /* one more try of all: a topic let go since the last one is not missed */
			rescan(sb);
			if (!(c = held_by(sb, w->id)))
				break;
		}
		int fd = c->fd; /* open until the bridge stops, after this thread is joined */
		pthread_mutex_unlock(&sb->mu);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		/* handed over when the holder closes the claim file or dies */
		int r;
		while ((r = lock_byte(fd, F_OFD_SETLKW, F_WRLCK, ZB_MARK_BASE + (off_t)w->id)) < 0 &&
		       errno == EINTR)
			;
		int e = errno;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		lock_byte(fd, F_OFD_SETLK, F_UNLCK, ZB_MARK_BASE + (off_t)w->id); /* not ours to show */
		pthread_mutex_lock(&sb->mu);
		if (r < 0) /* the lock cannot be waited for (ENOLCK): not again, the claim's own is */
			give_up(sb, c, e);
		rescan(sb);
	}
	w->running = 0;
	pthread_mutex_unlock(&sb->mu);
	return NULL;
}

struct zb_standby *zb_standby_new(void)
{
	struct zb_standby *sb = calloc(1, sizeof *sb);
	if (!sb)
		return NULL;
	pthread_mutex_init(&sb->mu, NULL);
	if (getrandom(&sb->id, sizeof sb->id, 0) != sizeof sb->id) {
		struct timespec ts; /* no entropy source: time and pid */
		clock_gettime(CLOCK_REALTIME, &ts);
		sb->id = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 20 ^ (uint64_t)getpid() << 24;
	}
	sb->id &= ZB_ID_MASK;
	sb->id |= !sb->id;
	return sb;
}

void zb_standby_add(struct zb_standby *sb, struct zb_claim *c)
{
	pthread_mutex_lock(&sb->mu);
	if (place(sb, c)) /* the others wanted are watched already */
		sb->wanted[sb->n_wanted++] = c; /* at most one per route: fits */
	pthread_mutex_unlock(&sb->mu);
}

void zb_standby_free(struct zb_standby *sb)
{
	if (!sb)
		return;
	pthread_mutex_lock(&sb->mu);
	sb->stop = 1;
	for (int i = 0; i < ZB_WATCHERS; i++)
		if (sb->w[i].started)
			pthread_cancel(sb->w[i].thread); /* acted on in the lock wait only */
	pthread_mutex_unlock(&sb->mu);
	for (int i = 0; i < ZB_WATCHERS; i++)
		if (sb->w[i].started)
			pthread_join(sb->w[i].thread, NULL);
	pthread_mutex_destroy(&sb->mu);
	free(sb);
}
