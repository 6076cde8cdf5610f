/* Graph events: matched counts and prompt notice of dead peers (docs/WAITSETS.md, "Graph").
 *
 * Counts are read lock-free from the member records. A change is seen through the topic's `graph`
 * word, which every join, leave and dead-member cleanup bumps under the topic lock. A crashed peer
 * bumps nothing by itself, so a per-process watcher thread holds one pidfd per peer process of every
 * watched topic (pid from the member records) in an epoll set; when one becomes readable it runs
 * dead-member cleanup on that topic (zcast_topic_gc: liveness is still decided by the OFD locks, so a
 * wrong pid can only cause a harmless extra cleanup), which bumps `graph` and wakes the wait sets.
 * No polling: the watcher sleeps in epoll_wait until a peer dies or the peer list changes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wait_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int count_active(_Atomic uint32_t *state0, size_t stride, uint32_t n)
{
	int c = 0;
	for (uint32_t i = 0; i < n; i++) {
		_Atomic uint32_t *st = (_Atomic uint32_t *)((char *)state0 + i * stride);
		c += atomic_load_explicit(st, memory_order_acquire) == ZC_REC_ACTIVE;
	}
	return c;
}

int zc_graph_count(struct zc_topic *t, enum zc_kind kind)
{
	if (kind == ZC_KIND_PUB)
		return count_active(&t->pubs[0].state, sizeof t->pubs[0], t->max_pubs);
	return count_active(&t->subs[0].state, sizeof t->subs[0], t->max_subs);
}

int zcast_pub_matched(zcast_pub *pub)
{
	return pub ? zc_graph_count(&pub->t, ZC_KIND_SUB) : zc_err(ZCAST_EINVAL, "pub is NULL");
}

int zcast_sub_matched(zcast_sub *sub)
{
	return sub ? zc_graph_count(&sub->t, ZC_KIND_PUB) : zc_err(ZCAST_EINVAL, "sub is NULL");
}

/* ---- the peer watcher ---- */

struct peer {
	int32_t pid;
	int fd; /* pidfd, or -1 */
};

struct watch {
	uint64_t id; /* 0 = free */
	char domain[40];
	char name[ZC_NAME_MAX + 8];
	bool gc_pending;
	struct peer *peers;
	uint32_t n_peers, cap_peers;
};

static struct {
	pthread_mutex_t mu;
	bool started;
	pid_t owner; /* a forked child starts its own watcher */
	int ep, kick;
	uint64_t next_id;
	struct watch *w;
	uint32_t n_w;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER};

static struct watch *find_watch(uint64_t id)
{
	for (uint32_t i = 0; i < P.n_w; i++)
		if (P.w[i].id == id)
			return &P.w[i];
	return NULL;
}

static uint64_t ev_key(uint64_t watch, int32_t pid)
{
	return (watch << 32) | (uint32_t)pid;
}

static void drop_peer(struct watch *w, uint32_t k)
{
	if (w->peers[k].fd >= 0)
		close(w->peers[k].fd); /* also leaves the epoll set */
	w->peers[k] = w->peers[--w->n_peers];
}

static void *watcher_main(void *arg)
{
	(void)arg;
	struct epoll_event ev[16];
	for (;;) {
		int n = epoll_wait(P.ep, ev, 16, -1);
		if (n < 0 && errno != EINTR)
			return NULL;
		pthread_mutex_lock(&P.mu);
		for (int i = 0; i < n; i++) {
			uint64_t key = ev[i].data.u64;
			if (key == 0) {
				uint64_t v;
				if (read(P.kick, &v, sizeof v) < 0) {
				}
				continue;
			}
			struct watch *w = find_watch(key >> 32);
			if (!w)
				continue;
			for (uint32_t k = 0; k < w->n_peers; k++)
				if ((uint32_t)w->peers[k].pid == (uint32_t)key) {
					drop_peer(w, k); /* exited: its records are cleaned up below */
					w->gc_pending = true;
					break;
				}
		}
		/* Cleanup outside the lock (it takes the topic lock): copy the names first. */
		for (uint32_t i = 0; i < P.n_w; i++) {
			if (!P.w[i].id || !P.w[i].gc_pending)
				continue;
			P.w[i].gc_pending = false;
			char domain[40], name[ZC_NAME_MAX + 8];
			memcpy(domain, P.w[i].domain, sizeof domain);
			memcpy(name, P.w[i].name, sizeof name);
			pthread_mutex_unlock(&P.mu);
			zcast_topic_gc(domain, name); /* bumps `graph` if it reclaimed anyone */
			pthread_mutex_lock(&P.mu);
		}
		pthread_mutex_unlock(&P.mu);
	}
}

/* Under P.mu. */
static int start_watcher(void)
{
	if (P.started && P.owner == getpid())
		return 0;
	/* First use, or a forked child: the parent's thread does not exist here. */
	P.ep = epoll_create1(EPOLL_CLOEXEC);
	P.kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (P.ep < 0 || P.kick < 0)
		return zc_errno(ZCAST_ESYS, "epoll/eventfd for the peer watcher");
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0};
	if (epoll_ctl(P.ep, EPOLL_CTL_ADD, P.kick, &ev) != 0)
		return zc_errno(ZCAST_ESYS, "epoll_ctl");
	pthread_t th;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	int r = pthread_create(&th, &a, watcher_main, NULL);
	pthread_attr_destroy(&a);
	if (r != 0)
		return zc_err(ZCAST_ESYS, "peer watcher thread: %s", strerror(r));
	P.started = true;
	P.owner = getpid();
	P.w = NULL;
	P.n_w = 0;
	return 0;
}

int zc_peers_watch(struct zc_topic *t, uint64_t *watch_id)
{
	pthread_mutex_lock(&P.mu);
	int r = start_watcher();
	struct watch *w = NULL;
	if (r == 0) {
		w = find_watch(0);
		if (!w) {
			struct watch *nw = realloc(P.w, (P.n_w + 1) * sizeof *nw);
			if (!nw) {
				r = zc_err(ZCAST_ENOMEM, "out of memory");
			} else {
				P.w = nw;
				w = &P.w[P.n_w++];
			}
		}
	}
	if (w) {
		memset(w, 0, sizeof *w);
		w->id = ++P.next_id;
		snprintf(w->domain, sizeof w->domain, "%s", t->domain);
		snprintf(w->name, sizeof w->name, "%s", t->name);
		*watch_id = w->id;
	}
	pthread_mutex_unlock(&P.mu);
	return r;
}

void zc_peers_unwatch(uint64_t watch_id)
{
	pthread_mutex_lock(&P.mu);
	struct watch *w = watch_id ? find_watch(watch_id) : NULL;
	if (w) {
		while (w->n_peers)
			drop_peer(w, 0);
		free(w->peers);
		w->peers = NULL;
		w->id = 0;
	}
	pthread_mutex_unlock(&P.mu);
}

static bool has_pid(const int32_t *pids, uint32_t n, int32_t pid)
{
	for (uint32_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Called by the thread that owns the handle (it reads the handle's mapping): syncs the watch's
 * pidfds with the processes that hold records now. */
void zc_peers_rescan(struct zc_topic *t, uint64_t watch_id)
{
	uint32_t max = t->max_pubs + t->max_subs, n = 0;
	int32_t *pids = malloc(max * sizeof *pids);
	if (!pids)
		return;
	int32_t self = getpid();
	for (uint32_t i = 0; i < t->max_pubs; i++)
		if (atomic_load(&t->pubs[i].state) != ZC_REC_FREE && t->pubs[i].pid > 0 &&
		    t->pubs[i].pid != self && !has_pid(pids, n, t->pubs[i].pid))
			pids[n++] = t->pubs[i].pid;
	for (uint32_t i = 0; i < t->max_subs; i++)
		if (atomic_load(&t->subs[i].state) != ZC_REC_FREE && t->subs[i].pid > 0 &&
		    t->subs[i].pid != self && !has_pid(pids, n, t->subs[i].pid))
			pids[n++] = t->subs[i].pid;
	pthread_mutex_lock(&P.mu);
	struct watch *w = find_watch(watch_id);
	bool kick = false;
	if (w) {
		for (uint32_t k = 0; k < w->n_peers;) {
			if (!has_pid(pids, n, w->peers[k].pid))
				drop_peer(w, k); /* left: no longer a peer */
			else
				k++;
		}
		for (uint32_t i = 0; i < n; i++) {
			bool known = false;
			for (uint32_t k = 0; k < w->n_peers && !known; k++)
				known = w->peers[k].pid == pids[i];
			if (known)
				continue;
			if (w->n_peers == w->cap_peers) {
				uint32_t cap = w->cap_peers ? w->cap_peers * 2 : 8;
				struct peer *np = realloc(w->peers, cap * sizeof *np);
				if (!np)
					break;
				w->peers = np;
				w->cap_peers = cap;
			}
			int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
			if (fd < 0) {
				if (errno == ESRCH) { /* gone already: clean up now */
					w->gc_pending = true;
					kick = true;
				}
				continue; /* ENOSYS etc.: such peers are seen at the next join/leave/gc */
			}
			struct epoll_event ev = {.events = EPOLLIN, .data.u64 = ev_key(w->id, pids[i])};
			if (epoll_ctl(P.ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
				close(fd);
				continue;
			}
			w->peers[w->n_peers++] = (struct peer){pids[i], fd};
		}
	}
	if (kick) {
		uint64_t one = 1;
		if (write(P.kick, &one, sizeof one) < 0) {
		}
	}
	pthread_mutex_unlock(&P.mu);
	free(pids);
}
