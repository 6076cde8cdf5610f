/* A tiny test harness: one executable per behaviour, exit 0 pass / 1 fail / 77 skip.
 * Every test gets its own zcast domain, a watchdog, and removes its segments even when it fails;
 * children are forked through zt_fork() and killed when the test fails. */
#ifndef ZT_HARNESS_H
#define ZT_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zcast/zcast.h"
#include "zcast/waitset.h"

/* 1 in a build under AddressSanitizer or ThreadSanitizer (gcc and clang say so differently): long
 * randomised runs do fewer rounds there. The plain stage of `make test` runs them all; the
 * sanitizer stages look for memory errors and races on the same paths at several times the cost
 * per round. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ZT_SANITIZED 1
#endif
#endif
#ifndef ZT_SANITIZED
#define ZT_SANITIZED 0
#endif

#define ZT_SKIP 77
#define ZT_MAX_CHILDREN 256

static char zt_dom[40];
static pid_t zt_children[ZT_MAX_CHILDREN];
static int zt_n_children;
static pid_t zt_main_pid;

static inline const char *zt_domain(void)
{
	return zt_dom;
}

/* The files of /dev/shm whose name starts with `prefix`. */
static inline int zt_shm_count_prefix(const char *prefix)
{
	size_t n = strlen(prefix);
	int count = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d)))
		count += strncmp(e->d_name, prefix, n) == 0;
	if (d)
		closedir(d);
	return count;
}

static inline int zt_shm_count(void)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "zcast.%s.", zt_dom);
	return zt_shm_count_prefix(prefix);
}

static inline void zt_cleanup(void)
{
	if (getpid() != zt_main_pid)
		return;
	char prefix[64];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.", zt_dom);
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)n) == 0) {
			char path[300];
			snprintf(path, sizeof path, "/%s", e->d_name);
			shm_unlink(path);
		}
	}
	if (d)
		closedir(d);
	zcast_doorbell_gc(); /* wait sets of children that died (only dead owners' files) */
}

static inline void zt_kill_children(void)
{
	for (int i = 0; i < zt_n_children; i++)
		if (zt_children[i] > 0)
			kill(zt_children[i], SIGKILL);
}

static inline _Noreturn void zt_fail(void)
{
	if (getpid() == zt_main_pid) {
		zt_kill_children();
		zt_cleanup();
	}
	_exit(1);
}

static void zt_watchdog(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: watchdog timeout\n";
	if (write(2, msg, sizeof msg - 1) < 0) {
	}
	zt_fail();
}

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,   \
				__LINE__, #c, zcast_last_error());                                 \
			zt_fail();                                                                 \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long _a = (long long)(a), _b = (long long)(b);                               \
		if (_a != _b) {                                                                    \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld (last error: %s)\n", \
				__FILE__, __LINE__, #a, _a, #b, _b, zcast_last_error());           \
			zt_fail();                                                                 \
		}                                                                                  \
	} while (0)

/* Sets up the test: unique domain (also in $ZCAST_DOMAIN for children), watchdog, cleanup. */
static inline void zt_setup(const char *name, unsigned timeout_s)
{
	zt_main_pid = getpid();
	snprintf(zt_dom, sizeof zt_dom, "t%.12s-%d-%ld", name, (int)getpid(), (long)(time(NULL) % 100000));
	for (char *p = zt_dom; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
			*p = '_';
	setenv("ZCAST_DOMAIN", zt_dom, 1);
	signal(SIGALRM, zt_watchdog);
	alarm(timeout_s);
	atexit(zt_cleanup);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline pid_t zt_fork(int (*fn)(void *), void *arg)
{
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(0);
		signal(SIGALRM, SIG_DFL);
		_exit(fn(arg));
	}
	if (zt_n_children < ZT_MAX_CHILDREN)
		zt_children[zt_n_children++] = pid;
	return pid;
}

/* fork() for a child that is stopped with SIGTERM: SIGTERM stays blocked until the child's handler
 * `on_term` is in place (a SIGTERM sent at once is not lost or fatal). Returns 0 in the child (its
 * test alarm off), the pid in the parent (not registered: the caller keeps its own list). */
static inline pid_t zt_fork_on_term(void (*on_term)(int))
{
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(0);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, on_term);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

/* A child's wait status in words. */
static inline void zt_describe_status(char *out, size_t n, int st)
{
	if (WIFEXITED(st))
		snprintf(out, n, "exited with %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(out, n, "died by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(out, n, "status 0x%x", st);
}

/* Waits for a child and returns its raw status. */
static inline int zt_wait(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
	for (int i = 0; i < zt_n_children; i++)
		if (zt_children[i] == pid)
			zt_children[i] = 0;
	return st;
}

#define CHECK_CHILD_OK(pid)                                                                        \
	do {                                                                                       \
		int _st = zt_wait(pid);                                                            \
		if (!WIFEXITED(_st) || WEXITSTATUS(_st) != 0) {                                    \
			fprintf(stderr, "%s:%d: child %d failed (status 0x%x)\n", __FILE__, __LINE__, \
				(int)(pid), _st);                                                  \
			zt_fail();                                                                 \
		}                                                                                  \
	} while (0)

/* A publisher of `topic` with `slots` slots of `slot_size` bytes, other options default. */
static inline zcast_pub *zt_open_pub(const char *topic, size_t slot_size, uint32_t slots)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = slot_size;
	o.slot_count = slots;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

/* A subscriber of `topic` with `policy` and `depth`. */
static inline zcast_sub *zt_open_sub(const char *topic, int policy, uint32_t depth)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = policy;
	o.queue_depth = depth;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static inline int64_t zt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void zt_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Waits for a child for at most `ms` milliseconds; a child still running then is a hang: FAIL. */
static inline int zt_wait_bounded(pid_t pid, int ms, const char *what)
{
	for (int i = 0; i < ms; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			for (int k = 0; k < zt_n_children; k++)
				if (zt_children[k] == pid)
					zt_children[k] = 0;
			return st;
		}
		zt_sleep_ms(1);
	}
	fprintf(stderr, "FAIL: %s: child %d still running after %d ms (hang)\n", what, (int)pid,
		ms);
	zt_fail();
}

/* True when thread `tid` of process `pid` sleeps in the kernel on a futex. */
/* Waits up to 10 s for `cond` (re-evaluated every millisecond): reclaim of a killed member is
 * asynchronous (the death watcher), so a test waits for its effect instead of racing it. */
/* Seen once is enough: a state that comes and goes (a thread asleep in a wait that wakes up to
 * probe) is not checked a second time after it was seen. */
#define ZT_EVENTUALLY(cond)                                                                        \
	do {                                                                                       \
		int zt_ok_ = 0;                                                                    \
		for (int zt_i_ = 0; zt_i_ < 10000 && !(zt_ok_ = (cond)); zt_i_++)                  \
			zt_sleep_ms(1);                                                            \
		if (!zt_ok_)                                                                       \
			CHECK(cond);                                                               \
	} while (0)

/* Does thread `tid` of `pid` sleep in a kernel function whose name contains `what`? */
static inline int zt_wchan_has(pid_t pid, pid_t tid, const char *what)
{
	char path[80], buf[64] = {0};
	snprintf(path, sizeof path, "/proc/%d/task/%d/wchan", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, what) != NULL;
}

static inline int zt_futex_asleep(pid_t pid, pid_t tid)
{
	return zt_wchan_has(pid, tid, "futex");
}

#define RUN(test)                                                                                  \
	do {                                                                                       \
		test();                                                                            \
		printf("ok %s\n", #test);                                                          \
	} while (0)

/* ---- checksummed payloads: sequence, publisher and checksum in the first 32 bytes ---- */
struct zt_frame {
	uint64_t seq, pub, len, sum;
};

static inline uint64_t zt_sum(const uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Fills a payload of n >= 32 bytes. */
static inline void zt_fill(void *buf, size_t n, uint64_t seq, uint64_t pub)
{
	uint8_t *p = buf;
	struct zt_frame f = {seq, pub, n, 0};
	for (size_t i = sizeof f; i < n; i++)
		p[i] = (uint8_t)(seq * 31 + i * 7 + pub);
	f.sum = zt_sum(p + sizeof f, n - sizeof f, seq ^ (pub << 32));
	memcpy(p, &f, sizeof f);
}

/* Verifies a payload; returns 1 if intact and fills seq/pub. */
static inline int zt_verify(const void *buf, size_t n, uint64_t *seq, uint64_t *pub)
{
	const uint8_t *p = buf;
	struct zt_frame f;
	if (n < sizeof f)
		return 0;
	memcpy(&f, p, sizeof f);
	if (f.len != n || f.sum != zt_sum(p + sizeof f, n - sizeof f, f.seq ^ (f.pub << 32)))
		return 0;
	if (seq)
		*seq = f.seq;
	if (pub)
		*pub = f.pub;
	return 1;
}

#endif
