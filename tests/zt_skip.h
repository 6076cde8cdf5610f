/* A part of a test that cannot run here is never passed over silently: zt_skip_part() says which
 * part and why, and zt_status() turns the whole test into a skip (exit 77) at its end, so ctest
 * reports "Skipped" instead of "Passed" — what did run still had to pass. */
#ifndef ZT_SKIP_H
#define ZT_SKIP_H

#include <stdarg.h>

#include "harness.h"

static int zt_parts_skipped;

static inline void zt_skip_part(const char *part, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# SKIPPED %s: ", part);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	zt_parts_skipped++;
}

/* The test's exit status once everything that could run has passed. */
static inline int zt_status(void)
{
	if (zt_parts_skipped)
		printf("# %d part(s) skipped: reporting the test as skipped (77)\n",
		       zt_parts_skipped);
	return zt_parts_skipped ? ZT_SKIP : 0;
}

/* Waits for a child that ran test parts: exit 0 passed, 77 a part skipped (counted), else fail. */
static inline void zt_child_parts(pid_t pid)
{
	int st = zt_wait(pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == ZT_SKIP) {
		zt_parts_skipped++;
		return;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "child %d failed (status 0x%x)\n", (int)pid, st);
		zt_fail();
	}
}

#endif
