/* The zcast side of the bridge pool test (tests/bridge/pool_test.sh): many topics in one process.
 *   pool_peer pub <prefix> <topics> <count>
 *   pool_peer sub <prefix> <topics> <count> [--timeout-s N] [--settle-ms N]
 * Topics are <prefix>/t0 .. <prefix>/t<topics-1>, sensor_msgs/Image (pattern.h): message k of topic
 * t has stamp.sec k (1..count), stamp.nanosec t and data of pattern k. pub waits until every topic
 * has a subscriber (the bridge), then publishes round after round, one message per topic, never
 * losing one (FULL queues push back). sub takes from every topic through one wait set and exits 0
 * when every topic delivered 1..count exactly once, in order, intact, on its own topic, and nothing
 * more came within --settle-ms; it prints "topics T complete C received R bad B dup D". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sensor_msgs/msg/Image.h"
#include "zcast/waitset.h"
#include "pattern.h"

#define DATA 16u /* data bytes per message */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long opt(int argc, char **argv, const char *name, long def)
{
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return strtol(argv[i + 1], NULL, 0);
	return def;
}

static int die(const char *what, int e)
{
	fprintf(stderr, "pool_peer: %s: %s (%s)\n", what, zcast_strerror(e), zcast_last_error());
	return 1;
}

static void topic_name(char *out, size_t cap, const char *prefix, int t)
{
	snprintf(out, cap, "%s/t%d", prefix, t);
}

/* Publishes message seq of topic t: ZCAST_EAGAIN / ZCAST_ENOSLOT (try again) or 0. */
static int publish(zcast_typed_pub *p, int t, uint32_t seq)
{
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	int e = zcast_typed_loan(p, NULL, &m, &w.w, w.off, w.cap);
	if (e < 0)
		return e;
	sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, (int32_t)seq);
	sensor_msgs_msg_Image_w_header_stamp_nanosec_set(&w, (uint32_t)t);
	sensor_msgs_msg_Image_w_header_frame_id_set(&w, ZBP_FRAME);
	sensor_msgs_msg_Image_w_height_set(&w, 1);
	sensor_msgs_msg_Image_w_width_set(&w, DATA);
	sensor_msgs_msg_Image_w_encoding_set(&w, ZBP_ENCODING);
	sensor_msgs_msg_Image_w_step_set(&w, DATA);
	uint32_t cap;
	zbp_fill(sensor_msgs_msg_Image_w_data(&w, &cap), DATA, seq);
	sensor_msgs_msg_Image_w_data_set_len(&w, DATA);
	e = zcast_typed_publish(p, m, &w.w);
	if (e == ZCAST_EAGAIN)
		zcast_msg_drop(m); /* loaned again on the retry */
	return e;
}

static int pub(const char *prefix, int n, uint32_t count)
{
	sensor_msgs_msg_Image_bounds bounds = {{sizeof ZBP_FRAME}, sizeof ZBP_ENCODING, DATA};
	zcast_typed_pub **p = calloc((size_t)n, sizeof *p);
	if (!p)
		return 1;
	for (int t = 0; t < n; t++) {
		char name[128];
		topic_name(name, sizeof name, prefix, t);
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_count = 8;
		int e = sensor_msgs_msg_Image_pub_open(name, &bounds, &o, &p[t]);
		if (e < 0)
			return die("open", e);
		zcast_topic_stat st;
		while (zcast_topic_stat_get(NULL, name, &st) < 0 || st.subscribers < 1)
			usleep(10000);
	}
	for (uint32_t seq = 1; seq <= count; seq++)
		for (int t = 0; t < n; t++) {
			int e;
			while ((e = publish(p[t], t, seq)) == ZCAST_EAGAIN || e == ZCAST_ENOSLOT)
				usleep(200);
			if (e < 0)
				return die("publish", e);
		}
	printf("published %u x %d\n", count, n);
	fflush(stdout);
	usleep(300 * 1000); /* the bridge takes the last ones from live publishers */
	for (int t = 0; t < n; t++)
		zcast_typed_pub_close(p[t]);
	free(p);
	return 0;
}

struct tally {
	uint32_t last;
	uint64_t received, bad, dup;
};

static int sub(const char *prefix, int n, uint32_t count, int argc, char **argv)
{
	zcast_sub **s = calloc((size_t)n, sizeof *s);
	struct tally *tl = calloc((size_t)n, sizeof *tl);
	zcast_waitset *ws;
	if (!s || !tl || zcast_waitset_create(&ws) < 0)
		return 1;
	for (int t = 0; t < n; t++) {
		char name[128];
		topic_name(name, sizeof name, prefix, t);
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		zcast_typed_sub_opts(&o, &sensor_msgs_msg_Image_TYPE);
		o.policy = ZCAST_POLICY_FULL;
		o.queue_depth = 16;
		int e = zcast_sub_open(name, &o, &s[t]), id;
		if (e < 0)
			return die("open", e);
		if ((e = zcast_waitset_add_sub(ws, s[t], &tl[t], &id)) < 0)
			return die("wait set", e);
	}
	printf("subscribed\n");
	fflush(stdout);
	int64_t deadline = now_ns() + opt(argc, argv, "--timeout-s", 30) * 1000000000ll;
	int64_t settle = opt(argc, argv, "--settle-ms", 300) * 1000000, done_at = 0;
	int complete = 0;
	while (now_ns() < deadline && (!done_at || now_ns() < done_at + settle)) {
		zcast_ws_event ev[64];
		int k = zcast_waitset_wait(ws, 20 * 1000 * 1000, ev, 64);
		for (int i = 0; i < k; i++) {
			struct tally *x = ev[i].user;
			int t = (int)(x - tl);
			zcast_msg *m;
			while (zcast_take(s[t], &m) == 0) {
				sensor_msgs_msg_Image_reader r;
				int ok = sensor_msgs_msg_Image_read_msg(&r, m) == 0;
				uint32_t seq =
				    ok ? (uint32_t)sensor_msgs_msg_Image_header_stamp_sec(&r) : 0;
				uint32_t nd = 0;
				const uint8_t *d = ok ? sensor_msgs_msg_Image_data(&r, &nd) : NULL;
				ok = ok && sensor_msgs_msg_Image_header_stamp_nanosec(&r) == (uint32_t)t &&
				     nd == DATA && zbp_check(d, nd, seq);
				x->received++;
				if (!ok)
					x->bad++;
				else if (seq != x->last + 1)
					x->dup += seq <= x->last, x->bad += seq > x->last + 1;
				else if (++x->last == count)
					complete++;
				zcast_msg_drop(m);
			}
		}
		if (!done_at && complete == n)
			done_at = now_ns();
	}
	uint64_t received = 0, bad = 0, dup = 0;
	for (int t = 0; t < n; t++) {
		received += tl[t].received, bad += tl[t].bad, dup += tl[t].dup;
		if (tl[t].last != count)
			printf("topic %d: last %u of %u\n", t, tl[t].last, count);
	}
	printf("topics %d complete %d received %llu bad %llu dup %llu\n", n, complete,
	       (unsigned long long)received, (unsigned long long)bad, (unsigned long long)dup);
	fflush(stdout);
	zcast_waitset_destroy(ws);
	for (int t = 0; t < n; t++)
		zcast_sub_close(s[t]);
	free(s);
	free(tl);
	return complete == n && !bad && !dup && received == (uint64_t)n * count ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return fprintf(stderr, "usage: pool_peer pub|sub <prefix> <topics> <count> ...\n"), 2;
	int n = atoi(argv[3]);
	uint32_t count = (uint32_t)strtoul(argv[4], NULL, 10);
	if (n < 1 || !count)
		return 2;
	if (strcmp(argv[1], "pub") == 0)
		return pub(argv[2], n, count);
	return sub(argv[2], n, count, argc, argv);
}
