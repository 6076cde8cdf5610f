/* Typed correctness (issue 25): declared .msg defaults in loans and the copy path, constants at the
 * int64/uint64 extremes (this file is built with -Werror), messages followed by bytes the
 * encapsulation does not allow, a bad encapsulation id, and errors naming the member path. */
#include "../harness.h"

#include <stdint.h>

#include <geometry_msgs/msg/Quaternion.h>
#include <sensor_msgs/msg/Image.h>
#include <sensor_msgs/msg/Imu.h>
#include <sensor_msgs/msg/PointCloud2.h>
#include <zcast_test/msg/Defaults.h>

_Static_assert(zcast_test_msg_Defaults_I64_MAX == INT64_MAX, "int64 max");
_Static_assert(zcast_test_msg_Defaults_I64_MIN == INT64_MIN, "int64 min");
_Static_assert(zcast_test_msg_Defaults_U64_MAX == UINT64_MAX, "uint64 max");
_Static_assert(zcast_test_msg_Defaults_I32_MIN == INT32_MIN, "int32 min");

typedef zcast_test_msg_Defaults Defaults;

static bool str_is(zcast_cdr_str s, const char *want)
{
	return s.len == strlen(want) && !memcmp(s.data, want, s.len);
}

static void check_quaternion_plain(const geometry_msgs_msg_Quaternion *q)
{
	CHECK(q->x == 0.0 && q->y == 0.0 && q->z == 0.0 && q->w == 1.0);
}

/* The plain struct's defaults (zcast_cdr_init through the generated _init). */
static void check_plain(const Defaults *m)
{
	CHECK_EQ(m->a, -5);
	CHECK(m->f == 0.1f && m->d == 2.5 && m->flag);
	CHECK(m->big == INT64_MIN && m->huge == UINT64_MAX);
	CHECK(m->arr[0] == 1 && m->arr[1] == 2 && m->arr[2] == 3);
	CHECK(str_is(m->name, "hi") && str_is(m->tag, "abcd"));
	CHECK_EQ(m->seq.len, 2);
	CHECK(((const int16_t *)m->seq.data)[0] == 7 && ((const int16_t *)m->seq.data)[1] == 8);
	CHECK(str_is(m->names[0], "x") && str_is(m->names[1], "yz"));
	CHECK_EQ(m->more.len, 2);
	CHECK(str_is(((const zcast_cdr_str *)m->more.data)[0], "a,b"));
	CHECK(str_is(((const zcast_cdr_str *)m->more.data)[1], "c"));
	CHECK_EQ(m->plain, 0);
	check_quaternion_plain(&m->q);
	check_quaternion_plain(&m->qs[0]);
	check_quaternion_plain(&m->qs[1]);
}

static void test_constants(void)
{
	CHECK(!strcmp(zcast_test_msg_Defaults_TEXT, "caf\xc3\xa9"));
}

static void test_copy_path_defaults(void)
{
	Defaults m;
	memset(&m, 0x5a, sizeof m);
	zcast_test_msg_Defaults_init(&m);
	check_plain(&m);
	geometry_msgs_msg_Quaternion q;
	geometry_msgs_msg_Quaternion_init(&q);
	check_quaternion_plain(&q);
	/* serialized as declared, read back the same */
	_Alignas(8) uint8_t buf[512];
	size_t n = zcast_cdr_serialized_size(&zcast_test_msg_Defaults_TYPE, &m);
	CHECK(n + 8 <= sizeof buf);
	zcast_cdr_serialize(&zcast_test_msg_Defaults_TYPE, &m, buf + 4);
	Defaults back;
	CHECK_EQ(zcast_cdr_deserialize(&zcast_test_msg_Defaults_TYPE, buf + 4, n + 4, &back), 0);
	check_plain(&back);
	zcast_cdr_free(&zcast_test_msg_Defaults_TYPE, &back);
}

/* A loan at these bounds, published untouched, as the subscriber reads it. */
static void loan_and_read(const zcast_test_msg_Defaults_bounds *b, const char *topic,
			  void (*check)(const zcast_test_msg_Defaults_reader *))
{
	zcast_typed_pub *p;
	CHECK_EQ(zcast_test_msg_Defaults_pub_open(topic, b, NULL, &p), 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &zcast_test_msg_Defaults_TYPE);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &so, &s), 0);
	zcast_msg *m;
	zcast_test_msg_Defaults_writer w;
	memset(&w, 0, sizeof w);
	CHECK_EQ(zcast_test_msg_Defaults_loan(p, NULL, &m, &w), 0);
	CHECK_EQ(zcast_test_msg_Defaults_publish(p, m, &w), 0);
	zcast_msg *got;
	CHECK_EQ(zcast_take(s, &got), 0);
	zcast_test_msg_Defaults_reader r;
	CHECK_EQ(zcast_test_msg_Defaults_read_msg(&r, got), 0);
	check(&r);
	zcast_msg_drop(got);
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_typed_pub_close(p), 0);
}

static void check_quaternion_view(const zcast_test_msg_Defaults_reader *r)
{
	CHECK(zcast_test_msg_Defaults_q_x(r) == 0.0 && zcast_test_msg_Defaults_q_w(r) == 1.0);
	CHECK_EQ(zcast_test_msg_Defaults_qs_count(r), 2);
	for (uint32_t i = 0; i < 2; i++) {
		geometry_msgs_msg_Quaternion_reader e;
		CHECK_EQ(zcast_test_msg_Defaults_qs_at(r, i, &e), 0);
		CHECK(geometry_msgs_msg_Quaternion_w(&e) == 1.0);
		CHECK(geometry_msgs_msg_Quaternion_z(&e) == 0.0);
	}
}

static void check_fixed_view(const zcast_test_msg_Defaults_reader *r)
{
	uint32_t n;
	CHECK_EQ(zcast_test_msg_Defaults_a(r), -5);
	CHECK(zcast_test_msg_Defaults_f(r) == 0.1f && zcast_test_msg_Defaults_d(r) == 2.5);
	CHECK(zcast_test_msg_Defaults_flag(r));
	CHECK(zcast_test_msg_Defaults_big(r) == INT64_MIN);
	CHECK(zcast_test_msg_Defaults_huge(r) == UINT64_MAX);
	const int32_t *arr = zcast_test_msg_Defaults_arr(r, &n);
	CHECK(n == 3 && arr[0] == 1 && arr[1] == 2 && arr[2] == 3);
	CHECK_EQ(zcast_test_msg_Defaults_plain(r), 0);
	check_quaternion_view(r);
}

static void check_names(const zcast_test_msg_Defaults_reader *r, const char *second)
{
	zcast_cdr_str s;
	CHECK_EQ(zcast_test_msg_Defaults_names_at(r, 0, &s), 0);
	CHECK(str_is(s, "x"));
	CHECK_EQ(zcast_test_msg_Defaults_names_at(r, 1, &s), 0);
	CHECK(str_is(s, second));
}

/* Every default fits the publisher's bounds: the loan starts at every one of them. */
static void check_loan_at_wide_bounds(const zcast_test_msg_Defaults_reader *r)
{
	check_fixed_view(r);
	uint32_t n;
	CHECK(str_is(zcast_test_msg_Defaults_name(r), "hi"));
	CHECK(str_is(zcast_test_msg_Defaults_tag(r), "abcd"));
	const int16_t *seq = zcast_test_msg_Defaults_seq(r, &n);
	CHECK(n == 2 && seq[0] == 7 && seq[1] == 8);
	check_names(r, "yz");
	zcast_cdr_str s;
	CHECK_EQ(zcast_test_msg_Defaults_more_count(r), 2);
	CHECK_EQ(zcast_test_msg_Defaults_more_at(r, 0, &s), 0);
	CHECK(str_is(s, "a,b"));
	CHECK_EQ(zcast_test_msg_Defaults_more_at(r, 1, &s), 0);
	CHECK(str_is(s, "c"));
}

/* Defaults that do not fit the bounds start empty (docs/TYPED.md); the others are still set. */
static void check_loan_at_tight_bounds(const zcast_test_msg_Defaults_reader *r)
{
	check_fixed_view(r);
	uint32_t n;
	CHECK(str_is(zcast_test_msg_Defaults_name(r), "hi"));
	CHECK(str_is(zcast_test_msg_Defaults_tag(r), ""));
	zcast_test_msg_Defaults_seq(r, &n);
	CHECK_EQ(n, 0);
	check_names(r, ""); /* "yz" is longer than this loan's bound of 1 */
	CHECK_EQ(zcast_test_msg_Defaults_more_count(r), 0);
}

static void test_loan_defaults(void)
{
	zcast_test_msg_Defaults_bounds wide = {
	    .name = 8, .tag = 4, .seq = 4, .names = 4, .more = {.count = 3, .length = 4}};
	loan_and_read(&wide, "/typed_defaults_wide", check_loan_at_wide_bounds);
	zcast_test_msg_Defaults_bounds tight = {
	    .name = 2, .tag = 2, .seq = 1, .names = 1, .more = {.count = 1, .length = 4}};
	loan_and_read(&tight, "/typed_defaults_tight", check_loan_at_tight_bounds);
}

static void test_quaternion_loan(void)
{
	zcast_typed_pub *p;
	CHECK_EQ(geometry_msgs_msg_Quaternion_pub_open("/typed_defaults_q", NULL, NULL, &p), 0);
	zcast_msg *m;
	geometry_msgs_msg_Quaternion_writer w;
	CHECK_EQ(geometry_msgs_msg_Quaternion_loan(p, NULL, &m, &w), 0);
	double x[4];
	memcpy(x, w.w.base, sizeof x);
	CHECK(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0 && x[3] == 1.0);
	zcast_msg_drop(m);
	CHECK_EQ(zcast_typed_pub_close(p), 0);
}

/* ---- what follows a message ---- */

static _Alignas(8) uint8_t buf[4096];

/* An Image with a 16-byte data sequence serialized at buf + 4 (8-aligned origin); its size. */
static size_t image_bytes(void)
{
	sensor_msgs_msg_Image img;
	memset(&img, 0, sizeof img);
	uint8_t px[16];
	for (int i = 0; i < 16; i++)
		px[i] = (uint8_t)i;
	img.header.frame_id = (zcast_cdr_str){"cam", 3};
	img.encoding = (zcast_cdr_str){"mono8", 5};
	img.width = 16, img.height = 1, img.step = 16;
	img.data = (zcast_cdr_seq){px, 16};
	memset(buf, 0, sizeof buf);
	return zcast_cdr_serialize(&sensor_msgs_msg_Image_TYPE, &img, buf + 4);
}

static int read_image(size_t n)
{
	sensor_msgs_msg_Image_reader r;
	int e = sensor_msgs_msg_Image_read(&r, buf + 4, n);
	sensor_msgs_msg_Image copy;
	int d = zcast_cdr_deserialize(&sensor_msgs_msg_Image_TYPE, buf + 4, n, &copy);
	if (d == 0)
		zcast_cdr_free(&sensor_msgs_msg_Image_TYPE, &copy);
	CHECK_EQ(d, e); /* the copy path accepts exactly what the view accepts */
	return e;
}

static void test_trailing_bytes(void)
{
	size_t n = image_bytes();
	CHECK_EQ(n % 4, 0); /* 16 data bytes end the stream 4-aligned */
	CHECK_EQ(read_image(n), 0);
	for (size_t extra = 1; extra <= 9; extra++) {
		image_bytes();
		memset(buf + 4 + n, 0x55, extra);
		CHECK_EQ(read_image(n + extra), ZCAST_ECORRUPT);
		CHECK(strstr(zcast_last_error(), "sensor_msgs/msg/Image") != NULL);
		memset(buf + 4 + n, 0, extra); /* zeros not announced as padding are bytes too */
		CHECK_EQ(read_image(n + extra), ZCAST_ECORRUPT);
	}
	/* a corrupted count that leaves a shorter valid message in front of the rest */
	image_bytes();
	uint32_t count_at = (uint32_t)n - 16 - 4, eight = 8;
	memcpy(buf + 4 + count_at, &eight, 4);
	CHECK_EQ(read_image(n), ZCAST_ECORRUPT);
	/* padding the options announce (DDS-XTypes 7.6.3.1.2: their low two bits) is allowed */
	sensor_msgs_msg_Image img;
	memset(&img, 0, sizeof img);
	uint8_t one = 1;
	img.header.frame_id = (zcast_cdr_str){"c", 1};
	img.data = (zcast_cdr_seq){&one, 1}; /* the stream ends at 41 */
	size_t m = zcast_cdr_serialize(&sensor_msgs_msg_Image_TYPE, &img, buf + 4);
	size_t pad = (4 - m % 4) % 4;
	CHECK(pad != 0);
	memset(buf + 4 + m, 0, 4);
	buf[4 + 3] = (uint8_t)pad;
	CHECK_EQ(read_image(m + pad), 0);
	CHECK_EQ(read_image(m + pad + 4), ZCAST_ECORRUPT); /* more than announced */
	buf[4 + 3] = 0;
	CHECK_EQ(read_image(m + pad), ZCAST_ECORRUPT); /* padding nobody announced */
	buf[4 + 3] = (uint8_t)pad;
	CHECK_EQ(read_image(m), ZCAST_ECORRUPT); /* announced but missing */
}

static void test_bad_encapsulation_is_corrupt(void)
{
	size_t n = image_bytes();
	buf[4 + 1] = 0x00; /* CDR_BE */
	CHECK_EQ(read_image(n), ZCAST_ECORRUPT);
	CHECK(strstr(zcast_last_error(), "encapsulation") != NULL);
	buf[4 + 0] = 0x7f, buf[4 + 1] = 0x01;
	CHECK_EQ(read_image(n), ZCAST_ECORRUPT);
}

/* ---- errors name the member path ---- */

static void test_error_names_path(void)
{
	sensor_msgs_msg_Imu imu;
	memset(&imu, 0, sizeof imu);
	size_t n = zcast_cdr_serialize(&sensor_msgs_msg_Imu_TYPE, &imu, buf + 4);
	/* stamp 8, frame_id 4 + 1 (empty), aligned to 16: orientation.x is at 16..24 */
	sensor_msgs_msg_Imu_reader r;
	CHECK_EQ(sensor_msgs_msg_Imu_read(&r, buf + 4, n), 0);
	CHECK_EQ(sensor_msgs_msg_Imu_read(&r, buf + 4, 4 + 20), ZCAST_ECORRUPT);
	CHECK(strstr(zcast_last_error(), "member orientation.x:") != NULL);

	sensor_msgs_msg_PointCloud2 pc;
	memset(&pc, 0, sizeof pc);
	sensor_msgs_msg_PointField f[3];
	memset(f, 0, sizeof f);
	f[0].name = (zcast_cdr_str){"x", 1};
	f[1].name = (zcast_cdr_str){"y", 1};
	f[2].name = (zcast_cdr_str){"z", 1};
	pc.fields = (zcast_cdr_seq){f, 3};
	n = zcast_cdr_serialize(&sensor_msgs_msg_PointCloud2_TYPE, &pc, buf + 4);
	sensor_msgs_msg_PointCloud2_reader pr;
	CHECK_EQ(sensor_msgs_msg_PointCloud2_read(&pr, buf + 4, n), 0);
	/* fields[1].name "y": find its bytes and take its NUL away */
	uint8_t *y = memmem(buf + 4, n, "\x02\0\0\0y", 5);
	CHECK(y != NULL);
	y[5] = 'Y';
	CHECK_EQ(sensor_msgs_msg_PointCloud2_read(&pr, buf + 4, n), ZCAST_ECORRUPT);
	CHECK(strstr(zcast_last_error(), "member fields[1].name:") != NULL);
}

int main(void)
{
	zt_setup("typed_defaults", 60);
	RUN(test_constants);
	RUN(test_copy_path_defaults);
	RUN(test_loan_defaults);
	RUN(test_quaternion_loan);
	RUN(test_trailing_bytes);
	RUN(test_bad_encapsulation_is_corrupt);
	RUN(test_error_names_path);
	return 0;
}
