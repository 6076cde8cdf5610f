/* bag_crc32 (folded with PCLMULQDQ where the CPU has it) against zlib's CRC-32 at every length up
 * to 1100 bytes, at every alignment of 16, split at odd places (a running CRC), and over 1 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "bag.h"

static int failures;

static void check(const uint8_t *p, size_t n, uint32_t got, const char *what)
{
	uint32_t want = (uint32_t)crc32_z(0, p, n);
	if (got != want && failures++ < 10)
		fprintf(stderr, "FAIL: %s, %zu bytes at +%zu: %08x, zlib %08x\n", what, n,
			(size_t)((uintptr_t)p & 15), got, want);
}

int main(void)
{
	size_t big = 1u << 20;
	uint8_t *buf = malloc(big + 64);
	if (!buf)
		return 1;
	srand(7);
	for (size_t i = 0; i < big + 64; i++)
		buf[i] = (uint8_t)rand();
	for (size_t n = 0; n <= 1100; n++)
		for (size_t a = 0; a < 16; a++)
			check(buf + a, n, bag_crc32(0, buf + a, n), "whole");
	for (size_t n = 64; n <= 1100; n += 37)
		for (size_t cut = 0; cut <= n; cut += 13) {
			uint32_t c = bag_crc32(bag_crc32(0, buf + 3, cut), buf + 3 + cut, n - cut);
			check(buf + 3, n, c, "in two parts");
		}
	check(buf + 1, big, bag_crc32(0, buf + 1, big), "1 MiB");
	uint8_t zeros[256] = {0}, ones[256];
	for (size_t i = 0; i < sizeof ones; i++)
		ones[i] = 0xff;
	check(zeros, sizeof zeros, bag_crc32(0, zeros, sizeof zeros), "zeros");
	check(ones, sizeof ones, bag_crc32(0, ones, sizeof ones), "ones");
	free(buf);
	if (failures)
		return 1;
	printf("bag_crc32 equals zlib's CRC-32: ok\n");
	return 0;
}
