/* The OS layer of libzcast (src/os): compiler helpers, errors, time, shared-memory files and OFD
 * locks, threads, futexes (one word or many). Uses nothing of zcast but the public header. */
#ifndef ZC_OS_INTERNAL_H
#define ZC_OS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <sys/stat.h>

#include "zcast/zcast.h"

#define ZC_HIDDEN __attribute__((visibility("hidden")))

/* ThreadSanitizer sees the synchronisation of one process only. A slot handed from a reader in this
 * process to a writer in this process through another process (it clears the last holder bit and
 * frees the slot) looks like a race to it: the release of the bit and the acquire of the loan are
 * told to it explicitly, on the slot's state word. */
#if defined(__SANITIZE_THREAD__)
#define ZC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZC_TSAN 1
#endif
#endif
#ifdef ZC_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ZC_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define ZC_TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define ZC_TSAN_ACQUIRE(p) ((void)0)
#define ZC_TSAN_RELEASE(p) ((void)0)
#endif
#define ZC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* A function of the per-message path (loan, publish, take, release, waits). gcc places these side
 * by side (.text.hot): a process woken for a message then runs code from a few pages instead of a
 * dozen, and each page is a TLB miss after a context switch (docs/BENCHMARKS.md, "Hot code on
 * few pages"). */
#define ZC_HOT __attribute__((hot))
/* One load of a field another process (or another handle of ours, through the same mapping) may
 * write. A plain load of shared memory may be repeated by the compiler (it assumes nobody else
 * writes it), which turns a checked copy back into a second read: every field of another process's
 * that we copy, check and use goes through this. */
#define ZC_READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Its counterpart: a plain field that others may read while we write it (a relaxed atomic store,
 * so the write is one store and the pair is no data race; ordering comes from the state words). */
#define ZC_WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline void zc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Starts fetching the cache line of p for writing, without waiting for it. gcc emits a read
 * prefetch for __builtin_prefetch(p, 1) unless the target has PRFCHW, and a read prefetch leaves
 * the later write to pay for taking the line from the other cores; PREFETCHW is a hint (a NOP
 * where unsupported). */
static inline void zc_prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}

/* ---- errors (error.c) ---- */
/* Records a detailed message for zcast_last_error() and returns `code`. */
ZC_HIDDEN int zc_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ZC_HIDDEN int zc_errno(int code, const char *what); /* appends strerror(errno) */
/* Clears this thread's message: a call that fails softly (EAGAIN) leaves no stale text. */
ZC_HIDDEN void zc_err_clear(void);
#define ZCAST_EEXIST_ (-100) /* internal: O_EXCL found the file */

/* ---- time (clock.c) ---- */
ZC_HIDDEN int64_t zc_now_ns(void);
ZC_HIDDEN struct timespec zc_ts(int64_t ns);
/* t + ns for ns >= 0, saturated at INT64_MAX: a huge timeout or period means "not in our time",
 * never a wrap into the past. */
ZC_HIDDEN int64_t zc_after(int64_t t, int64_t ns);

/* ---- crash points for fault injection (crash.c); compiled in test builds only ---- */
#ifdef ZCAST_FAULT_INJECTION
ZC_HIDDEN void zc_crash_point(const char *name);
ZC_HIDDEN void zc_pause_point(const char *name);
#define ZC_CRASH(name) zc_crash_point(name)
#define ZC_PAUSE(name) zc_pause_point(name)
#else
#define ZC_CRASH(name) ((void)0)
#define ZC_PAUSE(name) ((void)0)
#endif

/* ---- segments, descriptors and OFD locks (shm.c) ---- */
/* Opens (or with O_CREAT|O_EXCL creates) a /dev/shm segment and registers the descriptor for the
 * fork rule before anyone can fork: a forked child closes it (a child must not keep a killed
 * parent's OFD locks alive). Returns fd, or ZCAST_ENOENT / ZCAST_EEXIST_ / ZCAST_EPERM /
 * ZCAST_ENOMEM (no memory, inodes or descriptors) / ZCAST_ESYS. Close with zc_fd_close. */
ZC_HIDDEN int zc_fd_open(const char *name, int flags, unsigned mode);
/* Whether zc_fd_open's result r (read at once, errno intact) means "permission denied", not a
 * file of the wrong type (also ZCAST_EPERM, with its own message). */
ZC_HIDDEN bool zc_open_denied(int r);
ZC_HIDDEN void zc_fd_close(int fd);
/* Creates an exclusive new segment of `size` bytes with exactly `mode`, sized with posix_fallocate
 * (ZCAST_ENOMEM naming the free space if /dev/shm cannot hold it). Returns fd, ZCAST_EAGAIN if it
 * exists, or a negative code. `held`: an exclusive OFD lock on byte 0 is taken the moment the file
 * exists, before it is sized, so whoever finds the file half made sees it held (a topic being
 * created, not a leftover: zcast_topic_stat.in_use); ZCAST_EAGAIN when another opener locked it
 * first (it then owns the rebuild). */
ZC_HIDDEN int zc_shm_create(const char *name, size_t size, unsigned mode, bool held);
/* Decides whether an existing segment may be trusted (fstat): a regular file, owned by this uid,
 * root, or — when `mode` (the caller's topic.mode) grants a group — by someone whose file carries a
 * group of ours; and writable by nobody beyond what `mode` allows. ZCAST_EPERM naming owner and
 * mode. */
ZC_HIDDEN int zc_shm_check(int fd, const char *what, unsigned mode, struct stat *st);
ZC_HIDDEN bool zc_in_group(gid_t gid);
ZC_HIDDEN void *zc_map(int fd, size_t size, off_t off, bool writable, bool populate);
/* OFD byte locks. Return 0, or ZCAST_EAGAIN when another open file description holds it. */
ZC_HIDDEN int zc_ofd_lock(int fd, off_t byte, bool exclusive);
ZC_HIDDEN int zc_ofd_unlock(int fd, off_t byte);
/* True when some open file description other than fd's holds a lock on `byte`. */
ZC_HIDDEN bool zc_ofd_held(int fd, off_t byte);
/* True when another open file description holds `byte` exclusively (a creator, a remover). */
ZC_HIDDEN bool zc_ofd_held_exclusive(int fd, off_t byte);
/* Creates a library thread with every signal blocked: a program that blocks signals for signalfd
 * after its first zcast call must not lose them to a zcast thread. */
ZC_HIDDEN int zc_thread_start(void *(*fn)(void *), void *arg, pthread_t *th, bool detached);

/* ---- futex (futex.c) ---- */
/* Waits while *w == val, until abs_deadline_ns (CLOCK_MONOTONIC; < 0 = forever). Shared futex. */
ZC_HIDDEN int zc_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns);
ZC_HIDDEN void zc_futex_wake(_Atomic uint32_t *w, int n);
/* The same on a process-local word (FUTEX_PRIVATE_FLAG): guards, helper handshakes, local mutexes. */
ZC_HIDDEN int zc_futex_wait_private(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns);
ZC_HIDDEN void zc_futex_wake_private(_Atomic uint32_t *w, int n);

/* Bumped by the atfork child handler (shm.c). A handle opened before the fork is dead in the child:
 * its mappings are MADV_DONTFORK (absent) and its descriptors closed, so it may only be let go of. */
ZC_HIDDEN extern _Atomic unsigned zc_fork_generation;

/* ---- waiting on many futex words (multiwait.c) ---- */

/* One word to sleep on while it still holds `val`. Shared words live in topic segments; private
 * words (guards, helper handshakes) are process-local and use FUTEX_PRIVATE_FLAG. */
struct zc_wword {
	_Atomic uint32_t *word;
	uint32_t val;
	uint32_t is_private;
};

/* futex_waitv takes at most 128 words. Beyond that, chunk c > 0 is watched by helper thread c, which
 * bumps `fired` (a word the caller's own futex_waitv includes) when one of its words changes. */
#define ZC_WAITV_MAX 128u
#define ZC_CHUNK (ZC_WAITV_MAX - 1u) /* one slot of every waitv is the handshake word */

struct zc_mw_helper;
struct zc_mwait {
	pthread_mutex_t mu;        /* guards words/n_words/n_helpers as seen by helpers */
	_Atomic uint32_t round;    /* private futex: odd = a wait is in progress, even = idle */
	_Atomic uint32_t fired;    /* private futex: a helper saw one of its words change */
	_Atomic uint32_t quit;
	struct zc_wword *words;    /* snapshot of the current round, under mu */
	uint32_t n_words, cap_words;
	struct zc_mw_helper **helpers; /* each allocated once: threads keep a pointer */
	uint32_t n_helpers, cap_helpers;
};

ZC_HIDDEN void zc_mwait_init(struct zc_mwait *mw);
/* Stops and joins the helper threads. */
ZC_HIDDEN void zc_mwait_fini(struct zc_mwait *mw);
/* Sleeps until one of the words no longer holds its value, a wake-up, a signal, or
 * abs_deadline_ns (CLOCK_MONOTONIC; < 0 = none). Returns 0 (re-check the conditions),
 * ZCAST_ETIMEDOUT, or a negative error. Spurious returns are allowed; lost wake-ups are not. */
ZC_HIDDEN int zc_mwait_wait(struct zc_mwait *mw, const struct zc_wword *w, uint32_t n,
			    int64_t abs_deadline_ns);
/* The same for at most ZC_WAITV_MAX words, with no helper threads (so no zc_mwait): a lock wait
 * that also ends when its caller calls it off. */
ZC_HIDDEN int zc_wait_words(const struct zc_wword *w, uint32_t n, int64_t abs_deadline_ns);
/* True when futex_waitv is usable (probed once; $ZCAST_NO_FUTEX_WAITV=1 forces the fallback). */
ZC_HIDDEN bool zc_waitv_available(void);


#endif
