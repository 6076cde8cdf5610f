/* One mapping per topic per process: a process's publishers, subscribers and tool calls of one
 * topic share one mapping of its control segment and one mapping of each pool's headers, counted
 * in /proc/self/maps. The mapping goes with the last handle; a topic recreated under the same name
 * (a new file) gets a mapping of its own; a header rewritten after the first mapping changes
 * nothing for a later handle (the limits are read once per mapping). */
#include "zt_seg.h"

/* Mappings in this process of files whose /dev/shm name starts with "zcast.<domain>.<what>". */
static int count_maps(const char *what)
{
	char needle[160];
	snprintf(needle, sizeof needle, "/dev/shm/zcast.%s.%s", zt_domain(), what);
	FILE *f = fopen("/proc/self/maps", "r");
	CHECK(f != NULL);
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

static zcast_sub *open_sub(const char *topic)
{
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, NULL, &s), 0);
	return s;
}

static void publish(zcast_pub *p, uint8_t v)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	memset(zcast_msg_data(m), v, 64);
	CHECK_EQ(zcast_publish(p, m), 0);
}

static void test_handles_share_one_mapping(void)
{
	enum { N = 50 };
	zcast_sub *subs[N];
	for (int i = 0; i < N; i++)
		subs[i] = open_sub("/shared");
	CHECK_EQ(count_maps("shared"), 1);
	zcast_pub *p = zt_open_pub("/shared", 4096, 8);
	CHECK_EQ(count_maps("shared"), 1);
	int pools_before = count_maps("@");
	publish(p, 7);
	for (int i = 0; i < N; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_take(subs[i], &m), 0);
		CHECK_EQ(((const uint8_t *)zcast_msg_data(m))[63], 7);
		zcast_msg_drop(m);
	}
	/* Fifty takes from one pool: its file is mapped by the publisher (whole, writable) and by
	 * nobody else in this process, since the subscribers use the process's cached map. */
	CHECK_EQ(count_maps("@"), pools_before);
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(zt_domain(), "/shared", &st), 0);
	CHECK_EQ(st.subscribers, N);
	CHECK_EQ(count_maps("shared"), 1);
	zcast_pub_close(p);
	for (int i = 0; i < N; i++)
		zcast_sub_close(subs[i]);
	CHECK_EQ(count_maps("shared"), 0);
	CHECK_EQ(count_maps("@"), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_subscriber_maps_a_remote_pool_once(void)
{
	zcast_sub *a = open_sub("/remote"), *b = open_sub("/remote");
	int up[2], down[2]; /* child to parent, parent to child */
	CHECK_EQ(pipe(up), 0);
	CHECK_EQ(pipe(down), 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		zcast_pub *p = zt_open_pub("/remote", 4096, 8);
		publish(p, 1);
		publish(p, 2);
		char c = 1;
		CHECK_EQ(write(up[1], &c, 1), 1);
		CHECK_EQ(read(down[0], &c, 1), 1); /* parent took */
		zcast_pub_close(p);
		_exit(0);
	}
	char c;
	CHECK_EQ(read(up[0], &c, 1), 1);
	for (int round = 0; round < 2; round++) {
		zcast_msg *ma, *mb;
		CHECK_EQ(zcast_take(a, &ma), 0);
		CHECK_EQ(zcast_take(b, &mb), 0);
		/* Both see the same bytes through the same mapping of the pool. */
		CHECK(zcast_msg_data(ma) == zcast_msg_data(mb));
		zcast_msg_drop(ma);
		zcast_msg_drop(mb);
	}
	/* The pool's headers and its payload (read-only): one mapping each, whatever the
	 * number of subscribers. */
	CHECK_EQ(count_maps("@"), 2);
	c = 1;
	CHECK_EQ(write(down[1], &c, 1), 1);
	for (int i = 0; i < 2; i++) {
		close(up[i]);
		close(down[i]);
	}
	CHECK_EQ(zt_wait(pid), 0);
	zcast_sub_close(a);
	zcast_sub_close(b);
	CHECK_EQ(count_maps("@"), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_recreated_topic_gets_its_own_mapping(void)
{
	zcast_sub *old = open_sub("/again");
	char path[400];
	zt_topic_path(path, sizeof path, "/again");
	CHECK_EQ(unlink(path), 0); /* removed by hand; old stays attached to the unlinked file */
	zcast_sub *fresh = open_sub("/again");
	CHECK_EQ(count_maps("again"), 2);
	zcast_pub *p = zt_open_pub("/again", 4096, 8);
	publish(p, 3);
	zcast_msg *m;
	CHECK_EQ(zcast_take(fresh, &m), 0);
	zcast_msg_drop(m);
	CHECK_EQ(zcast_take(old, &m), ZCAST_EAGAIN); /* the old instance is another topic */
	zcast_pub_close(p);
	zcast_sub_close(old);
	CHECK_EQ(count_maps("again"), 1);
	zcast_sub_close(fresh);
	CHECK_EQ(count_maps("again"), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_header_is_read_once_per_mapping(void)
{
	zcast_sub *first = open_sub("/once");
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic("/once", &size);
	uint32_t subs = h->max_subs;
	h->max_subs = subs * 4; /* a scribbler: the arrays in the file did not grow */
	zcast_sub *more[8];
	for (int i = 0; i < 8; i++)
		more[i] = open_sub("/once");
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(zt_domain(), "/once", &st), 0);
	CHECK_EQ(st.max_subscribers, subs);
	CHECK_EQ(st.subscribers, 9);
	h->max_subs = subs;
	munmap(h, size);
	for (int i = 0; i < 8; i++)
		zcast_sub_close(more[i]);
	zcast_sub_close(first);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_forked_child_maps_its_own(void)
{
	zcast_sub *s = open_sub("/forked");
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		/* The parent's mapping is absent here: the child's open maps the topic anew. */
		CHECK_EQ(count_maps("forked"), 0);
		zcast_pub *p = zt_open_pub("/forked", 4096, 8);
		CHECK_EQ(count_maps("forked"), 1);
		publish(p, 9);
		zcast_pub_close(p);
		zcast_sub_close(s); /* the inherited handle: let go of, nothing unmapped */
		_exit(0);
	}
	CHECK_EQ(zt_wait(pid), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	CHECK_EQ(((const uint8_t *)zcast_msg_data(m))[0], 9);
	zcast_msg_drop(m);
	CHECK_EQ(count_maps("forked"), 1);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("topicmap", 60);
	RUN(test_handles_share_one_mapping);
	RUN(test_subscriber_maps_a_remote_pool_once);
	RUN(test_recreated_topic_gets_its_own_mapping);
	RUN(test_header_is_read_once_per_mapping);
	RUN(test_forked_child_maps_its_own);
	return 0;
}
