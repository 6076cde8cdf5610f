/* Randomized round trips under random bounds: a message written through a writer view laid out at
 * its bounds, compacted in place, is byte for byte what the copy path serializes, reads back
 * through the reader view, never touches a byte outside the loan, and every truncation of it is
 * refused. */
#include <stdio.h>

#include "../harness.h"
#include "typed_util.h"

#include <builtin_interfaces/msg/Time.h>
#include <sensor_msgs/msg/Image.h>
#include <sensor_msgs/msg/Imu.h>
#include <sensor_msgs/msg/PointCloud2.h>
#include <std_msgs/msg/Empty.h>
#include <std_msgs/msg/Header.h>
#include <std_msgs/msg/String.h>
#include <zcast_test/msg/Corner.h>
#include <zcast_test/msg/Fixed.h>
#include <zcast_test/msg/Nested.h>

#define GUARD 64

static const zcast_cdr_type *const types[] = {
    &builtin_interfaces_msg_Time_TYPE, &std_msgs_msg_Empty_TYPE,
    &std_msgs_msg_String_TYPE,	       &std_msgs_msg_Header_TYPE,
    &sensor_msgs_msg_Image_TYPE,       &sensor_msgs_msg_PointCloud2_TYPE,
    &sensor_msgs_msg_Imu_TYPE,	       &zcast_test_msg_Corner_TYPE,
    &zcast_test_msg_Nested_TYPE,       &zcast_test_msg_Fixed_TYPE,
};

/* One round trip; returns the compacted size. all_at_bound: every length equals its bound. */
static size_t round_trip(const zcast_cdr_type *t, const uint32_t *bounds, int check_truncations)
{
	size_t bsize;
	CHECK_EQ(zcast_cdr_bound_size(t, bounds, &bsize), 0);
	uint8_t *c = calloc(1, t->c_size);
	zt_rand_struct(t, bounds, c);

	/* Loan-like buffer: guard, 4 reserved + 4 header bytes, the bound layout, guard. */
	uint8_t *raw;
	CHECK_EQ(posix_memalign((void **)&raw, 64, GUARD + 8 + bsize + GUARD), 0);
	memset(raw, 0xa5, GUARD + 8 + bsize + GUARD);
	uint8_t *hdr = raw + GUARD + 4, *base = hdr + 4;
	hdr[0] = 0, hdr[1] = 1, hdr[2] = 0, hdr[3] = 0;
	uint32_t off[256], cap[256], k = 0;
	CHECK(t->n_flat <= 256);
	zcast_cdr_layout(t, bounds, base, off, cap);
	zcast_cdr_writer w = {base, bounds, (uint32_t)bsize};
	zt_put_struct(&w, t, c, off, cap, &k);
	CHECK_EQ(k, t->n_flat);

	size_t size;
	CHECK_EQ(zcast_cdr_compact(t, bounds, base, &size), 0);
	CHECK(size <= bsize);
	for (size_t i = 0; i < GUARD; i++) /* nothing outside [base, base + bound size) changed */
		CHECK(raw[i] == 0xa5 && base[bsize + i] == 0xa5);

	/* The copy path gives the same bytes. */
	size_t want = zcast_cdr_serialized_size(t, c);
	CHECK_EQ(size, want);
	uint8_t *ser = malloc(want + 4);
	CHECK_EQ(zcast_cdr_serialize(t, c, ser), want + 4);
	CHECK(memcmp(ser, hdr, want + 4) == 0);

	/* Reader view and deserialization give the message back. */
	zcast_cdr_reader r;
	uint32_t roff[256], rlen[256];
	CHECK_EQ(zcast_cdr_read(t, hdr, size + 4, &r, roff, rlen), 0);
	CHECK_EQ(r.end, size);
	uint8_t *back = malloc(t->c_size);
	CHECK_EQ(zcast_cdr_deserialize(t, hdr, size + 4, back), 0);
	uint8_t *again = malloc(want + 4);
	CHECK_EQ(zcast_cdr_serialize(t, back, again), want + 4);
	CHECK(memcmp(again, ser, want + 4) == 0);
	zcast_cdr_free(t, back);

	/* Hostile input: no truncation of the message is accepted, none is read past its end. */
	if (check_truncations)
		for (size_t n = 0; n < size + 4; n++) {
			uint8_t *cut;
			CHECK_EQ(posix_memalign((void **)&cut, 64, n + 8), 0);
			memcpy(cut + 4, hdr, n);
			CHECK(zcast_cdr_read(t, cut + 4, n, &r, roff, rlen) < 0);
			free(cut);
		}
	free(again), free(back), free(ser), free(raw);
	zcast_cdr_free(t, c);
	free(c);
	return size;
}

static void test_random_round_trips_under_random_bounds(void)
{
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		const zcast_cdr_type *t = types[ti];
		uint32_t bounds[256] = {0};
		for (int i = 0; i < 1500; i++) {
			zt_rand_bounds(t, bounds, i % 10 == 0 ? 300 : 12);
			round_trip(t, bounds, i < 40);
		}
	}
}

/* A message with every member at its bound compacts without moving anything: size = bound size. */
static void test_all_at_bound_moves_nothing(void)
{
	const zcast_cdr_type *t = &sensor_msgs_msg_Image_TYPE;
	sensor_msgs_msg_Image_bounds b = {.header = {.frame_id = 5}, .encoding = 4, .data = 32};
	size_t bsize;
	CHECK_EQ(zcast_cdr_bound_size(t, &b, &bsize), 0);
	uint8_t *raw;
	CHECK_EQ(posix_memalign((void **)&raw, 64, 8 + bsize), 0);
	memset(raw, 0xdd, 8 + bsize); /* a reused slot holds anything */
	uint8_t *base = raw + 8;
	sensor_msgs_msg_Image_writer w = {{base, (const uint32_t *)&b, (uint32_t)bsize}, {0}, {0}};
	zcast_cdr_layout(t, (const uint32_t *)&b, base, w.off, w.cap);
	CHECK_EQ(sensor_msgs_msg_Image_w_header_frame_id_set(&w, "cam_0"), 0);
	CHECK_EQ(sensor_msgs_msg_Image_w_encoding_set(&w, "mono"), 0);
	CHECK_EQ(sensor_msgs_msg_Image_w_encoding_set(&w, "mono16"),
		 ZCAST_EINVAL); /* above its bound */
	uint32_t cap;
	uint8_t *px = sensor_msgs_msg_Image_w_data(&w, &cap);
	CHECK_EQ(cap, 32);
	for (uint32_t i = 0; i < cap; i++)
		px[i] = (uint8_t)i;
	CHECK_EQ(sensor_msgs_msg_Image_w_data_set_len(&w, 33), ZCAST_EINVAL);
	CHECK_EQ(sensor_msgs_msg_Image_w_data_set_len(&w, 32), 0);
	uint8_t *copy = malloc(bsize);
	memcpy(copy, base, bsize);
	size_t size;
	CHECK_EQ(zcast_cdr_compact(t, (const uint32_t *)&b, base, &size), 0);
	CHECK_EQ(size, bsize);
	CHECK(memcmp(copy, base, bsize) == 0);
	free(copy), free(raw);
}

/* Bounds above a declared bound are refused, naming the member. */
static void test_bounds_above_declared_bounds_are_refused(void)
{
	zcast_test_msg_Corner_bounds b = {0};
	size_t size;
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_msg_Corner_TYPE, &b, &size), 0);
	b.short_name = 9; /* string<=8 */
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_msg_Corner_TYPE, &b, &size), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "short_name") != NULL);
	b.short_name = 8, b.few = 5; /* uint32[<=4] */
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_msg_Corner_TYPE, &b, &size), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "few") != NULL);
	b.few = 4, b.pfs.elem.name = 1000, b.pfs.count = 4; /* PointField[<=3] */
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_msg_Corner_TYPE, &b, &size), ZCAST_EINVAL);
	CHECK_EQ(zcast_cdr_bound_size(&sensor_msgs_msg_Image_TYPE, NULL, &size), ZCAST_EINVAL);
}

/* Where the corner cases land: a Time after a uint8 at 4, the float64[] count at 12 (= 4 mod 8)
 * and its values at 16, all naturally aligned in memory. */
static void test_corner_offsets_are_naturally_aligned(void)
{
	zcast_test_msg_Corner_bounds b = {.values = 3};
	size_t bsize;
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_msg_Corner_TYPE, &b, &bsize), 0);
	uint8_t *raw;
	CHECK_EQ(posix_memalign((void **)&raw, 64, 8 + bsize), 0);
	zcast_test_msg_Corner_writer w = {
	    {raw + 8, (const uint32_t *)&b, (uint32_t)bsize}, {0}, {0}};
	zcast_cdr_layout(&zcast_test_msg_Corner_TYPE, w.w.bounds, w.w.base, w.off, w.cap);
	CHECK_EQ(w.off[1], 4);	/* after_uint8.sec */
	CHECK_EQ(w.off[3], 12); /* values: count prefix */
	uint32_t cap;
	double *v = zcast_test_msg_Corner_w_values(&w, &cap);
	CHECK_EQ((uintptr_t)v % 8, 0);
	CHECK_EQ((uint8_t *)v - w.w.base, 16);
	v[0] = 1.5, v[1] = -2.0;
	CHECK_EQ(zcast_test_msg_Corner_w_values_set_len(&w, 2), 0);
	zcast_test_msg_Corner_w_small_set(&w, 7);
	zcast_test_msg_Corner_w_after_uint8_sec_set(&w, -3);
	size_t size;
	CHECK_EQ(zcast_cdr_compact(&zcast_test_msg_Corner_TYPE, w.w.bounds, w.w.base, &size), 0);
	raw[4] = 0, raw[5] = 1, raw[6] = 0, raw[7] = 0;
	zcast_test_msg_Corner_reader r;
	CHECK_EQ(zcast_test_msg_Corner_read(&r, raw + 4, size + 4), 0);
	CHECK_EQ(zcast_test_msg_Corner_small(&r), 7);
	CHECK_EQ(zcast_test_msg_Corner_after_uint8_sec(&r), -3);
	uint32_t n;
	const double *rv = zcast_test_msg_Corner_values(&r, &n);
	CHECK(n == 2 && rv[0] == 1.5 && rv[1] == -2.0);
	CHECK_EQ(zcast_test_msg_Corner_ANSWER, 42);
	free(raw);
}

int main(void)
{
	zt_setup("typedrt", 600);
	RUN(test_corner_offsets_are_naturally_aligned);
	RUN(test_all_at_bound_moves_nothing);
	RUN(test_bounds_above_declared_bounds_are_refused);
	RUN(test_random_round_trips_under_random_bounds);
	return 0;
}
