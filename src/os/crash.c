/* Fault injection: ZCAST_CRASH_AT=<point>[:<n>] kills the process with SIGKILL the n-th time (default
 * first) it reaches that crash point; ZCAST_PAUSE_AT=<point>:<ms> sleeps there, to hold a race
 * window open; ZCAST_PAUSE_AT=<point>:hold:<fd>[:<tid>] holds it open until the test lets go
 * (below).
 * Compiled into test builds only (ZCAST_FAULT_INJECTION). */
#ifdef ZCAST_FAULT_INJECTION
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "os_internal.h"

static _Atomic long hits;

void zc_crash_point(const char *name)
{
	const char *at = getenv("ZCAST_CRASH_AT");
	if (!at)
		return;
	size_t n = strlen(name);
	if (strncmp(at, name, n) != 0 || (at[n] != 0 && at[n] != ':'))
		return;
	long want = at[n] == ':' ? strtol(at + n + 1, NULL, 10) : 1;
	if (atomic_fetch_add(&hits, 1) + 1 >= want)
		kill(getpid(), SIGKILL);
}

static _Atomic int held_once;

/* The first arrival at the point (of any thread) says so with one byte on `fd`, a socket the test
 * holds the other end of, and stays until a byte comes back or the test's end closes. A timed
 * pause is a window that load can close before the test is done with it (owed_wake_live failed
 * so); this one ends only when the test says. Later arrivals pass: the process goes on normally. */
static void hold(int fd)
{
	if (atomic_exchange(&held_once, 1))
		return;
	int saved = errno; /* a signal handler's caller keeps its errno */
	char c = 1;
	while (write(fd, &c, 1) < 0 && errno == EINTR)
		;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	errno = saved;
}

static long digits(const char *c)
{
	long v = 0;
	for (; *c >= '0' && *c <= '9' && v < 100000; c++)
		v = v * 10 + (*c - '0');
	return v;
}

/* Reached from signal handlers too: only getenv (the tests never change the environment while
 * they run), nanosleep, read and write. */
void zc_pause_point(const char *name)
{
	const char *at = getenv("ZCAST_PAUSE_AT");
	if (!at)
		return;
	size_t n = strlen(name);
	if (strncmp(at, name, n) != 0 || at[n] != ':')
		return;
	if (strncmp(at + n + 1, "hold:", 5) == 0) {
		const char *fd = at + n + 6, *tid = fd;
		while (*tid >= '0' && *tid <= '9')
			tid++;
		/* ":<tid>": only that thread is held. A process's own threads (its death watcher) take
		 * the same locks as the code under test; the first of them at the point would be held
		 * instead, and the test would forge or time a window around the wrong thread. */
		if (*tid == ':' && digits(tid + 1) != (long)syscall(SYS_gettid))
			return;
		hold((int)digits(fd));
		return;
	}
	long ms = digits(at + n + 1);
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}
#endif
