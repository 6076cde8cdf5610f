/* CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, as zlib), which MCAP uses for chunks, the
 * data section and the summary. A table of 8 x 256 entries (slicing by 8): the recorder checksums
 * every byte it writes. */
#include <pthread.h>

#include "bag.h"

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = table[0][table[t - 1][i] & 0xff] ^ (table[t - 1][i] >> 8);
}

uint32_t bag_crc32(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&table_once, make_table);
	const uint8_t *p = data;
	crc = ~crc;
	while (n >= 8) {
		uint32_t lo = crc ^ bag_le32(p), hi = bag_le32(p + 4);
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
