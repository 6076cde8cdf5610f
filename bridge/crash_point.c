/* Fault injection for the bridge's own steps, as the library's (docs/CRASH_SAFETY.md, "Crash
 * points"): ZCAST_CRASH_AT=<point>[:<n>] kills the bridge with SIGKILL the n-th time it reaches a
 * bridge point of that name; the library's points take the same variable. ZCAST_BRIDGE_DELAY=
 * <point>:<ms> holds the thread that reaches the point the first time for <ms> (a thread starved
 * at that step). Built in test builds only (ZCAST_FAULT_INJECTION; ZB_CRASH and ZB_DELAY are empty
 * otherwise). */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

void zb_delay_point(const char *name)
{
	static _Atomic int done;
	const char *at = getenv("ZCAST_BRIDGE_DELAY");
	size_t n = strlen(name);
	if (!at || strncmp(at, name, n) != 0 || at[n] != ':' || atomic_exchange(&done, 1))
		return;
	long ms = atol(at + n + 1);
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}
