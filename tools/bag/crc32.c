/* CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320), which MCAP uses for chunks, the data section
 * and the summary: zlib's, which is about twice as fast here as a slicing-by-8 table of our own
 * (the recorder checksums every byte it writes; bench/record.sh). */
#include <zlib.h>

#include "bag.h"

uint32_t bag_crc32(uint32_t crc, const void *data, size_t n)
{
	return (uint32_t)crc32_z(crc, data, n);
}

uint32_t bag_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
	return (uint32_t)crc32_combine(crc1, crc2, (z_off_t)len2);
}
