/* The bridge benchmark's peer (bench/bridge.sh): the same sensor_msgs/Image either through zcast
 * (and the bridges between two hosts) or through a plain Cyclone DDS writer/reader pair.
 *   bridge_bench zcast|cyclone ping <bytes> <count>   latency: sends, waits for the echo; prints
 *                                                     "lat <bytes> p50_us p90_us p99_us"
 *   bridge_bench zcast|cyclone echo <count>           returns every ping as a pong
 *   bridge_bench zcast|cyclone send <bytes> <count>   throughput: sends as fast as allowed
 * (reliable) bridge_bench zcast|cyclone recv <count>           prints "thr <bytes> msgs_per_s
 * MiB_per_s" zcast topics /ping, /pong, /thr; DDS topics rt/ping, rt/pong, rt/thr (ROS 2 names, so
 * a Cyclone peer and a bridge use the same wire). One-way latency = round trip / 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dds/dds.h>

#include "ros_image.h"
#include "sensor_msgs/msg/Image.h"

#define OVERHEAD 48u /* CDR bytes of the Image before its data (frame "zb", encoding "mono8") */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the two transports behind one small interface ---- */

struct ep {
	int cyclone;
	zcast_typed_pub *zp;
	zcast_sub *zs;
	dds_entity_t pp, w, r, ws; /* ws: a wait set on r's read condition */
	uint8_t *buf;		   /* Cyclone: the data buffer of written samples */
};

static void die(const char *what)
{
	fprintf(stderr, "bridge_bench: %s: %s\n", what, zcast_last_error());
	exit(1);
}

static void open_writer(struct ep *e, const char *topic, uint32_t max)
{
	if (e->cyclone) {
		char name[64];
		snprintf(name, sizeof name, "rt%s", topic);
		dds_entity_t tp =
		    dds_create_topic(e->pp, &sensor_msgs_msg_dds__Image__desc, name, NULL, NULL);
		dds_qos_t *q = dds_create_qos();
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
		if ((e->w = dds_create_writer(e->pp, tp, q, NULL)) < 0)
			die("dds writer");
		dds_delete_qos(q);
		e->buf = calloc(1, max + 1);
		return;
	}
	sensor_msgs_msg_Image_bounds b = {{3}, 6, max};
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_count = 16;
	if (sensor_msgs_msg_Image_pub_open(topic, &b, &o, &e->zp) < 0)
		die("zcast publisher");
}

static void open_reader(struct ep *e, const char *topic)
{
	if (e->cyclone) {
		char name[64];
		snprintf(name, sizeof name, "rt%s", topic);
		dds_entity_t tp =
		    dds_create_topic(e->pp, &sensor_msgs_msg_dds__Image__desc, name, NULL, NULL);
		dds_qos_t *q = dds_create_qos();
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
		if ((e->r = dds_create_reader(e->pp, tp, q, NULL)) < 0)
			die("dds reader");
		dds_delete_qos(q);
		e->ws = dds_create_waitset(e->pp);
		dds_waitset_attach(e->ws, dds_create_readcondition(e->r, DDS_ANY_STATE), 0);
		return;
	}
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_typed_sub_opts(&o, &sensor_msgs_msg_Image_TYPE);
	o.queue_depth = 8;
	if (zcast_sub_open(topic, &o, &e->zs) < 0)
		die("zcast subscriber");
}

/* Sends message seq with n data bytes (the data carries nothing checked: this measures). */
static void send_msg(struct ep *e, uint32_t seq, uint32_t n)
{
	if (e->cyclone) {
		sensor_msgs_msg_dds__Image_ m;
		memset(&m, 0, sizeof m);
		m.header.stamp.sec = (int32_t)seq;
		m.header.frame_id = "zb";
		m.encoding = "mono8";
		m.width = m.step = n;
		m.height = 1;
		m.data._buffer = e->buf;
		m.data._length = m.data._maximum = n;
		if (dds_write(e->w, &m) < 0)
			die("dds_write");
		return;
	}
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	int r;
	while ((r = sensor_msgs_msg_Image_loan(e->zp, NULL, &m, &w)) == ZCAST_ENOSLOT)
		usleep(50);
	if (r < 0)
		die("loan");
	sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, (int32_t)seq);
	sensor_msgs_msg_Image_w_header_frame_id_set(&w, "zb");
	sensor_msgs_msg_Image_w_encoding_set(&w, "mono8");
	sensor_msgs_msg_Image_w_height_set(&w, 1);
	sensor_msgs_msg_Image_w_width_set(&w, n);
	sensor_msgs_msg_Image_w_step_set(&w, n);
	sensor_msgs_msg_Image_w_data_set_len(&w, n);
	while ((r = sensor_msgs_msg_Image_publish(e->zp, m, &w)) == ZCAST_EAGAIN)
		usleep(20);
	if (r < 0)
		die("publish");
}

/* Receives one message: its seq and data length. Blocks. */
static void recv_msg(struct ep *e, uint32_t *seq, uint32_t *n)
{
	if (e->cyclone) {
		for (;;) {
			void *s[1] = {NULL};
			dds_sample_info_t si;
			int k = dds_take(e->r, s, &si, 1, 1);
			if (k > 0 && si.valid_data) {
				const sensor_msgs_msg_dds__Image_ *m = s[0];
				*seq = (uint32_t)m->header.stamp.sec;
				*n = m->data._length;
				dds_return_loan(e->r, s, k);
				return;
			}
			if (k > 0)
				dds_return_loan(e->r, s, k);
			else
				dds_waitset_wait(e->ws, NULL, 0, DDS_INFINITY);
		}
	}
	for (;;) {
		zcast_msg *m;
		if (zcast_take(e->zs, &m) < 0) {
			zcast_wait(e->zs, -1);
			continue;
		}
		sensor_msgs_msg_Image_reader r;
		if (sensor_msgs_msg_Image_read_msg(&r, m) < 0)
			die("invalid message");
		*seq = (uint32_t)sensor_msgs_msg_Image_header_stamp_sec(&r);
		sensor_msgs_msg_Image_data(&r, n);
		zcast_msg_drop(m);
		return;
	}
}

/* Waits until the writer has a reader: the peer's (Cyclone) or the bridge's (zcast). */
static void wait_matched(struct ep *e, const char *topic)
{
	if (e->cyclone) {
		dds_publication_matched_status_t st = {0};
		while (!st.current_count) {
			dds_get_publication_matched_status(e->w, &st);
			usleep(10000);
		}
		return;
	}
	zcast_topic_stat st;
	while (zcast_topic_stat_get(NULL, topic, &st) < 0 || st.subscribers == 0)
		usleep(10000);
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: see bench/bridge_bench.c\n"), 2;
	struct ep e = {.cyclone = strcmp(argv[1], "cyclone") == 0};
	const char *dom =
	    getenv("ZB_DDS_DOMAIN"); /* bench/bridge.sh keeps the pair off the bridges' */
	if (e.cyclone &&
	    (e.pp = dds_create_participant(dom ? (dds_domainid_t)atoi(dom) : DDS_DOMAIN_DEFAULT,
					   NULL, NULL)) < 0)
		die("participant");
	const char *role = argv[2];
	if (strcmp(role, "ping") == 0 && argc == 5) {
		uint32_t bytes = (uint32_t)strtoul(argv[3], NULL, 0),
			 count = (uint32_t)atoi(argv[4]);
		uint32_t n = bytes - OVERHEAD;
		open_writer(&e, "/ping", n);
		open_reader(&e, "/pong");
		wait_matched(&e, "/ping");
		usleep(500000); /* both directions discovered */
		int64_t *rtt = calloc(count, sizeof *rtt);
		for (uint32_t i = 0; i < count + 10; i++) { /* 10 warm-up round trips */
			int64_t t0 = now_ns();
			send_msg(&e, i + 1, n);
			uint32_t seq = 0, got;
			while (seq != i + 1)
				recv_msg(&e, &seq, &got);
			if (i >= 10)
				rtt[i - 10] = now_ns() - t0;
		}
		qsort(rtt, count, sizeof *rtt, cmp);
		printf("lat %u %.1f %.1f %.1f\n", bytes, rtt[count / 2] / 2e3,
		       rtt[count * 9 / 10] / 2e3, rtt[count * 99 / 100] / 2e3);
	} else if (strcmp(role, "echo") == 0) {
		uint32_t count = (uint32_t)atoi(argv[3]);
		open_reader(&e, "/ping");
		open_writer(&e, "/pong", 8u << 20);
		for (uint32_t i = 0; i < count + 10; i++) {
			uint32_t seq, n;
			recv_msg(&e, &seq, &n);
			send_msg(&e, seq, n);
		}
		usleep(500000);
	} else if (strcmp(role, "send") == 0 && argc == 5) {
		uint32_t bytes = (uint32_t)strtoul(argv[3], NULL, 0),
			 count = (uint32_t)atoi(argv[4]);
		open_writer(&e, "/thr", bytes - OVERHEAD);
		wait_matched(&e, "/thr");
		usleep(500000);
		for (uint32_t i = 1; i <= count; i++)
			send_msg(&e, i, bytes - OVERHEAD);
		usleep(500000);
	} else if (strcmp(role, "recv") == 0) {
		uint32_t count = (uint32_t)atoi(argv[3]), seq, n = 0;
		open_reader(&e, "/thr");
		printf("ready\n");
		fflush(stdout);
		recv_msg(&e, &seq, &n);
		int64_t t0 = now_ns();
		for (uint32_t i = 1; i < count; i++)
			recv_msg(&e, &seq, &n);
		double s = (double)(now_ns() - t0) / 1e9;
		printf("thr %u %.1f %.1f\n", n + OVERHEAD, (count - 1) / s,
		       (count - 1) * (double)(n + OVERHEAD) / s / 1048576.0);
	} else {
		return fprintf(stderr, "usage: see bench/bridge_bench.c\n"), 2;
	}
	if (e.cyclone)
		dds_delete(e.pp);
	return 0;
}
