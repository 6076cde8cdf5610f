/* The bridge tests' message content: a sensor_msgs/Image whose stamp.sec is the message's sequence
 * number (from 1) and whose data bytes are a function of that number, so a receiver checks every
 * byte of every message and the order without a side channel. */
#ifndef ZB_PATTERN_H
#define ZB_PATTERN_H
#include <stddef.h>
#include <stdint.h>

#define ZBP_FRAME "zb"
#define ZBP_ENCODING "mono8"
/* CDR bytes of an Image with these strings, header included, before the data bytes. */
#define ZBP_OVERHEAD 48u

static inline void zbp_fill(uint8_t *d, size_t n, uint32_t seq)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seq + 1);
	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		d[i] = (uint8_t)(x >> (8 * (i % 8)));
	}
}

/* 1 if d holds the pattern of seq. */
static inline int zbp_check(const uint8_t *d, size_t n, uint32_t seq)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seq + 1);
	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (d[i] != (uint8_t)(x >> (8 * (i % 8))))
			return 0;
	}
	return 1;
}

/* Received-sequence bookkeeping shared by both peers. */
struct zbp_tally {
	uint64_t received, bad, dup_or_reordered;
	uint32_t first, last;
};

static inline void zbp_count(struct zbp_tally *t, uint32_t seq, int intact)
{
	if (!intact)
		t->bad++;
	if (t->received && seq <= t->last)
		t->dup_or_reordered++;
	if (!t->received)
		t->first = seq;
	t->last = seq;
	t->received++;
}
#endif
