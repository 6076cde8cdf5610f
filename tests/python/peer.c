/* The C side of the Python tests (tests/python/): publishes or receives checksummed frames
 * (harness.h's zt_fill / zt_verify) or sensor_msgs/Image messages through the generated C views,
 * and prints where each message lives (pool device, inode, offset) for the zero-copy check.
 *
 *   peer pub TOPIC COUNT SIZE        waits for a subscriber, publishes COUNT frames of SIZE bytes
 *   peer sub TOPIC COUNT             prints "ready", verifies COUNT frames
 *   peer image-pub TOPIC COUNT W H   waits for a subscriber, publishes COUNT images (image_fill)
 *   peer image-sub TOPIC COUNT       prints "ready", verifies COUNT images
 * Exit 0 when every message was intact. The domain comes from $ZCAST_DOMAIN. */
#include "../harness.h"

#include <zcast/waitset.h>

#include <sensor_msgs/msg/Image.h>

#define PEER_PUBLISHER 7 /* the `pub` value in the checksummed frames */

static void print_loc(zcast_msg *m, uint64_t seq)
{
	zcast_msg_info in;
	CHECK_EQ(zcast_msg_info_get(m, &in), 0);
	printf("loc %llu %llu %llu %llu\n", (unsigned long long)seq,
	       (unsigned long long)in.pool_dev, (unsigned long long)in.pool_ino,
	       (unsigned long long)in.pool_offset);
}

static void wait_matched(zcast_pub *p)
{
	for (int i = 0; i < 20000 && zcast_pub_matched(p) < 1; i++)
		zt_sleep_ms(1);
	CHECK(zcast_pub_matched(p) >= 1);
}

static zcast_msg *next(zcast_sub *s)
{
	zcast_msg *m;
	while (zcast_take(s, &m) != 0)
		CHECK_EQ(zcast_wait(s, 20000000000LL), 0);
	return m;
}

static int frames_pub(const char *topic, int count, size_t size)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = size;
	o.slot_count = 8;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	wait_matched(p);
	for (int i = 1; i <= count; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, size, 20000000000LL, &m), 0);
		zt_fill(zcast_msg_data(m), size, (uint64_t)i, PEER_PUBLISHER);
		print_loc(m, (uint64_t)i);
		CHECK_EQ(zcast_publish_wait(p, m, 20000000000LL), 0);
	}
	zcast_pub_close(p);
	return 0;
}

static int frames_sub(const char *topic, int count)
{
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, NULL, &s), 0);
	printf("ready\n");
	for (int i = 1; i <= count; i++) {
		zcast_msg *m = next(s);
		uint64_t seq, pub;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub));
		CHECK_EQ(seq, i);
		print_loc(m, seq);
		zcast_msg_drop(m);
	}
	printf("ok %d\n", count);
	zcast_sub_close(s);
	return 0;
}

/* Image i: frame "cam<i>", stamp (i, 1000 i), rgb8, step 3 w, pixel byte k = (7 k + i) mod 256. */
static uint8_t pixel(uint32_t k, int i)
{
	return (uint8_t)(k * 7 + (uint32_t)i);
}

static int image_pub(const char *topic, int count, uint32_t w, uint32_t h)
{
	sensor_msgs_msg_Image_bounds b = {
	    .header = {.frame_id = 16}, .encoding = 8, .data = w * h * 3};
	zcast_typed_pub *p;
	CHECK_EQ(sensor_msgs_msg_Image_pub_open(topic, &b, NULL, &p), 0);
	wait_matched(zcast_typed_pub_handle(p));
	for (int i = 1; i <= count; i++) {
		zcast_msg *m;
		sensor_msgs_msg_Image_writer wr;
		CHECK_EQ(sensor_msgs_msg_Image_loan(p, NULL, &m, &wr), 0);
		char frame[16];
		snprintf(frame, sizeof frame, "cam%d", i);
		sensor_msgs_msg_Image_w_header_stamp_sec_set(&wr, i);
		sensor_msgs_msg_Image_w_header_stamp_nanosec_set(&wr, (uint32_t)i * 1000);
		CHECK_EQ(sensor_msgs_msg_Image_w_header_frame_id_set(&wr, frame), 0);
		CHECK_EQ(sensor_msgs_msg_Image_w_encoding_set(&wr, "rgb8"), 0);
		sensor_msgs_msg_Image_w_width_set(&wr, w);
		sensor_msgs_msg_Image_w_height_set(&wr, h);
		sensor_msgs_msg_Image_w_step_set(&wr, w * 3);
		uint32_t cap;
		uint8_t *px = sensor_msgs_msg_Image_w_data(&wr, &cap);
		for (uint32_t k = 0; k < w * h * 3; k++)
			px[k] = pixel(k, i);
		CHECK_EQ(sensor_msgs_msg_Image_w_data_set_len(&wr, w * h * 3), 0);
		print_loc(m, (uint64_t)i);
		int e;
		while ((e = sensor_msgs_msg_Image_publish(p, m, &wr)) == ZCAST_EAGAIN)
			zt_sleep_ms(1);
		CHECK_EQ(e, 0);
	}
	zcast_typed_pub_close(p);
	return 0;
}

static int image_sub(const char *topic, int count)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &sensor_msgs_msg_Image_TYPE);
	so.queue_depth = 64;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &so, &s), 0);
	printf("ready\n");
	for (int i = 1; i <= count; i++) {
		zcast_msg *m = next(s);
		sensor_msgs_msg_Image_reader r;
		CHECK_EQ(sensor_msgs_msg_Image_read_msg(&r, m), 0);
		char frame[16];
		snprintf(frame, sizeof frame, "cam%d", i);
		zcast_cdr_str f = sensor_msgs_msg_Image_header_frame_id(&r);
		CHECK(f.len == strlen(frame) && !memcmp(f.data, frame, f.len));
		CHECK_EQ(sensor_msgs_msg_Image_header_stamp_sec(&r), i);
		CHECK_EQ(sensor_msgs_msg_Image_header_stamp_nanosec(&r), i * 1000);
		zcast_cdr_str enc = sensor_msgs_msg_Image_encoding(&r);
		CHECK(enc.len == 4 && !memcmp(enc.data, "rgb8", 4));
		uint32_t w = sensor_msgs_msg_Image_width(&r), h = sensor_msgs_msg_Image_height(&r),
			 n;
		CHECK_EQ(sensor_msgs_msg_Image_step(&r), w * 3);
		const uint8_t *px = sensor_msgs_msg_Image_data(&r, &n);
		CHECK_EQ(n, w * h * 3);
		for (uint32_t k = 0; k < n; k++)
			CHECK_EQ(px[k], pixel(k, i));
		print_loc(m, (uint64_t)i);
		zcast_msg_drop(m);
	}
	printf("ok %d\n", count);
	zcast_sub_close(s);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, zt_watchdog);
	alarm(120);
	if (argc >= 5 && !strcmp(argv[1], "pub"))
		return frames_pub(argv[2], atoi(argv[3]), (size_t)atol(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "sub"))
		return frames_sub(argv[2], atoi(argv[3]));
	if (argc >= 6 && !strcmp(argv[1], "image-pub"))
		return image_pub(argv[2], atoi(argv[3]), (uint32_t)atoi(argv[4]),
				 (uint32_t)atoi(argv[5]));
	if (argc >= 4 && !strcmp(argv[1], "image-sub"))
		return image_sub(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: peer pub|sub|image-pub|image-sub TOPIC COUNT [SIZE | W H]\n");
	return 2;
}
