/* CRC-32 speed of the recorder (tools/bag/crc32.c) against zlib's, and memcpy for scale, over a
 * 1 MiB buffer (the recorder's message size in bench/record.sh), 500 passes each.
 * Usage: zcast-bench-crc   Prints GB/s of each. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "bag.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	const size_t n = 1u << 20;
	const int passes = 500;
	unsigned char *a = malloc(n), *b = malloc(n);
	if (!a || !b)
		return 1;
	for (size_t i = 0; i < n; i++)
		a[i] = (unsigned char)(i * 131 + (i >> 8));
	unsigned sink = 0;
	double t0 = now();
	for (int i = 0; i < passes; i++)
		sink ^= bag_crc32(0, a, n);
	double t1 = now();
	for (int i = 0; i < passes; i++)
		sink ^= (unsigned)crc32_z(0, a, n);
	double t2 = now();
	for (int i = 0; i < passes; i++) {
		memcpy(b, a, n);
		sink ^= b[(size_t)i % n];
	}
	double t3 = now(), gb = (double)n * passes / 1e9;
	printf("bag_crc32 %.2f GB/s, zlib crc32_z %.2f GB/s, memcpy %.2f GB/s (%u)\n", gb / (t1 - t0),
	       gb / (t2 - t1), gb / (t3 - t2), sink & 1);
	free(a);
	free(b);
	return 0;
}
