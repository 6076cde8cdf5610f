/* CHECK for the tests of tools/bag: a failed condition is printed with its place and counted in
 * `failures` (the test goes on, and fails at the end). */
#ifndef ZCAST_TEST_BAG_CHECK_H
#define ZCAST_TEST_BAG_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif
