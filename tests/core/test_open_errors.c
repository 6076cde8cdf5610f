/* Bad input at open gets a clear error and changes nothing: names, types, limits, sizes. */
#include "harness.h"

static void test_topic_and_domain_names(void)
{
	const char *good[] = {"/a", "/camera/front/image", "/_x/y_2", "/A9"};
	const char *bad[] = {"", "a", "/", "//a", "/a/", "/9a", "/a b", "/a.b", "/a-b", "/a/1b", NULL};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		CHECK_EQ(zcast_topic_name_valid(good[i]), 0);
	for (size_t i = 0; bad[i]; i++)
		CHECK_EQ(zcast_topic_name_valid(bad[i]), ZCAST_EINVAL);
	CHECK_EQ(zcast_topic_name_valid(NULL), ZCAST_EINVAL);
	/* NULL options to fill: nothing happens (no crash) */
	zcast_topic_opts_init(NULL);
	zcast_pub_opts_init(NULL);
	zcast_sub_opts_init(NULL);
	char longest[202];
	longest[0] = '/';
	memset(longest + 1, 'x', 199);
	longest[200] = 0;
	CHECK_EQ(zcast_topic_name_valid(longest), 0); /* 200 bytes */
	longest[200] = 'x';
	longest[201] = 0;
	CHECK_EQ(zcast_topic_name_valid(longest), ZCAST_EINVAL);
	CHECK_EQ(zcast_domain_name_valid("robot-1_a"), 0);
	CHECK_EQ(zcast_domain_name_valid("a.b"), ZCAST_EINVAL);
	CHECK_EQ(zcast_domain_name_valid(""), ZCAST_EINVAL);
	CHECK_EQ(zcast_domain_name_valid("0123456789012345678901234567890123"), ZCAST_EINVAL);

	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/bad name", NULL, &p), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "invalid topic name") != NULL);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.domain = "no/slash";
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/ok", &so, &s), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "invalid domain") != NULL);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_long_topic_name_works(void)
{
	char name[201];
	name[0] = '/';
	for (int i = 1; i < 200; i++)
		name[i] = (i % 20 == 0) ? '/' : 'n';
	name[200] = 0;
	zcast_pub *p;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(name, NULL, &s), 0);
	CHECK_EQ(zcast_pub_open(name, NULL, &p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_drop(m);
	zcast_pub_close(p);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

#define ZT_ZEROS10 "0000000000"
#define ZT_ZEROS60 ZT_ZEROS10 ZT_ZEROS10 ZT_ZEROS10 ZT_ZEROS10 ZT_ZEROS10 ZT_ZEROS10
#define ZT_ZEROS62 ZT_ZEROS60 "00"

static void test_type_mismatch_names_both_types(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.type_name = "sensor_msgs/Image";
	po.type_hash[0] = 0x11;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/typed", &po, &p), 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.type_name = "sensor_msgs/PointCloud2";
	so.type_hash[0] = 0x22;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/typed", &so, &s), ZCAST_ETYPE);
	CHECK(strstr(zcast_last_error(), "sensor_msgs/Image") != NULL);
	CHECK(strstr(zcast_last_error(), "sensor_msgs/PointCloud2") != NULL);
	so.type_name = "sensor_msgs/Image"; /* same name, other hash: still a mismatch */
	CHECK_EQ(zcast_sub_open("/typed", &so, &s), ZCAST_ETYPE);
	so.type_hash[0] = 0x11, so.type_hash[31] = 0x01; /* differs in the last byte only */
	CHECK_EQ(zcast_sub_open("/typed", &so, &s), ZCAST_ETYPE);
	/* Both full 256-bit hashes are named, in the ROS 2 spelling. */
	CHECK(strstr(zcast_last_error(), "RIHS01_11" ZT_ZEROS62) != NULL);
	CHECK(strstr(zcast_last_error(), "RIHS01_11" ZT_ZEROS60 "01") != NULL);
	so.type_hash[31] = 0;
	CHECK_EQ(zcast_sub_open("/typed", &so, &s), 0);
	zcast_sub_close(s);
	/* Untyped openers (tools) match any type. */
	CHECK_EQ(zcast_sub_open("/typed", NULL, &s), 0);
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, "/typed", &st), 0);
	CHECK(strcmp(st.type_name, "sensor_msgs/Image") == 0);
	CHECK_EQ(st.subscribers, 1);
	zcast_sub_close(s);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

struct pose_v1 {
	double x, y;
};
struct pose_v2 {
	double x, y, z;
};

/* ZCAST_TYPE: a plain struct's name, size and alignment are its identity. */
static void test_plain_struct_types_are_checked(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	ZCAST_TYPE(&po, struct pose_v1);
	CHECK(strcmp(po.type_name, "struct pose_v1") == 0);
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/plain", &po, &p), 0);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	ZCAST_TYPE(&so, struct pose_v2);
	so.type_name = "struct pose_v1"; /* same name, other size: refused */
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/plain", &so, &s), ZCAST_ETYPE);
	ZCAST_TYPE(&so, struct pose_v1);
	CHECK_EQ(zcast_sub_open("/plain", &so, &s), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, sizeof(struct pose_v1), &m), 0);
	CHECK_EQ((uintptr_t)zcast_msg_data(m) % 64, 0); /* documented payload alignment */
	zcast_msg_drop(m);
	zcast_sub_close(s);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_limits_are_the_creators_and_checked(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.topic.max_subscribers = 2;
	so.topic.max_queue_depth = 16;
	zcast_sub *a, *b, *c;
	CHECK_EQ(zcast_sub_open("/lim", &so, &a), 0);
	/* A later opener asking for more than the topic has gets ELIMIT naming both values. */
	zcast_sub_opts big;
	zcast_sub_opts_init(&big);
	big.topic.max_subscribers = 4;
	CHECK_EQ(zcast_sub_open("/lim", &big, &b), ZCAST_ELIMIT);
	CHECK(strstr(zcast_last_error(), "max_subscribers 2") != NULL);
	CHECK(strstr(zcast_last_error(), "4") != NULL);
	zcast_sub_opts_init(&big);
	big.queue_depth = 17;
	CHECK_EQ(zcast_sub_open("/lim", &big, &b), ZCAST_ELIMIT);
	CHECK(strstr(zcast_last_error(), "max_queue_depth 16") != NULL);
	/* Defaults accept what exists. */
	CHECK_EQ(zcast_sub_open("/lim", NULL, &b), 0);
	CHECK_EQ(zcast_sub_open("/lim", NULL, &c), ZCAST_ELIMIT); /* only 2 subscriber records */
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, "/lim", &st), 0);
	CHECK_EQ(st.max_subscribers, 2);
	CHECK_EQ(st.subscribers, 2);
	zcast_sub_close(a);
	CHECK_EQ(zcast_sub_open("/lim", NULL, &c), 0); /* a freed record is reused */
	zcast_sub_close(b);
	zcast_sub_close(c);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_bad_sizes_and_options(void)
{
	zcast_pub_opts po;
	zcast_pub *p;
	zcast_pub_opts_init(&po);
	po.slot_size = 0;
	CHECK_EQ(zcast_pub_open("/sz", &po, &p), ZCAST_EINVAL);
	zcast_pub_opts_init(&po);
	po.slot_count = 0;
	CHECK_EQ(zcast_pub_open("/sz", &po, &p), ZCAST_EINVAL);
	zcast_pub_opts_init(&po);
	po.history_depth = 100000;
	CHECK_EQ(zcast_pub_open("/sz", &po, &p), ZCAST_ELIMIT);
	zcast_pub_opts_init(&po);
	po.topic.max_subscribers = 2000;
	CHECK_EQ(zcast_pub_open("/sz", &po, &p), ZCAST_EINVAL);
	zcast_sub_opts so;
	zcast_sub *s;
	zcast_sub_opts_init(&so);
	so.policy = 7;
	CHECK_EQ(zcast_sub_open("/sz", &so, &s), ZCAST_EINVAL);
	zcast_sub_opts_init(&so);
	so.policy = ZCAST_POLICY_BALANCE_RR; /* needs a group */
	CHECK_EQ(zcast_sub_open("/sz", &so, &s), ZCAST_EINVAL);
	zcast_sub_opts_init(&so);
	so.queue_depth = 0;
	CHECK_EQ(zcast_sub_open("/sz", &so, &s), ZCAST_EINVAL);
	CHECK_EQ(zcast_pub_open("/sz", NULL, NULL), ZCAST_EINVAL);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_full_shm_is_enomem_not_sigbus(void)
{
	/* A pool larger than /dev/shm: posix_fallocate refuses it up front. */
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 1ull << 40;
	po.slot_count = 1;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/huge", &po, &p), ZCAST_ENOMEM);
	CHECK(strstr(zcast_last_error(), "/dev/shm") != NULL);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_stat_and_gc_of_missing_topic(void)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, "/nothing", &st), ZCAST_ENOENT);
	CHECK_EQ(zcast_topic_gc(NULL, "/nothing"), ZCAST_ENOENT);
	CHECK_EQ(zcast_topic_remove(NULL, "/nothing"), ZCAST_ENOENT);
	CHECK_EQ(zcast_topic_stat_get(NULL, "bad", &st), ZCAST_EINVAL);
	CHECK(strcmp(zcast_strerror(ZCAST_ECORRUPT), "shared memory is corrupted") == 0);
	CHECK(zcast_strerror(-999) != NULL);
}

int main(void)
{
	zt_setup("openerr", 60);
	RUN(test_topic_and_domain_names);
	RUN(test_long_topic_name_works);
	RUN(test_type_mismatch_names_both_types);
	RUN(test_plain_struct_types_are_checked);
	RUN(test_limits_are_the_creators_and_checked);
	RUN(test_bad_sizes_and_options);
	RUN(test_full_shm_is_enomem_not_sigbus);
	RUN(test_stat_and_gc_of_missing_topic);
	return 0;
}
