/* Fault injection for the bridge's own steps, as the library's (docs/CRASH_SAFETY.md, "Crash
 * points"): ZCAST_CRASH_AT=<point>[:<n>] kills the bridge with SIGKILL the n-th time it reaches a
 * bridge point of that name; the library's points take the same variable. Built in test builds only
 * (ZCAST_FAULT_INJECTION; ZB_CRASH is empty otherwise). */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void zb_crash_point(const char *name)
{
	static _Atomic long hits;
	const char *at = getenv("ZCAST_CRASH_AT");
	size_t n = strlen(name);
	if (!at || strncmp(at, name, n) != 0 || (at[n] && at[n] != ':'))
		return;
	long nth = at[n] ? atol(at + n + 1) : 1;
	if (atomic_fetch_add(&hits, 1) + 1 >= nth)
		kill(getpid(), SIGKILL);
}
