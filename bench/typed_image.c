/* Typed benchmark (docs/BENCHMARKS.md, "Typed messages"): sensor_msgs/Image of 100 KB and 1 MB at
 * 10 Hz between two processes, event-driven subscriber, end-to-end latency p50/p95/p99 for
 *   raw64         an untyped 64 B message (the reference row)
 *   cyclone_copy  plain struct serialized by Cyclone DDS into a buffer, copied into a loan;
 *                 the subscriber deserializes with Cyclone (the "standard copy")
 *   cdr_copy      plain struct serialized by zcast's copy path straight into a loan; the subscriber
 *                 deserializes with zcast_cdr_deserialize
 *   loan_pub      constrained loan written in place; the subscriber deserializes (copy)
 *   loan_pub_sub  constrained loan written in place; the subscriber reads through a reader view
 * The image is produced (pixels written) before the clock starts in every case, into the
 * application's buffer or straight into the loan: latency is what the messaging path costs.
 * Usage: zcast-bench-typed [--count N] [--rate HZ] [--case NAME] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zcast/typed.h>
#include <zcast/waitset.h>

#include <sensor_msgs/msg/Image.h>

#include "typed_cyclone.h"

enum { RAW64, CYCLONE_COPY, CDR_COPY, LOAN_PUB, LOAN_PUB_SUB };
static const char *const names[] = {"raw64", "cyclone_copy", "cdr_copy", "loan_pub",
				    "loan_pub_sub"};
#define WARMUP 10

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static volatile uint64_t sink;

/* Subscriber: takes count messages, measures now - stamp after processing, prints percentiles. */
static int subscriber(int mode, const char *topic, size_t size, int count)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	if (mode != RAW64)
		zcast_typed_sub_opts(&so, &sensor_msgs_msg_Image_TYPE);
	so.queue_depth =
	    32; /* with 32 slots: rides out a 3 s stall of the subscriber (shared machines) */
	zcast_sub *s;
	if (zcast_sub_open(topic, &so, &s) != 0)
		return 1;
	int64_t *lat = calloc((size_t)count, sizeof *lat);
	uint64_t acc = 0;
	for (int got = 0; got < count + WARMUP;) {
		zcast_msg *m;
		if (zcast_take(s, &m) != 0) {
			int e = zcast_wait(s, 5000000000);
			if (e != 0) {
				fprintf(stderr, "subscriber: wait: %s (%s)\n", zcast_strerror(e),
					zcast_last_error());
				return 2;
			}
			continue;
		}
		int64_t stamp = 0;
		if (mode == RAW64) {
			memcpy(&stamp, zcast_msg_data(m), sizeof stamp);
		} else if (mode == CYCLONE_COPY) {
			if (zbt_cyc_deserialize(
				(uint8_t *)zcast_msg_data(m) + ZCAST_TYPED_HEADER_OFFSET,
				zcast_msg_size(m) - ZCAST_TYPED_HEADER_OFFSET, &acc, &stamp) != 0)
				return 3;
		} else if (mode == LOAN_PUB_SUB) {
			sensor_msgs_msg_Image_reader r;
			if (sensor_msgs_msg_Image_read_msg(&r, m) != 0)
				return 3;
			stamp = (int64_t)sensor_msgs_msg_Image_header_stamp_sec(&r) * 1000000000 +
				sensor_msgs_msg_Image_header_stamp_nanosec(&r);
			uint32_t n;
			const uint8_t *d = sensor_msgs_msg_Image_data(&r, &n);
			acc += n ? d[n - 1] : 0;
		} else {
			sensor_msgs_msg_Image img;
			if (zcast_cdr_deserialize(
				&sensor_msgs_msg_Image_TYPE,
				(uint8_t *)zcast_msg_data(m) + ZCAST_TYPED_HEADER_OFFSET,
				zcast_msg_size(m) - ZCAST_TYPED_HEADER_OFFSET, &img) != 0)
				return 3;
			stamp =
			    (int64_t)img.header.stamp.sec * 1000000000 + img.header.stamp.nanosec;
			acc +=
			    img.data.len ? ((const uint8_t *)img.data.data)[img.data.len - 1] : 0;
			zcast_cdr_free(&sensor_msgs_msg_Image_TYPE, &img);
		}
		int64_t t = now_ns() - stamp;
		zcast_msg_drop(m);
		if (got >= WARMUP)
			lat[got - WARMUP] = t;
		got++;
	}
	sink = acc;
	qsort(lat, (size_t)count, sizeof *lat, cmp_i64);
	printf("%-13s %8zu  p50 %9.1f  p95 %9.1f  p99 %9.1f  us\n", names[mode], size,
	       lat[count / 2] / 1e3, lat[count * 95 / 100] / 1e3, lat[count * 99 / 100] / 1e3);
	fflush(stdout);
	zcast_sub_close(s);
	return 0;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000), (long)(t % 1000000000)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
	}
}

static void set_stamp(sensor_msgs_msg_Image_writer *w, int64_t t0)
{
	sensor_msgs_msg_Image_w_header_stamp_sec_set(w, (int32_t)(t0 / 1000000000));
	sensor_msgs_msg_Image_w_header_stamp_nanosec_set(w, (uint32_t)(t0 % 1000000000));
}

static int publisher(int mode, const char *topic, size_t size, int count, int rate)
{
	const uint32_t width = 1024, height = (uint32_t)(size / width);
	sensor_msgs_msg_Image_bounds b = {
	    .header = {.frame_id = 16}, .encoding = 8, .data = (uint32_t)size};
	zcast_typed_pub *tp = NULL;
	zcast_pub *p = NULL;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_count = 32;
	if (mode == RAW64) {
		po.slot_size = 64;
		if (zcast_pub_open(topic, &po, &p) != 0)
			return 1;
	} else {
		po.slot_size = size + 4096;
		if (sensor_msgs_msg_Image_pub_open(topic, &b, &po, &tp) != 0)
			return 1;
		p = zcast_typed_pub_handle(tp);
	}
	for (int t = 0; zcast_pub_matched(p) < 1; t++) {
		if (t > 5000)
			return 2;
		usleep(1000);
	}
	uint8_t *pixels = malloc(size);
	int e = 3;
	int64_t next = now_ns();
	for (int i = 0; i < count + WARMUP; i++) {
		next += 1000000000 / rate;
		sleep_until(next);
		zcast_msg *m;
		int64_t t0;
		if (mode == RAW64) {
			if (zcast_loan(p, 64, &m) != 0)
				goto fail;
			t0 = now_ns();
			memcpy(zcast_msg_data(m), &t0, sizeof t0);
			if (zcast_publish(p, m) != 0)
				goto fail;
		} else if (mode == LOAN_PUB || mode == LOAN_PUB_SUB) {
			/* Per-loan bounds: the strings' exact lengths and the frame's size, so
			 * every member is at its bound and publish moves nothing (a shorter
			 * frame_id would move the pixels). */
			sensor_msgs_msg_Image_bounds exact = {
			    .header = {.frame_id = 6}, .encoding = 5, .data = (uint32_t)size};
			sensor_msgs_msg_Image_writer w;
			if (sensor_msgs_msg_Image_loan(tp, &exact, &m, &w) != 0)
				goto fail;
			uint32_t cap;
			memset(sensor_msgs_msg_Image_w_data(&w, &cap), i,
			       size); /* the camera writes here */
			t0 = now_ns();
			set_stamp(&w, t0);
			sensor_msgs_msg_Image_w_header_frame_id_set(&w, "camera");
			sensor_msgs_msg_Image_w_encoding_set(&w, "mono8");
			sensor_msgs_msg_Image_w_height_set(&w, height);
			sensor_msgs_msg_Image_w_width_set(&w, width);
			sensor_msgs_msg_Image_w_step_set(&w, width);
			sensor_msgs_msg_Image_w_data_set_len(&w, (uint32_t)size);
			if (sensor_msgs_msg_Image_publish(tp, m, &w) != 0)
				goto fail;
		} else {
			memset(pixels, i,
			       size); /* the camera writes into the application's buffer */
			t0 = now_ns();
			int32_t sec = (int32_t)(t0 / 1000000000);
			uint32_t nsec = (uint32_t)(t0 % 1000000000);
			if (mode == CDR_COPY) {
				sensor_msgs_msg_Image img = {
				    .header = {.stamp = {sec, nsec}, .frame_id = {"camera", 6}},
				    .height = height,
				    .width = width,
				    .encoding = {"mono8", 5},
				    .step = width,
				    .data = {pixels, (uint32_t)size}};
				if (zcast_typed_publish_copy(tp, &img) != 0)
					goto fail;
			} else {
				zbt_image img = {sec,	nsec,  "camera",       "mono8", height,
						 width, width, (uint32_t)size, pixels};
				if (zcast_loan(p, size + 4096, &m) != 0)
					goto fail;
				uint8_t *d = zcast_msg_data(m);
				memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
				size_t n = zbt_cyc_serialize(&img, d + ZCAST_TYPED_HEADER_OFFSET,
							     zcast_msg_capacity(m) -
								 ZCAST_TYPED_HEADER_OFFSET);
				if (zcast_msg_resize(m, ZCAST_TYPED_HEADER_OFFSET + n) != 0 ||
				    zcast_publish(p, m) != 0)
					goto fail;
			}
		}
	}
	e = 0;
fail: /* close in every case, so a failed case leaves nothing behind for the next */
	free(pixels);
	if (tp)
		zcast_typed_pub_close(tp);
	else
		zcast_pub_close(p);
	return e;
}

static int run_case(int mode, size_t size, int count, int rate)
{
	char topic[64];
	snprintf(topic, sizeof topic, "/zbt/%s/p%d_%zu", names[mode], (int)getpid(), size);
	fflush(stdout);
	/* The subscriber is a program of its own (exec), as in a real system. */
	char m[16], sz[32], n[16];
	snprintf(m, sizeof m, "%d", mode), snprintf(sz, sizeof sz, "%zu", size);
	snprintf(n, sizeof n, "%d", count);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "zcast-bench-typed", "--subscriber", m, topic, sz, n,
		      (char *)NULL);
		_exit(127);
	}
	int e = publisher(mode, topic, size, count, rate);
	int st = 0;
	waitpid(pid, &st, 0);
	zcast_topic_remove(NULL, topic); /* what a failed case left behind */
	if (e || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(
		    stderr,
		    "zcast-bench-typed: %s %zu failed (publisher %d, subscriber status %d): %s\n",
		    names[mode], size, e, st, zcast_last_error());
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "--subscriber"))
		return subscriber(atoi(argv[2]), argv[3], (size_t)strtoull(argv[4], NULL, 10),
				  atoi(argv[5]));
	int count = 200, rate = 10;
	const char *only = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--count"))
			count = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rate"))
			rate = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--case"))
			only = argv[i + 1];
	}
	if (count < 1 || rate < 1)
		return 2;
	char dom[64];
	snprintf(dom, sizeof dom, "zbt%d", (int)getpid());
	setenv("ZCAST_DOMAIN", dom, 1);
	printf("# sensor_msgs/Image, %d messages per case at %d Hz (+%d warm-up), E2E latency\n",
	       count, rate, WARMUP);
	int fail = 0;
	if (!only || !strcmp(only, names[RAW64]))
		fail |= run_case(RAW64, 64, count, rate);
	static const size_t sizes[] = {100 * 1024, 1024 * 1024};
	for (int s = 0; s < 2; s++)
		for (int mode = CYCLONE_COPY; mode <= LOAN_PUB_SUB; mode++)
			if (!only || !strcmp(only, names[mode]))
				fail |= run_case(mode, sizes[s], count, rate);
	return fail;
}
