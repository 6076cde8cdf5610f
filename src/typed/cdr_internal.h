/* Helpers shared by the CDR reader, writer and copy path (include/zcast/cdr.h). */
#ifndef ZCAST_CDR_INTERNAL_H
#define ZCAST_CDR_INTERNAL_H

#include <zcast/cdr.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zcast typed messages are little-endian CDR read in place: a little-endian host is required"
/* Largest alignment of any value in t (1 for a type of bytes). */
uint32_t zc_cdr_max_align(const zcast_cdr_type *t) __attribute__((visibility("hidden")));

#endif

/* Largest CDR message we lay out or accept: offsets are uint32 and sizes stay far from overflow. */
#define ZC_CDR_MAX ((uint64_t)1 << 31)

static inline uint64_t zc_cdr_align(uint64_t x, uint32_t a)
{
	return (x + a - 1) & ~(uint64_t)(a - 1);
}

static inline uint32_t zc_cdr_load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline void zc_cdr_store32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* End offset of one message of type t laid out at `bounds` from pos (no memory touched). */
uint64_t zc_cdr_bound_end(const zcast_cdr_type *t, const uint32_t *bounds, uint64_t pos)
    __attribute__((visibility("hidden")));

/* Largest alignment of any value in t (1 for a type of bytes). */
uint32_t zc_cdr_max_align(const zcast_cdr_type *t) __attribute__((visibility("hidden")));

#endif
