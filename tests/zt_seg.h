/* Test helpers that reach into segments from outside the library: map a topic's control segment or
 * a pool by name, as a hostile or buggy member could. Uses the layout contract (src/layout.h). */
#ifndef ZT_SEG_H
#define ZT_SEG_H

#include <fcntl.h>
#include <sys/stat.h>

#include "../src/proto/layout.h"
#include "harness.h"

/* "/dev/shm/zcast.<domain>.<topic with '/' as '.'>" */
static inline void zt_topic_path(char *out, size_t n, const char *topic)
{
	snprintf(out, n, "/dev/shm/zcast.%s.%s", zt_domain(), topic + 1);
	for (char *p = out + strlen("/dev/shm/zcast.") + strlen(zt_domain()) + 1; *p; p++)
		if (*p == '/')
			*p = '.';
}

/* "/dev/shm/zcast-bell.<pid>.<serial>": the doorbell a subscriber record's reference names. */
static inline void zt_bell_path(char *out, size_t n, uint64_t ref)
{
	snprintf(out, n, "/dev/shm/zcast-bell.%u.%u", ZC_BELL_REF_PID(ref), ZC_BELL_REF_SERIAL(ref));
}

struct zt_map {
	void *p;
	size_t size;
};

static inline struct zt_map zt_map_path(const char *path)
{
	struct zt_map m = {NULL, 0};
	int fd = open(path, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	m.size = (size_t)st.st_size;
	m.p = mmap(NULL, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m.p != MAP_FAILED);
	close(fd);
	return m;
}

/* Maps the control segment of `topic` read-write. */
static inline struct zc_topic_hdr *zt_map_topic(const char *topic, size_t *size)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	struct zt_map m = zt_map_path(path);
	if (size)
		*size = m.size;
	return m.p;
}

/* Counts the pool segments of the domain ("zcast.<domain>.@..."). */
static inline int zt_pool_count(void)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "zcast.%s.@", zt_domain());
	return zt_shm_count_prefix(prefix);
}

/* Maps the first pool segment of the domain whose name is found (path returned in out). */
static inline int zt_find_pool(char *out, size_t n)
{
	char prefix[64];
	int len = snprintf(prefix, sizeof prefix, "zcast.%s.@", zt_domain()), found = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d)) && !found) {
		if (strncmp(e->d_name, prefix, (size_t)len) == 0) {
			snprintf(out, n, "/dev/shm/%s", e->d_name);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static inline zcast_topic_stat zt_stat(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st;
}

/* Every slot of the topic is free or kept as history; nothing is loaned. */
#define CHECK_NO_LEAK(topic)                                                                       \
	do {                                                                                       \
		zcast_topic_stat _s = zt_stat(topic);                                              \
		CHECK_EQ(_s.slots_loaned, 0);                                                      \
		CHECK_EQ(_s.slots_published, _s.history_len);                                      \
		CHECK_EQ(_s.slots_free + _s.slots_published, _s.slots_total);                      \
	} while (0)

static inline void zt_publish(zcast_pub *p, uint64_t seq, size_t n)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, n, &m), 0);
	zt_fill(zcast_msg_data(m), n, seq, zcast_pub_id(p));
	CHECK_EQ(zcast_publish(p, m), 0);
}

/* Takes everything queued, verifying each payload; returns the count. */
static inline int zt_drain(zcast_sub *s)
{
	int n = 0;
	zcast_msg *m;
	for (;;) {
		int r = zcast_take(s, &m);
		if (r == ZCAST_EAGAIN)
			return n;
		CHECK_EQ(r, 0);
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
		zcast_msg_drop(m);
		n++;
	}
}

/* A pipe-based "ready" signal from a child. */
static inline void zt_signal(int fd)
{
	char c = 1;
	if (write(fd, &c, 1) != 1)
		_exit(3);
}
static inline void zt_await(int fd)
{
	char c;
	CHECK_EQ(read(fd, &c, 1), 1);
}

#endif
