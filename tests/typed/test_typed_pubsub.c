/* Two processes: sensor_msgs/Image and PointCloud2 published through constrained loans (written in
 * place, compacted, exact size) and read in the subscriber through reader views. Also: per-loan
 * bounds tighter than the publisher's work, looser ones are refused, the topic carries the RIHS01
 * hash, and the copy path interoperates with loans. */
#include "../harness.h"

#include <zcast/waitset.h>

#include <sensor_msgs/msg/Image.h>
#include <sensor_msgs/msg/PointCloud2.h>

#define N_MSGS 20

/* Image i: i*i pixels of value i, encoding "mono8" or "" (odd i), frame "cam<i>". */
static int publish_image(zcast_typed_pub *p, const sensor_msgs_msg_Image_bounds *per_loan, int i)
{
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	int e = sensor_msgs_msg_Image_loan(p, per_loan, &m, &w);
	if (e < 0)
		return e;
	char frame[16];
	snprintf(frame, sizeof frame, "cam%d", i);
	sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, i);
	CHECK_EQ(sensor_msgs_msg_Image_w_header_frame_id_set(&w, frame), 0);
	sensor_msgs_msg_Image_w_height_set(&w, (uint32_t)i);
	sensor_msgs_msg_Image_w_width_set(&w, (uint32_t)i);
	CHECK_EQ(sensor_msgs_msg_Image_w_encoding_set(&w, i % 2 ? "" : "mono8"), 0);
	sensor_msgs_msg_Image_w_step_set(&w, (uint32_t)i);
	uint32_t cap;
	uint8_t *px = sensor_msgs_msg_Image_w_data(&w, &cap);
	CHECK((uint32_t)(i * i) <= cap);
	memset(px, i, (size_t)i * i);
	CHECK_EQ(sensor_msgs_msg_Image_w_data_set_len(&w, (uint32_t)(i * i)), 0);
	if ((e = sensor_msgs_msg_Image_publish(p, m, &w)) < 0)
		zcast_msg_drop(m);
	return e;
}

static void publish_cloud(zcast_typed_pub *p, int i)
{
	zcast_msg *m;
	sensor_msgs_msg_PointCloud2_writer w;
	CHECK_EQ(sensor_msgs_msg_PointCloud2_loan(p, NULL, &m, &w), 0);
	static const char *const names[] = {"x", "y", "z", "intensity"};
	uint32_t nf = (uint32_t)(i % 4) + 1;
	CHECK_EQ(sensor_msgs_msg_PointCloud2_w_fields_set_len(&w, nf), 0);
	for (uint32_t f = 0; f < nf; f++) {
		sensor_msgs_msg_PointField_writer fw;
		CHECK_EQ(sensor_msgs_msg_PointCloud2_w_fields_at(&w, f, &fw), 0);
		CHECK_EQ(sensor_msgs_msg_PointField_w_name_set(&fw, names[f]), 0);
		sensor_msgs_msg_PointField_w_offset_set(&fw, 4 * f);
		sensor_msgs_msg_PointField_w_datatype_set(&fw, sensor_msgs_msg_PointField_FLOAT32);
		sensor_msgs_msg_PointField_w_count_set(&fw, 1);
	}
	sensor_msgs_msg_PointCloud2_w_point_step_set(&w, 4 * nf);
	sensor_msgs_msg_PointCloud2_w_width_set(&w, (uint32_t)i);
	uint32_t cap;
	float *pts = (float *)(void *)sensor_msgs_msg_PointCloud2_w_data(&w, &cap);
	CHECK_EQ((uintptr_t)pts % 4, 0);
	for (uint32_t k = 0; k < nf * (uint32_t)i; k++)
		pts[k] = (float)k;
	CHECK_EQ(sensor_msgs_msg_PointCloud2_w_data_set_len(&w, 4 * nf * (uint32_t)i), 0);
	sensor_msgs_msg_PointCloud2_w_is_dense_set(&w, i % 2);
	CHECK_EQ(sensor_msgs_msg_PointCloud2_publish(p, m, &w), 0);
}

/* Opens a typed subscriber of `topic`. */
static zcast_sub *typed_sub(const char *topic, const zcast_cdr_type *type)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, type);
	so.queue_depth = 64;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &so, &s), 0);
	return s;
}

/* The next message, waiting for it (at most 5 s). */
static zcast_msg *next_msg(zcast_sub *s)
{
	zcast_msg *m;
	while (zcast_take(s, &m) != 0)
		CHECK_EQ(zcast_wait(s, 5000000000), 0);
	return m;
}

static int image_subscriber(void *arg)
{
	(void)arg;
	zcast_sub *s = typed_sub("/typed/image", &sensor_msgs_msg_Image_TYPE);
	for (int i = 1; i <= N_MSGS; i++) {
		zcast_msg *m = next_msg(s);
		sensor_msgs_msg_Image_reader r;
		CHECK_EQ(sensor_msgs_msg_Image_read_msg(&r, m), 0);
		CHECK_EQ(sensor_msgs_msg_Image_header_stamp_sec(&r), i);
		char frame[16];
		snprintf(frame, sizeof frame, "cam%d", i);
		zcast_cdr_str f = sensor_msgs_msg_Image_header_frame_id(&r);
		CHECK(f.len == strlen(frame) && memcmp(f.data, frame, f.len) == 0 &&
		      f.data[f.len] == 0);
		zcast_cdr_str enc = sensor_msgs_msg_Image_encoding(&r);
		CHECK(enc.len == (i % 2 ? 0u : 5u));
		CHECK_EQ(sensor_msgs_msg_Image_step(&r), i);
		uint32_t n;
		const uint8_t *px = sensor_msgs_msg_Image_data(&r, &n);
		CHECK_EQ(n, i * i);
		for (uint32_t k = 0; k < n; k++)
			CHECK(px[k] == (uint8_t)i);
		/* Exact size: prefix + CDR, nothing of the bound layout left. */
		CHECK_EQ(zcast_msg_size(m), ZCAST_TYPED_PREFIX + r.r.end);
		zcast_msg_drop(m);
	}
	zcast_sub_close(s);
	return 0;
}

static int cloud_subscriber(void *arg)
{
	(void)arg;
	zcast_sub *s = typed_sub("/typed/cloud", &sensor_msgs_msg_PointCloud2_TYPE);
	for (int i = 1; i <= N_MSGS; i++) {
		zcast_msg *m = next_msg(s);
		sensor_msgs_msg_PointCloud2_reader r;
		CHECK_EQ(sensor_msgs_msg_PointCloud2_read_msg(&r, m), 0);
		uint32_t nf = sensor_msgs_msg_PointCloud2_fields_count(&r);
		CHECK_EQ(nf, (uint32_t)(i % 4) + 1);
		for (uint32_t k = 0; k < nf; k++) {
			sensor_msgs_msg_PointField_reader fr;
			CHECK_EQ(sensor_msgs_msg_PointCloud2_fields_at(&r, k, &fr), 0);
			CHECK_EQ(sensor_msgs_msg_PointField_offset(&fr), 4 * k);
			CHECK_EQ(sensor_msgs_msg_PointField_datatype(&fr), 7);
			CHECK_EQ(sensor_msgs_msg_PointField_name(&fr).len, k == 3 ? 9 : 1);
		}
		uint32_t n;
		const uint8_t *d = sensor_msgs_msg_PointCloud2_data(&r, &n);
		CHECK_EQ(n, 4 * nf * (uint32_t)i);
		const float *pts = (const float *)(const void *)d;
		for (uint32_t k = 0; k < n / 4; k++)
			CHECK(pts[k] == (float)k);
		CHECK_EQ(sensor_msgs_msg_PointCloud2_is_dense(&r), i % 2);
		zcast_msg_drop(m);
	}
	zcast_sub_close(s);
	return 0;
}

static void wait_matched(zcast_typed_pub *p)
{
	for (int t = 0; zcast_pub_matched(zcast_typed_pub_handle(p)) < 1; t++) {
		CHECK(t < 10000);
		zt_sleep_ms(1);
	}
}

static void test_image_and_cloud_between_two_processes(void)
{
	sensor_msgs_msg_Image_bounds ib = {
	    .header = {.frame_id = 16}, .encoding = 16, .data = 1 << 16};
	zcast_typed_pub *ip;
	CHECK_EQ(sensor_msgs_msg_Image_pub_open("/typed/image", &ib, NULL, &ip), 0);
	sensor_msgs_msg_PointCloud2_bounds cb = {
	    .header = {.frame_id = 8}, .fields = {.count = 4, .elem = {.name = 12}}, .data = 4096};
	zcast_typed_pub *cp;
	CHECK_EQ(sensor_msgs_msg_PointCloud2_pub_open("/typed/cloud", &cb, NULL, &cp), 0);
	pid_t a = zt_fork(image_subscriber, NULL), b = zt_fork(cloud_subscriber, NULL);
	wait_matched(ip);
	wait_matched(cp);
	/* Every other image with tighter per-loan bounds (just what it needs). */
	for (int i = 1; i <= N_MSGS; i++) {
		sensor_msgs_msg_Image_bounds tight = {
		    .header = {.frame_id = 5}, .encoding = 5, .data = (uint32_t)(i * i)};
		CHECK_EQ(publish_image(ip, i % 2 ? &tight : NULL, i), 0);
		publish_cloud(cp, i);
	}
	CHECK_CHILD_OK(a);
	CHECK_CHILD_OK(b);
	zcast_typed_pub_close(ip);
	zcast_typed_pub_close(cp);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_loan_bounds_are_checked(void)
{
	sensor_msgs_msg_Image_bounds ib = {.header = {.frame_id = 8}, .encoding = 8, .data = 100};
	zcast_typed_pub *p;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64; /* below the worst case: raised to it */
	CHECK_EQ(sensor_msgs_msg_Image_pub_open("/typed/bounds", &ib, &po, &p), 0);
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	CHECK_EQ(sensor_msgs_msg_Image_loan(p, NULL, &m, &w), 0);
	CHECK(zcast_msg_capacity(m) >= ZCAST_TYPED_PREFIX + zcast_typed_pub_max_size(p));
	zcast_msg_drop(m);
	sensor_msgs_msg_Image_bounds loose = ib;
	loose.data = 101;
	CHECK_EQ(sensor_msgs_msg_Image_loan(p, &loose, &m, &w), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "above the publisher's") != NULL);
	/* A count written past the bound (bypassing the setter) is refused at publish. */
	CHECK_EQ(sensor_msgs_msg_Image_loan(p, NULL, &m, &w), 0);
	uint32_t bad = 101;
	memcpy(w.w.base + w.off[8], &bad, 4);
	CHECK_EQ(sensor_msgs_msg_Image_publish(p, m, &w), ZCAST_EINVAL);
	zcast_msg_drop(m);
	/* The topic carries name and full hash; another type is refused naming both. */
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, "/typed/bounds", &st), 0);
	CHECK(strcmp(st.type_name, "sensor_msgs/msg/Image") == 0);
	CHECK(memcmp(st.type_hash, sensor_msgs_msg_Image_TYPE_HASH, 32) == 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &sensor_msgs_msg_PointCloud2_TYPE);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/typed/bounds", &so, &s), ZCAST_ETYPE);
	CHECK(strstr(zcast_last_error(), sensor_msgs_msg_Image_TYPE_HASH_STR) != NULL);
	CHECK(strstr(zcast_last_error(), sensor_msgs_msg_PointCloud2_TYPE_HASH_STR) != NULL);
	zcast_typed_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* A typed publish refused after compaction (a full FULL queue) may be retried with the same loan:
 * the message is compacted once and arrives intact. */
static void test_refused_publish_can_be_retried(void)
{
	sensor_msgs_msg_Image_bounds ib = {.header = {.frame_id = 16}, .encoding = 16, .data = 64};
	zcast_typed_pub *p;
	CHECK_EQ(sensor_msgs_msg_Image_pub_open("/typed/retry", &ib, NULL, &p), 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &sensor_msgs_msg_Image_TYPE);
	so.queue_depth = 1;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/typed/retry", &so, &s), 0);
	CHECK_EQ(publish_image(p, NULL, 4), 0); /* fills the queue */
	zcast_msg *m;
	sensor_msgs_msg_Image_writer w;
	CHECK_EQ(sensor_msgs_msg_Image_loan(p, NULL, &m, &w), 0);
	sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, 5);
	CHECK_EQ(sensor_msgs_msg_Image_w_header_frame_id_set(&w, "c5"), 0); /* short: data moves */
	sensor_msgs_msg_Image_w_height_set(&w, 5);
	CHECK_EQ(sensor_msgs_msg_Image_w_encoding_set(&w, "m"), 0);
	uint32_t cap;
	memset(sensor_msgs_msg_Image_w_data(&w, &cap), 5, 25);
	CHECK_EQ(sensor_msgs_msg_Image_w_data_set_len(&w, 25), 0);
	CHECK_EQ(sensor_msgs_msg_Image_publish(p, m, &w), ZCAST_EAGAIN);
	CHECK_EQ(sensor_msgs_msg_Image_publish(p, m, &w), ZCAST_EAGAIN); /* compacted once only */
	zcast_msg_drop(next_msg(s));
	CHECK_EQ(sensor_msgs_msg_Image_publish(p, m, &w), 0);
	zcast_msg *got = next_msg(s);
	sensor_msgs_msg_Image_reader r;
	CHECK_EQ(sensor_msgs_msg_Image_read_msg(&r, got), 0);
	CHECK_EQ(sensor_msgs_msg_Image_header_stamp_sec(&r), 5);
	zcast_cdr_str f = sensor_msgs_msg_Image_header_frame_id(&r);
	CHECK(f.len == 2 && memcmp(f.data, "c5", 2) == 0);
	CHECK_EQ(sensor_msgs_msg_Image_height(&r), 5);
	zcast_cdr_str enc = sensor_msgs_msg_Image_encoding(&r);
	CHECK(enc.len == 1 && enc.data[0] == 'm');
	uint32_t n;
	const uint8_t *px = sensor_msgs_msg_Image_data(&r, &n);
	CHECK_EQ(n, 25);
	for (uint32_t k = 0; k < n; k++)
		CHECK(px[k] == 5);
	zcast_msg_drop(got);
	zcast_sub_close(s);
	zcast_typed_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* The copy path publishes the same message bytes a loan does. */
static void test_copy_path_matches_loans(void)
{
	sensor_msgs_msg_Image_bounds ib = {.header = {.frame_id = 8}, .encoding = 8, .data = 64};
	zcast_typed_pub *p;
	CHECK_EQ(sensor_msgs_msg_Image_pub_open("/typed/copy", &ib, NULL, &p), 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &sensor_msgs_msg_Image_TYPE);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/typed/copy", &so, &s), 0);
	CHECK_EQ(publish_image(p, NULL, 4), 0);
	uint8_t px[16];
	memset(px, 4, sizeof px);
	sensor_msgs_msg_Image img = {.header = {.stamp = {.sec = 4}, .frame_id = {"cam4", 4}},
				     .height = 4,
				     .width = 4,
				     .encoding = {"mono8", 5},
				     .step = 4,
				     .data = {px, 16}};
	CHECK_EQ(zcast_typed_publish_copy(p, &img), 0);
	zcast_msg *a, *b;
	CHECK_EQ(zcast_take(s, &a), 0);
	CHECK_EQ(zcast_take(s, &b), 0);
	CHECK_EQ(zcast_msg_size(a), zcast_msg_size(b));
	CHECK(memcmp(zcast_msg_data(a), zcast_msg_data(b), zcast_msg_size(a)) == 0);
	sensor_msgs_msg_Image out;
	CHECK_EQ(zcast_cdr_deserialize(&sensor_msgs_msg_Image_TYPE,
				       (uint8_t *)zcast_msg_data(b) + 4, zcast_msg_size(b) - 4,
				       &out),
		 0);
	CHECK(out.data.len == 16 && memcmp(out.data.data, px, 16) == 0 && out.encoding.len == 5);
	zcast_cdr_free(&sensor_msgs_msg_Image_TYPE, &out);
	zcast_msg_drop(a);
	zcast_msg_drop(b);
	zcast_sub_close(s);
	zcast_typed_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("typedps", 120);
	RUN(test_loan_bounds_are_checked);
	RUN(test_copy_path_matches_loans);
	RUN(test_refused_publish_can_be_retried);
	RUN(test_image_and_cloud_between_two_processes);
	return 0;
}
