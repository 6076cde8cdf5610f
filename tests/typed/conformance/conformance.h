/* Conformance test: the index of a type in both translation units (order of CYC_TYPES). */
#ifndef ZT_CONFORMANCE_H
#define ZT_CONFORMANCE_H
#include <stdint.h>
/* 0, -1 when Cyclone's validation refuses the bytes. *out: malloc'd little-endian XCDR1 body. */
int cyc_reencode(unsigned type, const uint8_t *cdr, uint32_t size, uint8_t **out,
		 uint32_t *out_size);
#endif
