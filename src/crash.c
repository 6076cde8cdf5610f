/* Fault injection: ZCAST_CRASH_AT=<point>[:<n>] kills the process with SIGKILL the n-th time (default
 * first) it reaches that crash point. Compiled into test builds only (ZCAST_FAULT_INJECTION). */
#ifdef ZCAST_FAULT_INJECTION
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

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
#endif
