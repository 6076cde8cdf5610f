/* Helpers for the hardening tests (issue 10): find a member's record in a mapped control segment, a
 * slot header in a mapped pool, wait for a child with a bound, poll for a condition with a bound,
 * drop to another uid, and read the process's resident memory. */
#ifndef ZT_HOSTILE_H
#define ZT_HOSTILE_H

#include <grp.h>
#include <pthread.h>

#include "zt_seg.h"

/* Rounds of a scribbler race: all of them in the plain build, which searches for the race; a
 * quarter under a sanitizer, which looks for memory errors on the recovery path and runs each round
 * several times slower (ASan cannot see reads past a shared mapping anyway: those land in other
 * mappings or fault, which the plain build sees too). */
#define ZT_SCRIBBLE_ROUNDS(n) (ZT_SANITIZED ? (n) / 4 : (n))

/* The subscriber record whose member id is `id` (NULL if none). */
static inline struct zc_sub_rec *zt_sub_rec(struct zc_topic_hdr *h, uint64_t id)
{
	struct zc_sub_rec *subs = (struct zc_sub_rec *)((char *)h + h->off_subs);
	for (uint32_t k = 0; k < h->max_subs; k++)
		if (atomic_load(&subs[k].state) != ZC_REC_FREE && subs[k].id == id)
			return &subs[k];
	return NULL;
}

static inline uint32_t zt_sub_index(struct zc_topic_hdr *h, const struct zc_sub_rec *r)
{
	return (uint32_t)(r - (struct zc_sub_rec *)((char *)h + h->off_subs));
}

/* The publisher record whose member id is `id` (NULL if none). */
static inline struct zc_pub_rec *zt_pub_rec(struct zc_topic_hdr *h, uint64_t id)
{
	struct zc_pub_rec *pubs = (struct zc_pub_rec *)((char *)h + h->off_pubs);
	for (uint32_t i = 0; i < h->max_pubs; i++)
		if (atomic_load(&pubs[i].state) != ZC_REC_FREE && pubs[i].id == id)
			return &pubs[i];
	return NULL;
}

static inline _Atomic uint64_t *zt_ring(struct zc_topic_hdr *h, uint32_t k)
{
	return (_Atomic uint64_t *)((char *)h + h->off_rings) + (uint64_t)k * h->max_depth;
}

static inline struct zc_slot_hdr *zt_slot(struct zc_pool_hdr *ph, uint32_t i)
{
	return (struct zc_slot_hdr *)((char *)ph + sizeof *ph + (uint64_t)i * ph->slot_stride);
}

/* A child must have exited with status 0 within `ms`; a signal (SIGFPE, SIGSEGV ...) is a crash. */
static inline void zt_child_ok_within(pid_t pid, int ms, const char *what)
{
	int st = zt_wait_bounded(pid, ms, what);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "FAIL: %s: child %d killed by signal %d (%s)\n", what, (int)pid,
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		zt_fail();
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "FAIL: %s: child %d exited with status %d\n", what, (int)pid,
			WEXITSTATUS(st));
		zt_fail();
	}
}

/* Polls `cond` every 10 ms for at most `ms`; returns whether it became true. */
#define ZT_POLL(cond, ms)                                                                          \
	({                                                                                         \
		int _ok = 0;                                                                       \
		for (int _i = 0; _i <= (ms) / 10 && !(_ok = !!(cond)); _i++)                       \
			zt_sleep_ms(10);                                                           \
		_ok;                                                                               \
	})

/* Becomes uid/gid `id` for good (a child of a root test). Returns 0 or -1. */
static inline int zt_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
		return -1;
	return getuid() == uid && geteuid() == uid ? 0 : -1;
}

/* A memory figure of this process in KiB ("VmRSS", or "VmHWM" for the peak), or -1. */
static inline long zt_mem_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Fails unless `msg` contains `needle`. */
#define CHECK_MSG_HAS(msg, needle)                                                                 \
	do {                                                                                       \
		if (!strstr((msg), (needle))) {                                                    \
			fprintf(stderr, "%s:%d: error message \"%s\" does not mention \"%s\"\n",   \
				__FILE__, __LINE__, (msg), (needle));                              \
			zt_fail();                                                                 \
		}                                                                                  \
	} while (0)

/* Runs each case in its own child (its own watchdog of `timeout_s`), so that one failing or hanging
 * case does not hide the others. Returns 0 when every case passed, 1 otherwise. */
struct zt_case {
	const char *name;
	void (*fn)(void);
};

static inline int zt_run_cases(const struct zt_case *cases, int n, unsigned timeout_s)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		fflush(NULL);
		pid_t pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			zt_main_pid = getpid(); /* a failure here kills this case's children */
			zt_n_children = 0;
			signal(SIGALRM, zt_watchdog);
			alarm(timeout_s);
			cases[i].fn();
			fflush(NULL);
			_exit(0);
		}
		int st = zt_wait(pid);
		int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (WIFSIGNALED(st))
			printf("FAIL %s (killed by signal %d)\n", cases[i].name, WTERMSIG(st));
		else
			printf("%s %s\n", ok ? "ok" : "FAIL", cases[i].name);
		failed |= !ok;
		zt_cleanup();
	}
	return failed;
}

#define ZT_CASE(fn)                                                                                \
	{                                                                                          \
#fn, fn                                                                            \
	}

#endif
