/* The zcast tool a test runs: $ZCAST_TOOL, or tools/zcast of the build tree the test lives in. */
#ifndef ZT_TOOL_H
#define ZT_TOOL_H

#include <libgen.h>

#include "harness.h"

/* Fills tool (room: n) with the tool's path; fails the test when there is none. */
static inline void zt_tool_path(char *tool, size_t n)
{
	const char *env = getenv("ZCAST_TOOL");
	if (env) {
		snprintf(tool, n, "%s", env);
	} else {
		char self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
		CHECK(len > 0);
		self[len] = 0;
		snprintf(tool, n, "%s/../tools/zcast", dirname(self));
	}
	if (access(tool, X_OK) != 0) {
		fprintf(stderr, "FAIL: no zcast tool at %s (set ZCAST_TOOL)\n", tool);
		zt_fail();
	}
}

#endif
