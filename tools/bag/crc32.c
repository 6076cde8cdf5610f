/* CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320), which MCAP uses for chunks, the data section
 * and the summary. On x86-64 with PCLMULQDQ, blocks of 16 bytes are folded with carry-less
 * multiplies (Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction", Intel 2009): about three times zlib's table code here (zcast-bench-crc), so the
 * recorder's CRC of every byte costs less than the kernel's copy (bench/record.sh). The rest, and
 * other machines, go through zlib. */
#include <zlib.h>

#include "bag.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_TARGET __attribute__((target("pclmul,sse4.1")))

/* x (128 bits of remainder) carried forward by the distance k stands for (512 bits: k1k2, 128
 * bits: k3k4) and added to the 16 bytes y found there. */
FOLD_TARGET static inline __m128i fold(__m128i x, __m128i k, __m128i y)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), y);
}

FOLD_TARGET static inline __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* n >= 64, a multiple of 16; c is the register value (the inverted CRC), and so is the result. */
FOLD_TARGET static uint32_t crc_fold(const uint8_t *p, size_t n, uint32_t c)
{
	/* x^(4*128+32), x^(4*128-32) mod P; x^(128+32), x^(128-32); x^64; P' and mu (bit-reflected). */
	const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);
	const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
	__m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)c));
	__m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) { /* four lanes, 512 bits apart */
		x1 = fold(x1, k1k2, load(p));
		x2 = fold(x2, k1k2, load(p + 16));
		x3 = fold(x3, k1k2, load(p + 32));
		x4 = fold(x4, k1k2, load(p + 48));
	}
	x1 = fold(x1, k3k4, x2); /* the lanes into one */
	x1 = fold(x1, k3k4, x3);
	x1 = fold(x1, k3k4, x4);
	for (; n >= 16; p += 16, n -= 16)
		x1 = fold(x1, k3k4, load(p));
	/* 128 -> 64 bits, 64 -> 32 bits, then Barrett reduction to the 32-bit remainder. */
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k3k4, 0x10));
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 4),
			   _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00));
	__m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), poly, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x1, t), 1);
}

static bool have_fold(void)
{
	static int known; /* 0: not asked yet, 1: yes, 2: no (a benign race: same answer) */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!k) {
		__builtin_cpu_init();
		k = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") ? 1 : 2;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 1;
}

uint32_t bag_crc32(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	if (!n) /* zlib answers a NULL buffer with the initial value */
		return crc;
	if (n >= 64 && have_fold()) {
		size_t m = n & ~(size_t)15;
		crc = ~crc_fold(p, m, ~crc);
		p += m;
		n -= m;
	}
	return (uint32_t)crc32_z(crc, p, n);
}
#else
uint32_t bag_crc32(uint32_t crc, const void *data, size_t n)
{
	return n ? (uint32_t)crc32_z(crc, data, n) : crc;
}
#endif

uint32_t bag_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
	return (uint32_t)crc32_combine(crc1, crc2, (z_off_t)len2);
}
