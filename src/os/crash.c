/* Fault injection: ZCAST_CRASH_AT=<point>[:<n>] kills the process with SIGKILL the n-th time (default
 * first) it reaches that crash point; ZCAST_PAUSE_AT=<point>:<ms> sleeps there, to hold a race
 * window open. Compiled into test builds only (ZCAST_FAULT_INJECTION). */
#ifdef ZCAST_FAULT_INJECTION
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

/* Reached from signal handlers too: only getenv (the tests never change the environment while
 * they run) and nanosleep. */
void zc_pause_point(const char *name)
{
	const char *at = getenv("ZCAST_PAUSE_AT");
	if (!at)
		return;
	size_t n = strlen(name);
	if (strncmp(at, name, n) != 0 || at[n] != ':')
		return;
	long ms = 0;
	for (const char *c = at + n + 1; *c >= '0' && *c <= '9' && ms < 100000; c++)
		ms = ms * 10 + (*c - '0');
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}
#endif
