/* The two transports of the bridge benchmarks behind one small interface (bridge_ep.h). */
#include "bridge_ep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ros_image.h"

void zbe_die(const char *what)
{
	fprintf(stderr, "bridge benchmark: %s: %s\n", what, zcast_last_error());
	exit(1);
}

int64_t zbe_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long zbe_opt(int argc, char **argv, const char *name, long def)
{
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return strtol(argv[i + 1], NULL, 0);
	return def;
}

static dds_entity_t dds_topic(zbe_ep *e, const char *topic)
{
	char name[96];
	snprintf(name, sizeof name, "rt%s", topic);
	dds_entity_t tp =
	    dds_create_topic(e->pp, &sensor_msgs_msg_dds__Image__desc, name, NULL, NULL);
	if (tp < 0)
		zbe_die("dds topic");
	return tp;
}

static dds_qos_t *reliable_keep_all(void)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	return q;
}

void zbe_open_writer(zbe_ep *e, const char *topic, uint32_t max_data, uint32_t slots)
{
	if (e->cyclone) {
		dds_qos_t *q = reliable_keep_all();
		if ((e->w = dds_create_writer(e->pp, dds_topic(e, topic), q, NULL)) < 0)
			zbe_die("dds writer");
		dds_delete_qos(q);
		if (!(e->buf = calloc(1, max_data + 1)))
			zbe_die("out of memory");
		return;
	}
	sensor_msgs_msg_Image_bounds b = {{3}, 6, max_data};
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_count = slots;
	if (sensor_msgs_msg_Image_pub_open(topic, &b, &o, &e->zp) < 0)
		zbe_die("zcast publisher");
}

void zbe_open_reader(zbe_ep *e, const char *topic, uint32_t depth)
{
	if (e->cyclone) {
		dds_qos_t *q = reliable_keep_all();
		if ((e->r = dds_create_reader(e->pp, dds_topic(e, topic), q, NULL)) < 0)
			zbe_die("dds reader");
		dds_delete_qos(q);
		if (!e->ws)
			e->ws = dds_create_waitset(e->pp);
		if (dds_waitset_attach(e->ws, dds_create_readcondition(e->r, DDS_ANY_STATE),
				       (dds_attach_t)(uintptr_t)e) < 0)
			zbe_die("dds wait set");
		return;
	}
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_typed_sub_opts(&o, &sensor_msgs_msg_Image_TYPE);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = depth;
	if (zcast_sub_open(topic, &o, &e->zs) < 0)
		zbe_die("zcast subscriber");
}

void zbe_send(zbe_ep *e, uint32_t seq, uint32_t n, const void *head, uint32_t hn)
{
	if (e->cyclone) {
		sensor_msgs_msg_dds__Image_ m;
		memset(&m, 0, sizeof m);
		m.header.stamp.sec = (int32_t)seq;
		m.header.frame_id = "zb";
		m.encoding = "mono8";
		m.width = m.step = n;
		m.height = 1;
		if (hn)
			memcpy(e->buf, head, hn);
		m.data._buffer = e->buf;
		m.data._length = m.data._maximum = n;
		if (dds_write(e->w, &m) < 0)
			zbe_die("dds_write");
		return;
	}
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	int r;
	while ((r = sensor_msgs_msg_Image_loan(e->zp, NULL, &m, &w)) == ZCAST_ENOSLOT)
		usleep(50);
	if (r < 0)
		zbe_die("loan");
	sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, (int32_t)seq);
	sensor_msgs_msg_Image_w_header_frame_id_set(&w, "zb");
	sensor_msgs_msg_Image_w_encoding_set(&w, "mono8");
	sensor_msgs_msg_Image_w_height_set(&w, 1);
	sensor_msgs_msg_Image_w_width_set(&w, n);
	sensor_msgs_msg_Image_w_step_set(&w, n);
	uint32_t cap;
	uint8_t *d = sensor_msgs_msg_Image_w_data(&w, &cap);
	if (hn)
		memcpy(d, head, hn);
	sensor_msgs_msg_Image_w_data_set_len(&w, n);
	while ((r = sensor_msgs_msg_Image_publish(e->zp, m, &w)) == ZCAST_EAGAIN)
		usleep(20);
	if (r < 0)
		zbe_die("publish");
}

static void copy_head(uint8_t *head, const uint8_t *d, uint32_t n)
{
	if (!head)
		return;
	memset(head, 0, ZBE_HEAD);
	memcpy(head, d, n < ZBE_HEAD ? n : ZBE_HEAD);
}

int zbe_take(zbe_ep *e, uint32_t *seq, uint32_t *n, uint8_t *head)
{
	if (e->cyclone) {
		for (;;) {
			void *s[1] = {NULL};
			dds_sample_info_t si;
			int k = dds_take(e->r, s, &si, 1, 1);
			if (k <= 0)
				return 0;
			int valid = si.valid_data;
			if (valid) {
				const sensor_msgs_msg_dds__Image_ *m = s[0];
				*seq = (uint32_t)m->header.stamp.sec;
				*n = m->data._length;
				copy_head(head, m->data._buffer, *n);
			}
			dds_return_loan(e->r, s, k);
			if (valid)
				return 1;
		}
	}
	zcast_msg *m;
	if (zcast_take(e->zs, &m) < 0)
		return 0;
	sensor_msgs_msg_Image_reader r;
	if (sensor_msgs_msg_Image_read_msg(&r, m) < 0)
		zbe_die("invalid message");
	*seq = (uint32_t)sensor_msgs_msg_Image_header_stamp_sec(&r);
	const uint8_t *d = sensor_msgs_msg_Image_data(&r, n); /* sets *n */
	copy_head(head, d, *n);
	zcast_msg_drop(m);
	return 1;
}

void zbe_recv(zbe_ep *e, uint32_t *seq, uint32_t *n, uint8_t *head)
{
	while (!zbe_take(e, seq, n, head)) {
		if (e->cyclone)
			dds_waitset_wait(e->ws, NULL, 0, DDS_INFINITY);
		else
			zcast_wait(e->zs, -1);
	}
}

uint32_t zbe_readers(zbe_ep *e, const char *topic)
{
	if (e->cyclone) {
		dds_publication_matched_status_t st = {0};
		dds_get_publication_matched_status(e->w, &st);
		return st.current_count;
	}
	zcast_topic_stat st;
	return zcast_topic_stat_get(NULL, topic, &st) < 0 ? 0 : st.subscribers;
}

uint32_t zbe_writers(zbe_ep *e)
{
	if (!e->cyclone)
		return 1;
	dds_subscription_matched_status_t st = {0};
	dds_get_subscription_matched_status(e->r, &st);
	return st.current_count;
}
