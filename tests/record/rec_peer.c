/* A publisher for the recording tests: once every topic has `subs` subscribers, publishes `n`
 * rounds of a raw topic (/rec/raw, sizes 0..~3000), a typed sensor_msgs/Image (/rec/image, data
 * sizes varying) and a typed std_msgs/String with history 8 (/rec/text: transient local), every
 * byte a function of the round. n = 0: until killed (1 kHz). Prints "ready" once matched. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sensor_msgs/msg/Image.h>
#include <std_msgs/msg/String.h>
#include <zcast/waitset.h>
#include <zcast/zcast.h>

static int die(const char *what, int r)
{
	fprintf(stderr, "rec_peer: %s: %s (%s)\n", what, zcast_strerror(r), zcast_last_error());
	return 1;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static int publish_raw(zcast_pub *p, long i)
{
	size_t n = (size_t)(i * 977 % 3001);
	zcast_msg *m;
	int r = zcast_loan_wait(p, n, -1, &m);
	if (r < 0)
		return r;
	uint8_t *d = zcast_msg_data(m);
	for (size_t k = 0; k < n; k++)
		d[k] = (uint8_t)(i + 3 * k);
	r = zcast_publish_wait(p, m, -1);
	if (r < 0)
		zcast_msg_drop(m);
	return r;
}

static int publish_image(zcast_typed_pub *p, long i)
{
	static uint8_t px[64 * 48 * 3];
	uint32_t n = (uint32_t)(i * 131 % sizeof px);
	for (uint32_t k = 0; k < n; k++)
		px[k] = (uint8_t)(i * 7 + k);
	char frame[32];
	snprintf(frame, sizeof frame, "cam%ld", i % 5);
	sensor_msgs_msg_Image img = {0};
	img.header.stamp.sec = (int32_t)i;
	img.header.stamp.nanosec = (uint32_t)(i * 1000);
	img.header.frame_id = (zcast_cdr_str){frame, (uint32_t)strlen(frame)};
	img.height = 48;
	img.width = 64;
	img.encoding = (zcast_cdr_str){"rgb8", 4};
	img.step = 192;
	img.data = (zcast_cdr_seq){px, n};
	int r;
	while ((r = zcast_typed_publish_copy(p, &img)) == ZCAST_EAGAIN || r == ZCAST_ENOSLOT)
		pause_ms(1);
	return r;
}

static int publish_text(zcast_typed_pub *p, long i)
{
	char text[64];
	snprintf(text, sizeof text, "message %ld of the text topic", i);
	std_msgs_msg_String s = {.data = {text, (uint32_t)strlen(text)}};
	int r;
	while ((r = zcast_typed_publish_copy(p, &s)) == ZCAST_EAGAIN || r == ZCAST_ENOSLOT)
		pause_ms(1);
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: rec_peer ROUNDS SUBSCRIBERS\n");
		return 2;
	}
	long n = atol(argv[1]), subs = atol(argv[2]);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 4096;
	zcast_pub *raw;
	zcast_typed_pub *img, *txt;
	int r = zcast_pub_open("/rec/raw", &o, &raw);
	if (r < 0)
		return die("raw", r);
	sensor_msgs_msg_Image_bounds ib = {.header = {.frame_id = 16}, .encoding = 8, .data = 64 * 48 * 3};
	if ((r = sensor_msgs_msg_Image_pub_open("/rec/image", &ib, NULL, &img)) < 0)
		return die("image", r);
	zcast_pub_opts_init(&o);
	o.history_depth = 8;
	std_msgs_msg_String_bounds sb = {.data = 64};
	if ((r = std_msgs_msg_String_pub_open("/rec/text", &sb, &o, &txt)) < 0)
		return die("text", r);
	while (zcast_pub_matched(raw) < subs || zcast_pub_matched(zcast_typed_pub_handle(img)) < subs ||
	       zcast_pub_matched(zcast_typed_pub_handle(txt)) < subs)
		pause_ms(5);
	printf("ready\n");
	fflush(stdout);
	for (long i = 0; n == 0 || i < n; i++) {
		if ((r = publish_raw(raw, i)) < 0)
			return die("publish raw", r);
		if ((r = publish_image(img, i)) < 0)
			return die("publish image", r);
		if (i % 3 == 0 && (r = publish_text(txt, i)) < 0)
			return die("publish text", r);
		if (n == 0 || i % 50 == 0)
			pause_ms(1);
	}
	zcast_pub_close(raw);
	zcast_typed_pub_close(img);
	zcast_typed_pub_close(txt);
	return 0;
}
