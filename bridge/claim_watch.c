/* The claim watcher: one thread grants every claim of the bridge (claim.c) the moment its lock is
 * free, without a thread blocked in each lock.
 *
 * The kernel drops an OFD lock when the holder's last reference to the file goes (a close, an
 * exit, kill -9), and inotify reports that close on the file (IN_CLOSE_WRITE / IN_CLOSE_NOWRITE),
 * whichever process or PID namespace the holder lived in. The close is reported just before the
 * lock is dropped, so a claim whose file was closed is tried at once and then every millisecond
 * for 50 ms; every claim not granted is also tried every 100 ms (a safety net: a watch that could
 * not be added, an event queue that overflowed). Once granted, the topic's IN routes open here and
 * the out loop is woken (the claim's wake guard). Every 100 ms the watcher also drains the IN
 * routes without waiting (zb_route_in_sweep: a sample no listener call delivered). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define HOT_NS (50 * 1000 * 1000)   /* retried every ms for this long after a close */
#define SWEEP_NS (100 * 1000 * 1000) /* every claim and IN route, this often */

struct zb_watch {
	int ifd, efd; /* inotify; eventfd: stop */
	pthread_t thread;
	int started;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The distinct claims: a route's own (routes of one topic share the first one's). */
static int own_claim(const struct zcast_bridge *b, size_t i)
{
	return b->routes[i].claim == &b->claims[i] && b->claims[i].state;
}

/* A granted claim: its watch goes, its IN routes open (the out loop was woken by the grant). */
static void granted(struct zcast_bridge *b, struct zb_watch *w, struct zb_claim *c)
{
	if (c->wd >= 0)
		inotify_rm_watch(w->ifd, c->wd);
	c->wd = -1;
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_route_rt *rt = &b->routes[i];
		if (rt->claim == c && rt->cfg->dir == ZCAST_BRIDGE_IN && !rt->in_open &&
		    !rt->started) {
			rt->in_open = 1;
			if (zb_route_in_open(rt) < 0)
				atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		}
	}
}

/* Tries the claims that are hot, or all (sweep). Returns 1 if one is still hot. */
static int try_claims(struct zcast_bridge *b, struct zb_watch *w, int sweep, int64_t now)
{
	int hot = 0;
	for (size_t i = 0; i < b->n_routes && !atomic_load(&b->stop); i++) {
		struct zb_claim *c = &b->claims[i];
		if (!own_claim(b, i) || atomic_load(&c->granted))
			continue;
		if (!sweep && c->hot_until_ns < now)
			continue;
		if (zb_claim_try(c))
			granted(b, w, c);
		else
			hot |= c->hot_until_ns >= now;
	}
	return hot;
}

/* Marks the claims whose file was closed (by any process) hot. */
static void read_events(struct zcast_bridge *b, struct zb_watch *w, int64_t now)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(w->ifd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			for (size_t i = 0; i < b->n_routes; i++)
				if (own_claim(b, i) && b->claims[i].wd == ev->wd)
					b->claims[i].hot_until_ns = now + HOT_NS;
			if (ev->mask & IN_Q_OVERFLOW) /* events lost: every claim is hot */
				for (size_t i = 0; i < b->n_routes; i++)
					b->claims[i].hot_until_ns = now + HOT_NS;
			p += sizeof *ev + ev->len;
		}
	}
}

static void *watch_thread(void *arg)
{
	struct zcast_bridge *b = arg;
	struct zb_watch *w = b->watch;
	int64_t next_sweep = now_ns() + SWEEP_NS;
	int hot = 0;
	while (!atomic_load(&b->stop)) {
		struct pollfd p[2] = {{.fd = w->ifd, .events = POLLIN}, {.fd = w->efd, .events = POLLIN}};
		int64_t now = now_ns();
		int ms = hot ? 1 : (int)((next_sweep - now) / 1000000) + 1;
		poll(p, 2, ms < 1 ? 1 : ms);
		if (p[1].revents)
			break;
		now = now_ns();
		if (p[0].revents)
			read_events(b, w, now);
		int sweep = now >= next_sweep;
		hot = try_claims(b, w, sweep, now);
		if (sweep) {
			for (size_t i = 0; i < b->n_routes; i++)
				if (b->routes[i].cfg->dir == ZCAST_BRIDGE_IN && b->routes[i].in_open)
					zb_route_in_sweep(&b->routes[i]);
			next_sweep = now + SWEEP_NS;
		}
	}
	return NULL;
}

int zb_watch_start(struct zcast_bridge *b)
{
	struct zb_watch *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	b->watch = w;
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		fprintf(stderr, "zcast-bridge: eventfd: %s\n", strerror(errno));
		return -1;
	}
	if (w->ifd < 0) /* the 100 ms sweep still grants: a standby takes over within it */
		fprintf(stderr, "zcast-bridge: inotify: %s (a takeover may take 100 ms)\n",
			strerror(errno));
	/* the watch first, then the try: a close between them is still heard */
	for (size_t i = 0; i < b->n_routes; i++) {
		struct zb_claim *c = &b->claims[i];
		if (!own_claim(b, i))
			continue;
		if (w->ifd >= 0)
			c->wd = inotify_add_watch(w->ifd, c->path, IN_CLOSE_WRITE | IN_CLOSE_NOWRITE);
		if (zb_claim_try(c))
			granted(b, w, c);
	}
	int e = pthread_create(&w->thread, NULL, watch_thread, b);
	w->started = e == 0;
	if (e)
		fprintf(stderr, "zcast-bridge: claim watcher: %s\n", strerror(e));
	return e ? -1 : 0;
}

void zb_watch_stop(struct zcast_bridge *b)
{
	struct zb_watch *w = b->watch;
	if (!w)
		return;
	if (w->started) {
		uint64_t one = 1;
		if (write(w->efd, &one, sizeof one) < 0)
			fprintf(stderr, "zcast-bridge: stopping the claim watcher: %s\n",
				strerror(errno));
		pthread_join(w->thread, NULL);
	}
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->efd >= 0)
		close(w->efd);
	free(w);
	b->watch = NULL;
}
