/* Tests that hold a race window open with ZCAST_PAUSE_AT (test builds): is a process's main thread
 * asleep in that pause right now? */
#ifndef ZT_PAUSE_H
#define ZT_PAUSE_H

#include <stdbool.h>

#include "harness.h"

/* The pause sleeps in nanosleep (clock_nanosleep on x86-64 is syscall 230, nanosleep 35). */
static inline bool zt_in_pause(pid_t pid)
{
	char path[64], buf[64] = {0};
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool yes = fgets(buf, sizeof buf, f) &&
		   (strncmp(buf, "230 ", 4) == 0 || strncmp(buf, "35 ", 3) == 0);
	fclose(f);
	return yes;
}

#endif
