/* Helpers for the tests of waits whose blocker's death the pidfd cannot show (issue 22, item 2): a
 * peer process that blocks a publisher (a full FULL queue, or every slot of its pool held), a
 * thread that kills it once the test's main thread sleeps in its wait, and the two waits.
 *
 * The peer is killed from outside (SIGKILL by pid): a peer that is pid 1 of its own PID namespace
 * cannot signal itself. A 10 s watchdog turns a wait that never ends into a FAIL. */
#ifndef ZT_UNSEEN_H
#define ZT_UNSEEN_H

#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "zt_hostile.h"

struct zt_blocker {
	const char *topic;
	int hold;	   /* 0: a depth-1 queue that is never taken; n: take and hold n messages */
	int ready_w, go_r; /* the peer's ends */
	int ready_r, go_w; /* the test's ends */
	pid_t pid;	   /* the peer, as this process sees it */
};

/* The peer: joins, reports ready, takes and holds `hold` messages once told, reports again, then
 * stays until it is killed. */
static inline int zt_blocker_main(void *a_)
{
	struct zt_blocker *a = a_;
	alarm(60);
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = a->hold ? (uint32_t)a->hold : 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(a->topic, &o, &s), 0);
	zt_signal(a->ready_w);
	zt_await(a->go_r);
	zcast_msg *held[8];
	for (int i = 0; i < a->hold && i < 8; i++)
		CHECK_EQ(zcast_take(s, &held[i]), 0);
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

static inline void zt_blocker_pipes(struct zt_blocker *a, const char *topic, int hold)
{
	int r[2], g[2];
	CHECK_EQ(pipe(r), 0);
	CHECK_EQ(pipe(g), 0);
	*a = (struct zt_blocker){topic, hold, r[1], g[0], r[0], g[1], 0};
}

/* Starts a peer in this PID namespace; returns once it has joined. */
static inline void zt_blocker_start(struct zt_blocker *a, const char *topic, int hold)
{
	zt_blocker_pipes(a, topic, hold);
	a->pid = zt_fork(zt_blocker_main, a);
	zt_await(a->ready_r);
}

/* The peer blocks the wait, is killed, and the wait ends. */
static inline void zt_blocker_killed_in_wait(zcast_pub *p, struct zt_blocker *a);

/* Is thread `tid` of this process asleep in a FUTEX_WAIT on a shared word at `off` bytes into a
 * mapping (page aligned: a segment's header)? /proc/self/task/<tid>/syscall gives the number, then
 * the arguments: the word's address and the op. Exactly the wait under test: the locks and
 * handshakes the thread passes through on its way there are private futexes or other words. */
static inline bool zt_asleep_on_word(pid_t tid, size_t off)
{
	char path[80], buf[256] = {0};
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	long nr = -1;
	unsigned long addr = 0, op = 0, page = (unsigned long)sysconf(_SC_PAGESIZE);
	bool yes = fgets(buf, sizeof buf, f) && sscanf(buf, "%ld %lx %lx", &nr, &addr, &op) == 3 &&
		   nr == SYS_futex && !(op & FUTEX_PRIVATE_FLAG) &&
		   ((op & FUTEX_CMD_MASK) == FUTEX_WAIT || (op & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET) &&
		   (addr - off) % page == 0;
	fclose(f);
	return yes;
}

struct zt_killer {
	pid_t victim;
	pid_t tid;  /* the thread whose sleep starts the kill */
	size_t off; /* ... on the word at this offset of its segment */
	pthread_t th;
};

/* A wait that never sleeps there is failed by the caller's watchdog. */
static void *zt_killer_main(void *a_)
{
	struct zt_killer *k = a_;
	while (!zt_asleep_on_word(k->tid, k->off))
		zt_sleep_ms(1);
	kill(k->victim, SIGKILL);
	return NULL;
}

/* Kills `victim` once the calling thread sleeps on the futex word at `off` in its segment. */
static inline void zt_kill_when_asleep(struct zt_killer *k, pid_t victim, size_t off)
{
	k->victim = victim;
	k->tid = (pid_t)syscall(SYS_gettid);
	k->off = off;
	CHECK_EQ(pthread_create(&k->th, NULL, zt_killer_main, k), 0);
}

/* Counts this process's epoll descriptors, closing them when `close_them`. */
static inline int zt_epoll_fds(int close_them)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	CHECK(d != NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[300], target[64] = {0};
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		if (readlink(link, target, sizeof target - 1) <= 0 ||
		    strcmp(target, "anon_inode:[eventpoll]") != 0)
			continue;
		n++;
		if (close_them)
			close(atoi(e->d_name));
	}
	closedir(d);
	return n;
}

static inline zcast_pub *zt_blocked_pub(const char *topic, uint32_t slots)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = slots;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

/* zcast_publish_wait(-1) on the peer's full queue (the peer joined already) must return 0 once the
 * peer is killed. */
static inline void zt_publish_wait_until_killed(zcast_pub *p, struct zt_blocker *a)
{
	zt_publish(p, 1, 64); /* the depth-1 queue is full now */
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 2, zcast_pub_id(p));
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
	zt_signal(a->go_w);
	zt_await(a->ready_r);
	struct zt_killer k;
	zt_kill_when_asleep(&k, a->pid, offsetof(struct zc_topic_hdr, space));
	fprintf(stderr, "zcast_publish_wait(-1) on the full queue of a peer that is killed "
			"(10 s watchdog)\n");
	alarm(10);
	int r = zcast_publish_wait(p, m, -1);
	alarm(0);
	CHECK_EQ(r, 0);
	pthread_join(k.th, NULL);
}

/* zcast_loan_wait(-1) on a pool whose two slots the peer holds must return a loan once the peer is
 * killed. */
static inline void zt_loan_wait_until_killed(zcast_pub *p, struct zt_blocker *a)
{
	zt_publish(p, 1, 64);
	zt_publish(p, 2, 64);
	zt_signal(a->go_w);
	zt_await(a->ready_r); /* the peer holds both slots */
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), ZCAST_ENOSLOT);
	struct zt_killer k;
	zt_kill_when_asleep(&k, a->pid, offsetof(struct zc_pool_hdr, freed));
	fprintf(stderr,
		"zcast_loan_wait(-1) on slots held by a peer that is killed (10 s watchdog)\n");
	alarm(10);
	int r = zcast_loan_wait(p, 64, -1, &m);
	alarm(0);
	CHECK_EQ(r, 0);
	zcast_msg_drop(m);
	pthread_join(k.th, NULL);
}

/* The wait the peer blocks: its full queue (hold 0, a pool of 4), or the two slots of the pool
 * it holds. */
static inline zcast_pub *zt_blocked_pub_for(const struct zt_blocker *a)
{
	return zt_blocked_pub(a->topic, a->hold ? 2 : 4);
}

static inline void zt_wait_until_killed(zcast_pub *p, struct zt_blocker *a)
{
	if (a->hold)
		zt_loan_wait_until_killed(p, a);
	else
		zt_publish_wait_until_killed(p, a);
}

static inline void zt_blocker_killed_in_wait(zcast_pub *p, struct zt_blocker *a)
{
	zt_wait_until_killed(p, a);
	CHECK(WIFSIGNALED(zt_wait(a->pid)));
}

#endif
