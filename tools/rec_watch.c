/* New topics of a domain without polling: inotify on /dev/shm, where every topic is a file named
 * zcast.<domain>.<name> (src/admin's zcast_topic_list lists the same names). A thread of ours
 * blocks on the inotify descriptor and triggers the recorder's guard when such a file is created
 * or renamed into place, or when the kernel's event queue overflowed (events were lost: a rescan
 * is due). The recorder's wait set wakes on the guard and rescans. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "rec.h"

struct rec_watch {
	int ifd, stopfd;
	zcast_guard *guard;
	char prefix[80];
	size_t prefix_len;
	pthread_t thread;
};

/* A topic file of the domain (names starting with '@' after the prefix are not topics). */
static bool topic_file(const struct rec_watch *w, const struct inotify_event *ev)
{
	return ev->len && !strncmp(ev->name, w->prefix, w->prefix_len) &&
	       ev->name[w->prefix_len] != '@' && ev->name[w->prefix_len] != '\0';
}

/* Reads what is pending; true when it names a new topic file or says events were lost. */
static bool drain_events(struct rec_watch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool hit = false;
	ssize_t n;
	while ((n = read(w->ifd, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			hit |= (ev->mask & IN_Q_OVERFLOW) || topic_file(w, ev);
			p += sizeof *ev + ev->len;
		}
	return hit;
}

static void *watch_thread(void *arg)
{
	struct rec_watch *w = arg;
	struct pollfd fds[2] = {{w->ifd, POLLIN, 0}, {w->stopfd, POLLIN, 0}};
	/* Ends when rec_watch_stop writes stopfd: the only wait here, and what ends it. */
	while (!(fds[1].revents & POLLIN)) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if ((fds[0].revents & POLLIN) && drain_events(w))
			zcast_guard_trigger(w->guard);
	}
	return NULL;
}

int rec_watch_start(const char *domain, zcast_guard *guard, struct rec_watch **out)
{
	struct rec_watch *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	w->guard = guard;
	w->prefix_len = (size_t)snprintf(w->prefix, sizeof w->prefix, "zcast.%s.", domain);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->stopfd = eventfd(0, EFD_CLOEXEC);
	if (w->ifd < 0 || w->stopfd < 0 ||
	    inotify_add_watch(w->ifd, "/dev/shm", IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0 ||
	    pthread_create(&w->thread, NULL, watch_thread, w) != 0) {
		if (w->ifd >= 0)
			close(w->ifd);
		if (w->stopfd >= 0)
			close(w->stopfd);
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

void rec_watch_stop(struct rec_watch *w)
{
	if (!w)
		return;
	uint64_t one = 1;
	while (write(w->stopfd, &one, sizeof one) < 0 && errno == EINTR)
		;
	pthread_join(w->thread, NULL);
	close(w->ifd);
	close(w->stopfd);
	free(w);
}
