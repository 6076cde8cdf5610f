/* The death watcher: one thread per process that learns promptly when a peer process dies and
 * reclaims it on every topic this process shares with it — which frees its slots and queue room,
 * performs a wake it owed, and wakes every wait that may end.
 *
 * A crashed peer bumps nothing by itself, so the thread holds one pidfd per peer process (pid from
 * the member records) in an epoll set and sleeps in epoll_wait. Liveness is still decided by the
 * OFD locks during reclaim, so a wrong pid in a record can only cause a harmless extra reclaim.
 * A pid is not always usable: a peer in another PID namespace, a record whose pid was rewritten, a
 * pidfd_open that failed (out of descriptors; retried at each rescan). So the thread also watches
 * each topic file with inotify for IN_CLOSE_WRITE: a member's open file description is released,
 * and with it its OFD lock, when it closes or dies, in any namespace. A close makes the thread probe
 * the records' locks (briefly retried: the event comes a moment before the lock is released) and
 * reclaim when one is free while its record is in use.
 * Each handle (publisher or subscriber) registers its topic at open. A second thread, the follower,
 * sleeps on the graph words of every watched topic (futex_waitv) and syncs a topic's peer list when
 * its word moves (a join or leave); handles also sync before a publish or a blocking wait. Nothing
 * polls: both threads sleep until a peer dies or the membership changes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Epoll tags: a pid (1 .. INT32_MAX), the kick, or the inotify descriptor. */
#define TAG_KICK 0
#define TAG_CLOSES UINT64_MAX
/* Lock probes after a close event: at once, then 1, 2, 4 .. 64 ms later (the retry schedule). */
#define CLOSE_PROBES 8

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
	dev_t dev;   /* the topic file: a topic removed and made again under its name is another */
	ino_t ino;
	int wd;                /* inotify watch of the file's closes, or -1 */
	uint32_t close_probes; /* lock probes still due after a close */
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
	bool watcher_up, follower_up;
	int ep, kick, closes; /* closes: inotify, or -1 */
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

/* The layer above's hook (services): run after a reclaim or a membership change, outside P.mu. */
static void (*_Atomic after_change)(void);

void zc_deaths_set_hook(void (*fn)(void))
{
	atomic_store(&after_change, fn);
}

static void run_hook(bool changed)
{
	void (*fn)(void) = atomic_load(&after_change);
	if (changed && fn)
		fn();
}

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

/* Opens pe's pidfd into the epoll set (without one, the inotify watch still sees its death).
 * Returns true when the pid does not exist. Under P.mu. */
static bool peer_open(struct peer *pe)
{
	int fd = (int)syscall(SYS_pidfd_open, pe->pid, 0), err = errno;
	if (fd < 0 && err != ESRCH)
		ZC_PAUSE("deaths:pidfd-failed"); /* tests: no pidfd for a join (wait_no_pidfd) */
	if (fd < 0)
		return err == ESRCH;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint32_t)pe->pid};
	if (epoll_ctl(P.ep, EPOLL_CTL_ADD, fd, &ev) != 0)
		close(fd);
	else
		pe->fd = fd;
	return false;
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
	pe = &P.peers[P.n_peers++];
	*pe = (struct peer){pid, -1, 1};
	*dead = peer_open(pe); /* gone already: reclaim now */
}

static void peer_unref(int32_t pid)
{
	struct peer *pe = find_peer(pid);
	if (!pe || --pe->refs)
		return;
	/* Out of the set first: a forked child may share the pidfd, and then closing ours leaves it
	 * in the set, readable for good once the peer is gone (the watcher would spin). */
	if (pe->fd >= 0) {
		epoll_ctl(P.ep, EPOLL_CTL_DEL, pe->fd, NULL);
		close(pe->fd);
	}
	*pe = P.peers[--P.n_peers];
}

/* Member record i (publishers, then subscribers): its pid, read once, when the record is in use;
 * 0 when it is free. */
static bool record_in_use(struct zc_topic *t, uint32_t i)
{
	bool pub = i < t->max_pubs;
	uint32_t st = pub ? atomic_load(&t->pubs[i].state) : atomic_load(&t->subs[i - t->max_pubs].state);
	return st != ZC_REC_FREE;
}

static int32_t record_pid(struct zc_topic *t, uint32_t i)
{
	if (!record_in_use(t, i))
		return 0;
	return i < t->max_pubs ? ZC_READ_ONCE(t->pubs[i].pid)
			       : ZC_READ_ONCE(t->subs[i - t->max_pubs].pid);
}

/* True when a record of t is in use while no process holds its lock: its member died (or is
 * between its unlock and its record's release: a harmless extra reclaim). */
static bool any_member_dead(struct zc_topic *t)
{
	for (uint32_t i = 0; i < t->max_pubs + t->max_subs; i++)
		if (record_in_use(t, i) && !zc_member_alive(t, i))
			return true;
	return false;
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

/* A peer's pidfd fired: every watch that lists it reclaims. Under P.mu. */
static void peer_died(int32_t pid)
{
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

/* A topic file was closed somewhere: its watch probes the member locks. Under P.mu. */
static void read_closes(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(P.closes, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;
			for (uint32_t j = 0; j < P.n_w; j++) /* an overflow (wd -1): every watch */
				if (P.w[j].id && (P.w[j].wd == e->wd || e->wd < 0))
					P.w[j].close_probes = CLOSE_PROBES;
			p += sizeof *e + e->len;
		}
	}
}

static void handle_events(const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		if (ev[i].data.u64 == TAG_KICK) {
			uint64_t v;
			if (read(P.kick, &v, sizeof v) < 0) {
			}
		} else if (ev[i].data.u64 == TAG_CLOSES) {
			read_closes();
		} else {
			peer_died((int32_t)ev[i].data.u64);
		}
	}
}

/* Watches with lock probes due after a close: one probe each. True while more are due. */
static bool probe_closes(void)
{
	bool more = false;
	for (uint32_t i = 0; i < P.n_w; i++) {
		struct watch *w = &P.w[i];
		if (!w->id || !w->close_probes)
			continue;
		w->close_probes--;
		if (any_member_dead(w->h[0]))
			w->reclaim_pending = true;
		more |= w->close_probes > 0;
	}
	return more;
}

static int make_set(void);
static void watch_closes(struct watch *w);

/* epoll_wait failed: someone closed our descriptor (a daemon's close-every-descriptor loop). Its
 * number may be another file's now: left alone, and a new set made of the pidfds and the watches
 * (a kick or inotify descriptor closed too is made again). False when that failed. Under P.mu. */
static bool remake_set(void)
{
	if (P.kick >= 0 && fcntl(P.kick, F_GETFD) < 0)
		P.kick = -1;
	if (P.closes >= 0 && fcntl(P.closes, F_GETFD) < 0) {
		P.closes = -1;
		for (uint32_t i = 0; i < P.n_w; i++)
			P.w[i].wd = -1; /* watched again below, in the new instance */
	}
	if (make_set() < 0)
		return false;
	for (uint32_t i = 0; i < P.n_peers; i++) {
		struct peer *pe = &P.peers[i];
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint32_t)pe->pid};
		if (pe->fd >= 0 && epoll_ctl(P.ep, EPOLL_CTL_ADD, pe->fd, &ev) != 0)
			pe->fd = -1; /* not ours any more: a new one at the next rescan */
	}
	for (uint32_t i = 0; i < P.n_w; i++) {
		if (!P.w[i].id)
			continue;
		watch_closes(&P.w[i]);
		P.w[i].close_probes = CLOSE_PROBES; /* deaths while we were blind */
	}
	return true;
}

static void *watcher_main(void *arg)
{
	(void)arg;
	struct epoll_event ev[16];
	int timeout = -1, retries = 0; /* ms: -1 = sleep until an event */
	for (;;) {
		int n = epoll_wait(P.ep, ev, 16, timeout);
		pthread_mutex_lock(&P.mu);
		if (n < 0 && errno != EINTR) {
			bool ok = remake_set();
			pthread_mutex_unlock(&P.mu);
			if (!ok) /* out of descriptors, say: try again a little later */
				nanosleep(&(struct timespec){0, 100000000}, NULL);
			continue;
		}
		handle_events(ev, n);
		bool retry = probe_closes(), reclaimed = false, lock_kept = false;
		/* Under P.mu: a handle cannot close (unwatch) while we use its topic. Nobody takes
		 * P.mu while holding a topic lock. */
		for (uint32_t i = 0; i < P.n_w; i++) {
			struct watch *w = &P.w[i];
			if (!w->id || (!w->reclaim_pending && !(n == 0 && w->n_dying)))
				continue;
			w->reclaim_pending = false;
			/* A live holder kept the lock past its timeout: the dead are not reclaimed, so
			 * again at once, however long (each try sleeps on the lock word until the holder
			 * releases or dies). Before, the retries below ran out and the dead stayed. */
			if (zc_reclaim_locked(w->h[0]) == ZCAST_ETIMEDOUT)
				w->reclaim_pending = lock_kept = true;
			reclaimed = true;
			retry |= prune_dying(w);
		}
		/* Retry while a dead peer's locks are still held (a big process, a sanitizer's shadow
		 * memory, takes a while to tear down): 1, 2, 4 .. 256 ms, then 256 ms steps, about 3 s
		 * in all; then give up (full rings, empty pools and gc still reclaim it later). */
		if (lock_kept) {
			timeout = 0;
		} else if (retry && retries < 16) {
			timeout = 1 << (retries < 8 ? retries : 8);
			retries++;
		} else {
			timeout = -1;
			retries = 0;
			for (uint32_t i = 0; i < P.n_w; i++)
				P.w[i].n_dying = P.w[i].close_probes = 0;
		}
		pthread_mutex_unlock(&P.mu);
		run_hook(reclaimed);
	}
	return NULL;
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
		/* Woken by a moved word (a handle's own rescan may have synced graph_seen first). */
		run_hook(true);
		if (!n)
			return NULL;
		zc_mwait_wait(&P.mw, words, n,
			      -1); /* a word moved, or a spurious return: re-check */
	}
}

static int add_to_set(int fd, uint64_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag};
	return epoll_ctl(P.ep, EPOLL_CTL_ADD, fd, &ev);
}

/* The epoll set with the kick and the inotify descriptor (made here when missing). Without
 * inotify (its per-user limit) deaths are seen through pidfds only. Under P.mu. */
static int make_set(void)
{
	P.ep = epoll_create1(EPOLL_CLOEXEC);
	if (P.ep < 0)
		return zc_errno(ZCAST_ESYS, "epoll_create1 for the death watcher");
	if (P.kick < 0)
		P.kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (P.closes < 0)
		P.closes = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (P.kick >= 0 && add_to_set(P.kick, TAG_KICK) == 0 &&
	    (P.closes < 0 || add_to_set(P.closes, TAG_CLOSES) == 0))
		return 0;
	int r = zc_errno(ZCAST_ESYS, "eventfd/epoll_ctl for the death watcher");
	close(P.ep);
	P.ep = -1;
	return r;
}

/* The descriptors of this process's watcher (or, in a forked child, of the parent's). */
static void close_fds(void)
{
	int *fds[] = {&P.ep, &P.kick, &P.closes};
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	P.ep = P.kick = P.closes = -1;
}

/* Under P.mu. A failure leaves nothing behind but the threads that run; the next watch retries. */
static int start_watcher(void)
{
	if (P.owner != getpid()) {
		/* First use, or a forked child: the parent's threads do not exist here. */
		P.ep = P.kick = P.closes = -1;
		int r = make_set();
		if (r < 0) {
			close_fds();
			return r;
		}
		zc_mwait_init(&P.mw);
		P.owner = getpid();
		P.watcher_up = P.follower_up = false;
	}
	pthread_t th;
	int r = 0;
	if (!P.watcher_up && (r = zc_thread_start(watcher_main, NULL, &th, true)) == 0)
		P.watcher_up = true;
	if (!r && !P.follower_up && (r = zc_thread_start(follower_main, NULL, &th, true)) == 0)
		P.follower_up = true;
	return r;
}

/* P.mu is held across fork: a fork while the watcher updates the peers (a reclaim, a new watch)
 * would leave the child a half-written table, whose descriptors child_reset then closes, one of
 * them maybe the child's own. The watcher takes the doorbell table's lock and the fork rule's under
 * P.mu, so P.mu is taken first: our handlers are installed after theirs (handlers installed later
 * prepare first; the fork rule's are installed by the first mapping, before any watch). */
static void fork_prepare(void)
{
	pthread_mutex_lock(&P.mu);
}
static void fork_parent(void)
{
	pthread_mutex_unlock(&P.mu);
}

/* A forked child has no watcher thread and none of the parent's handles: start clean. Closing the
 * inherited descriptors keeps the child from holding the parent's pidfds and set alive. */
static void child_reset(void)
{
	pthread_mutex_unlock(&P.mu); /* the forking thread took it in prepare: it is us */
	if (P.owner) {
		for (uint32_t i = 0; i < P.n_peers; i++)
			if (P.peers[i].fd >= 0)
				close(P.peers[i].fd);
		close_fds();
	}
	P.owner = 0;
	P.w = NULL;
	P.n_w = 0;
	P.peers = NULL;
	P.n_peers = P.cap_peers = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void)
{
	zc_bell_table_fork_handlers();
	pthread_atfork(fork_prepare, fork_parent, child_reset);
}

/* Inotify on the topic file itself (through our descriptor, not its name): IN_CLOSE_WRITE when any
 * member's descriptor of it is released, at a close or a death. Under P.mu. */
static void watch_closes(struct watch *w)
{
	char path[40];
	snprintf(path, sizeof path, "/proc/self/fd/%d", w->h[0]->fd);
	if (w->wd < 0 && P.closes >= 0)
		w->wd = inotify_add_watch(P.closes, path, IN_CLOSE_WRITE);
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
	struct stat st;
	if (fstat(t->fd, &st) != 0)
		return zc_errno(ZCAST_ESYS, "fstat of the topic for the death watcher");
	pthread_mutex_lock(&P.mu);
	int r = start_watcher();
	struct watch *w = NULL;
	for (uint32_t i = 0; r == 0 && i < P.n_w && !w; i++)
		if (P.w[i].id && P.w[i].dev == st.st_dev && P.w[i].ino == st.st_ino)
			w = &P.w[i]; /* another handle of ours watches this file already */
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
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		w->wd = -1;
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
		if (fresh)
			watch_closes(w);
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
			if (w->wd >= 0)
				inotify_rm_watch(P.closes, w->wd);
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
	watch_closes(w); /* retried: inotify's watch limit may have refused it */
	for (uint32_t k = 0; k < w->n_pids;) {
		struct peer *pe = find_peer(w->pids[k]);
		if (!has_pid(pids, n, w->pids[k])) {
			peer_unref(w->pids[k]); /* left: no longer a peer */
			w->pids[k] = w->pids[--w->n_pids];
			continue;
		}
		if (pe && pe->fd < 0 && peer_open(pe)) { /* retried: pidfd_open failed before */
			dead = true;
			if (w->n_dying < MAX_DYING)
				w->dying[w->n_dying++] = pe->pid;
		}
		k++;
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
