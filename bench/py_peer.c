/* The C side of the Python benchmark (bench/py_bench.py; bench/py_peer.py is the Python side and
 * speaks the same protocol). Acked one-way latency: the sender stamps CLOCK_MONOTONIC, loans,
 * writes the stamp and publishes on DATA; the receiver takes, computes now - stamp, drops the
 * message and publishes a 64 B ack on ACK; the sender waits for the ack before the next message.
 * Payload bytes other than the stamp are not touched (transport mode). Both sides print where
 * every message lived (pool device, inode, offset) for the zero-copy proof.
 *
 *   py_peer send|recv raw|image DATA ACK SIZE COUNT
 * raw: untyped SIZE-byte messages, stamp = the first 8 bytes. image: sensor_msgs/Image of SIZE
 * data bytes (width 1000, mono8), stamp = header.stamp; every string at its exact bound, so
 * publish moves nothing. The receiver prints "ready", then "lat <ns>" per message; both print
 * "loc <i> <dev> <ino> <off>". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zcast/typed.h>
#include <zcast/waitset.h>

#include <sensor_msgs/msg/Image.h>

#define WAIT_NS 30000000000LL

struct loc {
	unsigned long long dev, ino, off;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fail(const char *what, int e)
{
	fprintf(stderr, "py_peer: %s: %s (%s)\n", what, zcast_strerror(e), zcast_last_error());
	exit(1);
}

static void where(zcast_msg *m, struct loc *l)
{
	zcast_msg_info in;
	int e = zcast_msg_info_get(m, &in);
	if (e < 0)
		fail("info", e);
	l->dev = in.pool_dev, l->ino = in.pool_ino, l->off = in.pool_offset;
}

static zcast_msg *next(zcast_sub *s)
{
	zcast_msg *m;
	int e;
	while ((e = zcast_take(s, &m)) != 0)
		if (e != ZCAST_EAGAIN || (e = zcast_wait(s, WAIT_NS)) != 0)
			fail("receive", e);
	return m;
}

static const sensor_msgs_msg_Image_bounds *image_bounds(uint32_t size)
{
	static sensor_msgs_msg_Image_bounds b;
	b = (sensor_msgs_msg_Image_bounds){.header = {.frame_id = 8}, .encoding = 5, .data = size};
	return &b;
}

static int sender(int image, const char *data, const char *ack, uint32_t size, int count)
{
	zcast_sub *as;
	zcast_pub *p = NULL;
	zcast_typed_pub *tp = NULL;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 8;
	po.slot_size = size;
	int e = image ? sensor_msgs_msg_Image_pub_open(data, image_bounds(size), &po, &tp)
		      : zcast_pub_open(data, &po, &p);
	if (e < 0 || (e = zcast_sub_open(ack, NULL, &as)) < 0)
		fail("open", e);
	if (tp)
		p = zcast_typed_pub_handle(tp);
	while (zcast_pub_matched(p) < 1 || zcast_sub_matched(as) < 1)
		usleep(1000);
	struct loc *locs = calloc((size_t)count, sizeof *locs);
	for (int i = 0; i < count; i++) {
		int64_t t0 = now_ns();
		zcast_msg *m;
		if (image) {
			sensor_msgs_msg_Image_writer w;
			if ((e = sensor_msgs_msg_Image_loan(tp, NULL, &m, &w)) < 0)
				fail("loan", e);
			sensor_msgs_msg_Image_w_header_stamp_sec_set(&w,
								     (int32_t)(t0 / 1000000000));
			sensor_msgs_msg_Image_w_header_stamp_nanosec_set(
			    &w, (uint32_t)(t0 % 1000000000));
			sensor_msgs_msg_Image_w_header_frame_id_set(&w, "camera00");
			sensor_msgs_msg_Image_w_encoding_set(&w, "mono8");
			sensor_msgs_msg_Image_w_width_set(&w, 1000);
			sensor_msgs_msg_Image_w_height_set(&w, size / 1000);
			sensor_msgs_msg_Image_w_step_set(&w, 1000);
			sensor_msgs_msg_Image_w_data_set_len(&w, size);
			where(m, &locs[i]);
			e = sensor_msgs_msg_Image_publish(tp, m, &w);
		} else {
			if ((e = zcast_loan_wait(p, size, WAIT_NS, &m)) < 0)
				fail("loan", e);
			memcpy(zcast_msg_data(m), &t0, sizeof t0);
			where(m, &locs[i]);
			e = zcast_publish_wait(p, m, WAIT_NS);
		}
		if (e < 0)
			fail("publish", e);
		zcast_msg_drop(next(as));
	}
	for (int i = 0; i < count; i++)
		printf("loc %d %llu %llu %llu\n", i, locs[i].dev, locs[i].ino, locs[i].off);
	zcast_sub_close(as);
	return image ? zcast_typed_pub_close(tp) : zcast_pub_close(p);
}

static volatile uint8_t sink;

static int receiver(int image, const char *data, const char *ack, int count)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	if (image)
		zcast_typed_sub_opts(&so, &sensor_msgs_msg_Image_TYPE);
	zcast_sub *s;
	zcast_pub *ap;
	int e = zcast_sub_open(data, &so, &s);
	if (e < 0 || (e = zcast_pub_open(ack, NULL, &ap)) < 0)
		fail("open", e);
	printf("ready\n");
	fflush(stdout);
	int64_t *lat = calloc((size_t)count, sizeof *lat);
	struct loc *locs = calloc((size_t)count, sizeof *locs);
	for (int i = 0; i < count; i++) {
		zcast_msg *m = next(s);
		int64_t t = now_ns(), stamp;
		if (image) {
			sensor_msgs_msg_Image_reader r;
			if ((e = sensor_msgs_msg_Image_read_msg(&r, m)) < 0)
				fail("read", e);
			stamp = (int64_t)sensor_msgs_msg_Image_header_stamp_sec(&r) * 1000000000 +
				sensor_msgs_msg_Image_header_stamp_nanosec(&r);
			uint32_t n;
			const uint8_t *px = sensor_msgs_msg_Image_data(&r, &n);
			sink = n ? px[n - 1] : 0;
		} else {
			memcpy(&stamp, zcast_msg_data(m), sizeof stamp);
		}
		lat[i] = t - stamp;
		where(m, &locs[i]);
		zcast_msg_drop(m);
		zcast_msg *a;
		if ((e = zcast_loan_wait(ap, 64, WAIT_NS, &a)) < 0 ||
		    (e = zcast_publish_wait(ap, a, WAIT_NS)) < 0)
			fail("ack", e);
	}
	for (int i = 0; i < count; i++)
		printf("lat %lld\nloc %d %llu %llu %llu\n", (long long)lat[i], i, locs[i].dev,
		       locs[i].ino, locs[i].off);
	zcast_pub_close(ap);
	return zcast_sub_close(s);
}

int main(int argc, char **argv)
{
	if (argc != 7 || (strcmp(argv[2], "raw") && strcmp(argv[2], "image"))) {
		fprintf(stderr, "usage: py_peer send|recv raw|image DATA ACK SIZE COUNT\n");
		return 2;
	}
	int image = !strcmp(argv[2], "image");
	uint32_t size = (uint32_t)atol(argv[5]);
	int count = atoi(argv[6]);
	if (!strcmp(argv[1], "send"))
		return sender(image, argv[3], argv[4], size, count) < 0;
	return receiver(image, argv[3], argv[4], count) < 0;
}
