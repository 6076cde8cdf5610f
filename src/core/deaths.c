/* The death watcher: one thread per process that learns promptly when a peer process dies and
 * reclaims it on every topic this process shares with it — which frees its slots and queue room,
 * performs a wake it owed, and wakes every wait that may end.
 *
 * A crashed peer bumps nothing by itself, so the thread holds one pidfd per peer process (pid from
 * the member records) in an epoll set and sleeps in epoll_wait. Liveness is still decided by the
 * OFD locks during reclaim, so a wrong pid in a record can only cause a harmless extra reclaim.
 * Each handle (publisher or subscriber) registers its topic at open. A second thread, the follower,
 * sleeps on the graph words of every watched topic (futex_waitv) and syncs a topic's peer list when
 * its word moves (a join or leave); handles also sync before a publish or a blocking wait. Nothing
 * polls: both threads sleep until a peer dies or the membership changes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct peer {
	int32_t pid;
	int fd;	       /* pidfd in the epoll set, or -1 */
	uint32_t refs; /* watches that list it */
};

#define MAX_DYING 16
/* One watch per topic a process uses, shared by all its handles of that topic (a container with
 * many subscriptions of one topic watches it once). The first handle's mapping is the one used. */
struct watch {
	uint64_t id; /* 0 = free */
	struct zc_topic **h;
	uint32_t n_h, cap_h;
	bool reclaim_pending;
	/* Peers whose pidfd fired but whose records still looked alive at the last reclaim: the
	 * kernel releases a dead process's OFD locks a little after it reports the exit. */
	int32_t dying[MAX_DYING];
	uint32_t n_dying;
	int32_t *pids;
	uint32_t n_pids, cap_pids;
};

static struct {
	pthread_mutex_t mu;
	bool started;
	pid_t owner; /* a forked child starts its own watcher */
	int ep, kick;
	uint64_t next_id;
	struct watch *w;
	uint32_t n_w;
	struct peer *peers;
	uint32_t n_peers, cap_peers;
	_Atomic uint32_t
	    changed; /* private futex: the set of watches changed (the follower rebuilds) */
	struct zc_mwait mw;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void rescan_locked(struct watch *w);

static struct watch *find_watch(uint64_t id)
{
	for (uint32_t i = 0; i < P.n_w; i++)
		if (P.w[i].id == id)
			return &P.w[i];
	return NULL;
}

static struct peer *find_peer(int32_t pid)
{
	for (uint32_t i = 0; i < P.n_peers; i++)
		if (P.peers[i].pid == pid)
			return &P.peers[i];
	return NULL;
}

static void kick(void)
{
	uint64_t one = 1;
	if (write(P.kick, &one, sizeof one) < 0) {
	}
}

/* A pidfd for pid (shared by every watch that lists it). Under P.mu. */
static void peer_ref(int32_t pid, bool *dead)
{
	struct peer *pe = find_peer(pid);
	if (pe) {
		pe->refs++;
		return;
	}
	if (P.n_peers == P.cap_peers) {
		uint32_t cap = P.cap_peers ? P.cap_peers * 2 : 16;
		struct peer *np = realloc(P.peers, cap * sizeof *np);
		if (!np)
			return;
		P.peers = np;
		P.cap_peers = cap;
	}
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 && errno == ESRCH)
		*dead = true; /* gone already: reclaim now */
	if (fd >= 0) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint32_t)pid};
		if (epoll_ctl(P.ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			fd = -1;
		}
	}
	/* Without a pidfd (ENOSYS, EMFILE) the peer is still reclaimed by the next full ring, empty
	 * pool, record limit or gc. */
	P.peers[P.n_peers++] = (struct peer){pid, fd, 1};
}

static void peer_unref(int32_t pid)
{
	struct peer *pe = find_peer(pid);
	if (!pe || --pe->refs)
		return;
	if (pe->fd >= 0)
		close(pe->fd); /* also leaves the epoll set */
	*pe = P.peers[--P.n_peers];
}

/* Member record i (publishers, then subscribers): its pid, read once, when the record is in use;
 * 0 when it is free. */
static int32_t record_pid(struct zc_topic *t, uint32_t i)
{
	bool pub = i < t->max_pubs;
	uint32_t st = pub ? atomic_load(&t->pubs[i].state) : atomic_load(&t->subs[i - t->max_pubs].state);
	if (st == ZC_REC_FREE)
		return 0;
	return pub ? ZC_READ_ONCE(t->pubs[i].pid) : ZC_READ_ONCE(t->subs[i - t->max_pubs].pid);
}

/* True while a record of t still names pid and its owner looks alive. */
static bool still_held(struct zc_topic *t, int32_t pid)
{
	for (uint32_t i = 0; i < t->max_pubs + t->max_subs; i++)
		if (record_pid(t, i) == pid && zc_member_alive(t, i))
			return true;
	return false;
}

/* After a reclaim: keeps the pids whose records are still held, for a retry. Under P.mu. */
static bool prune_dying(struct watch *w)
{
	for (uint32_t k = 0; k < w->n_dying;) {
		if (still_held(w->h[0], w->dying[k]))
			k++;
		else
			w->dying[k] = w->dying[--w->n_dying];
	}
	return w->n_dying > 0;
}

static void *watcher_main(void *arg)
{
	(void)arg;
	struct epoll_event ev[16];
	int timeout = -1, retries = 0; /* ms: -1 = sleep until an event */
	for (;;) {
		int n = epoll_wait(P.ep, ev, 16, timeout);
		if (n < 0 && errno != EINTR)
			return NULL;
		pthread_mutex_lock(&P.mu);
		for (int i = 0; i < n; i++) {
			int32_t pid = (int32_t)ev[i].data.u64;
			if (pid == 0) {
				uint64_t v;
				if (read(P.kick, &v, sizeof v) < 0) {
				}
				continue;
			}
			for (uint32_t j = 0; j < P.n_w; j++) {
				struct watch *w = &P.w[j];
				for (uint32_t k = 0; w->id && k < w->n_pids; k++)
					if (w->pids[k] == pid) {
						w->pids[k] = w->pids[--w->n_pids];
						w->reclaim_pending = true;
						if (w->n_dying < MAX_DYING)
							w->dying[w->n_dying++] = pid;
						peer_unref(pid);
						break;
					}
			}
		}
		/* Under P.mu: a handle cannot close (unwatch) while we use its topic. Nobody takes
		 * P.mu while holding a topic lock. */
		bool retry = false;
		for (uint32_t i = 0; i < P.n_w; i++) {
			struct watch *w = &P.w[i];
			if (!w->id || (!w->reclaim_pending && !(n == 0 && w->n_dying)))
				continue;
			w->reclaim_pending = false;
			zc_reclaim_locked(w->h[0]);
			retry |= prune_dying(w);
		}
		/* Retry while a dead peer's locks are still held (a big process, a sanitizer's shadow
		 * memory, takes a while to tear down): 1, 2, 4 .. 256 ms, then 256 ms steps, about 3 s
		 * in all; then give up (full rings, empty pools and gc still reclaim it later). */
		if (retry && retries < 16) {
			timeout = 1 << (retries < 8 ? retries : 8);
			retries++;
		} else {
			timeout = -1;
			retries = 0;
			for (uint32_t i = 0; i < P.n_w; i++)
				P.w[i].n_dying = 0;
		}
		pthread_mutex_unlock(&P.mu);
	}
}

static void poke_follower(void)
{
	atomic_fetch_add(&P.changed, 1);
	zc_futex_wake_private(&P.changed, 1);
}

static void *follower_main(void *arg)
{
	(void)arg;
	struct zc_wword *words = NULL;
	uint32_t cap = 0;
	for (;;) {
		pthread_mutex_lock(&P.mu);
		uint32_t n = 0;
		if (cap < P.n_w + 1) {
			struct zc_wword *nw = realloc(words, (P.n_w + 1) * sizeof *nw);
			if (nw) {
				words = nw;
				cap = P.n_w + 1;
			}
		}
		if (cap)
			words[n++] = (struct zc_wword){&P.changed, atomic_load(&P.changed), 1};
		for (uint32_t i = 0; i < P.n_w && n < cap; i++) {
			struct watch *w = &P.w[i];
			if (!w->id)
				continue;
			uint32_t g = atomic_load(&w->h[0]->hdr->graph);
			if (g != atomic_load(&w->h[0]->graph_seen))
				rescan_locked(w);
			words[n++] = (struct zc_wword){&w->h[0]->hdr->graph, g, 0};
		}
		pthread_mutex_unlock(&P.mu);
		if (!n)
			return NULL;
		zc_mwait_wait(&P.mw, words, n,
			      -1); /* a word moved, or a spurious return: re-check */
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
		return zc_errno(ZCAST_ESYS, "epoll/eventfd for the death watcher");
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0};
	if (epoll_ctl(P.ep, EPOLL_CTL_ADD, P.kick, &ev) != 0)
		return zc_errno(ZCAST_ESYS, "epoll_ctl");
	pthread_t th;
	zc_mwait_init(&P.mw);
	int r = zc_thread_start(watcher_main, NULL, &th, true);
	if (r == 0)
		r = zc_thread_start(follower_main, NULL, &th, true);
	if (r < 0)
		return r;
	P.started = true;
	P.owner = getpid();
	return 0;
}

/* A forked child has no watcher thread and none of the parent's handles: start clean. */
static void child_reset(void)
{
	pthread_mutex_init(&P.mu, NULL);
	P.started = false;
	P.w = NULL;
	P.n_w = 0;
	P.peers = NULL;
	P.n_peers = P.cap_peers = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void)
{
	pthread_atfork(NULL, NULL, child_reset);
}

int zc_deaths_watch(struct zc_topic *t)
{
#ifdef ZCAST_FAULT_INJECTION
	/* Test builds: a test that must reclaim a victim itself (to reach a crash point in its own
	 * process) turns the watcher off in the processes that would race it. */
	if (getenv("ZCAST_NO_DEATH_WATCH"))
		return 0;
#endif
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&P.mu);
	int r = start_watcher();
	struct watch *w = NULL;
	for (uint32_t i = 0; r == 0 && i < P.n_w && !w; i++)
		if (P.w[i].id && strcmp(P.w[i].h[0]->shm_name, t->shm_name) == 0)
			w = &P.w[i]; /* another handle of ours watches this topic already */
	bool fresh = !w;
	if (r == 0 && !w && !(w = find_watch(0))) {
		struct watch *nw = realloc(P.w, (P.n_w + 1) * sizeof *nw);
		if (!nw)
			r = zc_err(ZCAST_ENOMEM, "out of memory");
		else
			w = &(P.w = nw)[P.n_w++];
	}
	if (w && fresh) {
		memset(w, 0, sizeof *w);
		w->id = ++P.next_id;
	}
	if (w && w->n_h == w->cap_h) {
		uint32_t cap = w->cap_h ? w->cap_h * 2 : 4;
		struct zc_topic **nh = realloc(w->h, cap * sizeof *nh);
		if (nh) {
			w->h = nh;
			w->cap_h = cap;
		} else {
			r = zc_err(ZCAST_ENOMEM, "out of memory");
		}
	}
	if (r == 0 && w) {
		w->h[w->n_h++] = t;
		t->death_watch = w->id;
		/* A fresh watch differs from the graph word: the first rescan fills the peers. */
		atomic_store(&t->graph_seen, fresh ? atomic_load(&t->hdr->graph) - 1
						   : atomic_load(&w->h[0]->graph_seen));
	} else if (w && fresh) {
		w->id = 0;
	}
	pthread_mutex_unlock(&P.mu);
	if (r == 0 && fresh) {
		zc_deaths_rescan(t);
		poke_follower();
	}
	return r;
}

void zc_deaths_unwatch(struct zc_topic *t)
{
	if (!t->death_watch)
		return;
	pthread_mutex_lock(&P.mu);
	struct watch *w = P.owner == getpid() ? find_watch(t->death_watch) : NULL;
	if (w) {
		for (uint32_t k = 0; k < w->n_h; k++)
			if (w->h[k] == t) {
				memmove(&w->h[k], &w->h[k + 1], (w->n_h - k - 1) * sizeof *w->h);
				w->n_h--;
				break;
			}
		if (!w->n_h) {
			for (uint32_t k = 0; k < w->n_pids; k++)
				peer_unref(w->pids[k]);
			free(w->pids);
			free(w->h);
			memset(w, 0, sizeof *w);
		}
		/* The follower must stop sleeping on this handle's mapping before it is unmapped. */
		poke_follower();
	}
	t->death_watch = 0;
	pthread_mutex_unlock(&P.mu);
}

static bool has_pid(const int32_t *pids, uint32_t n, int32_t pid)
{
	for (uint32_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The processes that hold records of t now, other than us. */
static uint32_t member_pids(struct zc_topic *t, int32_t *pids)
{
	uint32_t n = 0;
	int32_t self = getpid();
	for (uint32_t i = 0; i < t->max_pubs + t->max_subs; i++) {
		int32_t pid = record_pid(t, i);
		if (pid > 0 && pid != self && !has_pid(pids, n, pid))
			pids[n++] = pid;
	}
	return n;
}

/* Syncs a watch's peers with the member records. Under P.mu. */
static void rescan_locked(struct watch *w)
{
	struct zc_topic *t = w->h[0];
	uint32_t g = atomic_load(&t->hdr->graph);
	for (uint32_t i = 0; i < w->n_h; i++)
		atomic_store(&w->h[i]->graph_seen, g);
	int32_t *pids = malloc((t->max_pubs + t->max_subs) * sizeof *pids);
	if (!pids)
		return;
	uint32_t n = member_pids(t, pids);
	bool dead = false;
	for (uint32_t k = 0; k < w->n_pids;) {
		if (!has_pid(pids, n, w->pids[k])) {
			peer_unref(w->pids[k]); /* left: no longer a peer */
			w->pids[k] = w->pids[--w->n_pids];
		} else {
			k++;
		}
	}
	int32_t *np = n > w->cap_pids ? realloc(w->pids, n * sizeof *np) : w->pids;
	if (np) {
		w->pids = np;
		w->cap_pids = n > w->cap_pids ? n : w->cap_pids;
		for (uint32_t i = 0; i < n; i++) {
			if (has_pid(w->pids, w->n_pids, pids[i]))
				continue;
			bool gone = false;
			peer_ref(pids[i], &gone);
			w->pids[w->n_pids++] = pids[i];
			if (gone && w->n_dying < MAX_DYING)
				w->dying[w->n_dying++] = pids[i]; /* retried while its locks linger */
			dead |= gone;
		}
	}
	if (dead) {
		w->reclaim_pending = true;
		kick();
	}
	free(pids);
}

ZC_HOT void zc_deaths_rescan(struct zc_topic *t)
{
	uint32_t g = atomic_load_explicit(&t->hdr->graph, memory_order_acquire);
	if (!t->death_watch || g == atomic_load_explicit(&t->graph_seen, memory_order_relaxed))
		return;
	pthread_mutex_lock(&P.mu);
	struct watch *w = P.owner == getpid() ? find_watch(t->death_watch) : NULL;
	if (w)
		rescan_locked(w);
	pthread_mutex_unlock(&P.mu);
}
