/* Conformance against an independent encoder (Cyclone DDS 0.10.2): for every shipped and test type,
 * 10 000 random messages under random bounds (empty and maximal sequences, empty strings, bounded
 * strings at their bound, bool, char, a nested struct after a uint8, a float64[] count at 4 mod 8)
 * are written through our writer view and compacted; Cyclone accepts the bytes and its serializer
 * gives back exactly the same bytes, which our reader accepts and our copy path reproduces. */
#include <stdio.h>

#include "../../harness.h"
#include "../typed_util.h"
#include "conformance.h"

#include <builtin_interfaces/msg/Time.h>
#include <geometry_msgs/msg/Quaternion.h>
#include <geometry_msgs/msg/Vector3.h>
#include <sensor_msgs/msg/Image.h>
#include <sensor_msgs/msg/Imu.h>
#include <sensor_msgs/msg/PointCloud2.h>
#include <sensor_msgs/msg/PointField.h>
#include <std_msgs/msg/Empty.h>
#include <std_msgs/msg/Header.h>
#include <std_msgs/msg/String.h>
#include <zcast_test/msg/Corner.h>
#include <zcast_test/msg/Fixed.h>
#include <zcast_test/msg/Nested.h>

/* Same order as CYC_TYPES in cyclone_side.c. */
static const zcast_cdr_type *const types[] = {
    &builtin_interfaces_msg_Time_TYPE, &std_msgs_msg_Empty_TYPE,
    &std_msgs_msg_String_TYPE,	       &std_msgs_msg_Header_TYPE,
    &sensor_msgs_msg_Image_TYPE,       &sensor_msgs_msg_PointField_TYPE,
    &sensor_msgs_msg_PointCloud2_TYPE, &sensor_msgs_msg_Imu_TYPE,
    &geometry_msgs_msg_Vector3_TYPE,   &geometry_msgs_msg_Quaternion_TYPE,
    &zcast_test_msg_Corner_TYPE,       &zcast_test_msg_Nested_TYPE,
    &zcast_test_msg_Fixed_TYPE,
};

#define MESSAGES 10000

static void one_message(unsigned ti)
{
	const zcast_cdr_type *t = types[ti];
	uint32_t bounds[256] = {0};
	zt_rand_bounds(t, bounds, zt_rand() % 8 == 0 ? 200 : 9);
	size_t bsize;
	CHECK_EQ(zcast_cdr_bound_size(t, bounds, &bsize), 0);
	uint8_t *c = calloc(1, t->c_size);
	zt_rand_struct(t, bounds, c);
	uint8_t *raw;
	CHECK_EQ(posix_memalign((void **)&raw, 64, 8 + bsize), 0);
	uint8_t *base = raw + 8;
	raw[4] = 0, raw[5] = 1, raw[6] = 0, raw[7] = 0;
	uint32_t off[256], cap[256], k = 0;
	zcast_cdr_layout(t, bounds, base, off, cap);
	zcast_cdr_writer w = {base, bounds, (uint32_t)bsize};
	zt_put_struct(&w, t, c, off, cap, &k);
	size_t size;
	CHECK_EQ(zcast_cdr_compact(t, bounds, base, &size), 0);

	uint8_t *cyc;
	uint32_t cyc_size;
	int e = cyc_reencode(ti, base, (uint32_t)size, &cyc, &cyc_size);
	if (e != 0)
		fprintf(stderr, "%s: Cyclone refuses our encoding (%d)\n", t->name, e);
	CHECK_EQ(e, 0);
	if (cyc_size != size || memcmp(cyc, base, size) != 0) {
		fprintf(stderr, "%s: %zu bytes from us, %u from Cyclone\n", t->name, size,
			cyc_size);
		for (size_t i = 0; i < size && i < cyc_size; i++)
			if (cyc[i] != base[i]) {
				fprintf(stderr, "  offset %zu: ours %02x, Cyclone %02x\n", i,
					base[i], cyc[i]);
				break;
			}
		CHECK(0);
	}
	/* Cyclone's bytes through our reader and copy path. */
	uint8_t *in;
	CHECK_EQ(posix_memalign((void **)&in, 64, 8 + cyc_size), 0);
	memcpy(in + 4, raw + 4, 4);
	memcpy(in + 8, cyc, cyc_size);
	zcast_cdr_reader r;
	uint32_t roff[256], rlen[256];
	CHECK_EQ(zcast_cdr_read(t, in + 4, cyc_size + 4, &r, roff, rlen), 0);
	CHECK_EQ(r.end, cyc_size);
	uint8_t *back = malloc(t->c_size), *again = malloc(cyc_size + 4);
	CHECK_EQ(zcast_cdr_deserialize(t, in + 4, cyc_size + 4, back), 0);
	CHECK_EQ(zcast_cdr_serialize(t, back, again), cyc_size + 4);
	CHECK(memcmp(again + 4, cyc, cyc_size) == 0);
	zcast_cdr_free(t, back);
	free(back), free(again), free(in), free(cyc), free(raw);
	zcast_cdr_free(t, c);
	free(c);
}

static void test_byte_identical_to_cyclone_both_ways(void)
{
	for (unsigned ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		for (int i = 0; i < MESSAGES; i++)
			one_message(ti);
		printf("  %s: %d messages identical\n", types[ti]->name, MESSAGES);
	}
}

int main(void)
{
	zt_setup("typedconf", 600);
	RUN(test_byte_identical_to_cyclone_both_ways);
	return 0;
}
