/* Issue 10, finding 2: a 256 MiB sparse file full of garbage at a topic's /dev/shm name must cost
 * an opener nothing: the open fails (ZCAST_ECORRUPT, ZCAST_ELAYOUT or ZCAST_EPERM) after checking
 * the file with fstat and its header, before mapping (or prefaulting) the whole file. (A file
 * without a magic may instead be rebuilt as a creator's unfinished segment, at the size the opener
 * needs.) Checked per variant in a fresh child: its peak resident set (VmHWM) grows by at most a
 * few MiB, and the file still has almost no blocks allocated afterwards (nothing was prefaulted
 * into /dev/shm). */
#include "zt_hostile.h"

#define BIG (256ull << 20)
#define ALLOWED_KIB (8 * 1024)

enum { GARBAGE, GOOD_MAGIC };

static void make_file(const char *topic, int variant)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	static uint8_t junk[65536];
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (size_t i = 0; i < sizeof junk; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		junk[i] = (uint8_t)x;
	}
	if (variant == GOOD_MAGIC) { /* passes the first look: magic and version, garbage after */
		struct zc_topic_hdr *hh = (struct zc_topic_hdr *)junk;
		hh->magic = ZC_TOPIC_MAGIC;
		hh->layout_version = ZC_LAYOUT_VERSION;
	}
	CHECK_EQ(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
	CHECK_EQ(ftruncate(fd, (off_t)BIG), 0);
	close(fd);
}

static long blocks_kib(const char *topic)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	struct stat st;
	if (stat(path, &st) != 0 && errno == ENOENT)
		return 0; /* rebuilt as a fresh topic and removed by its last leave: nothing left */
	CHECK_EQ(stat(path, &st), 0);
	return (long)(st.st_blocks / 2);
}

struct args {
	const char *topic;
	int variant;
};

static int opener_main(void *a_)
{
	struct args *a = a_;
	long before = zt_mem_kib("VmHWM");
	CHECK(before > 0);
	zcast_sub *s = NULL;
	int r = zcast_sub_open(a->topic, NULL, &s);
	long after = zt_mem_kib("VmHWM");
	printf("%s: open -> %d (%s); peak RSS %ld -> %ld KiB\n", a->topic, r, zcast_last_error(),
	       before, after);
	/* A file of our own that nobody uses and that fails its checks is rebuilt as a fresh topic
	 * (an abandoned, corrupt or unfinished segment: test_recovery); that must not cost 256 MiB
	 * either, and the topic must then work. */
	if (r == 0) {
		zcast_topic_stat st;
		CHECK_EQ(zcast_topic_stat_get(NULL, a->topic, &st), 0);
		CHECK_EQ(st.subscribers, 1);
		zcast_sub_close(s);
	}
	else
		CHECK(r == ZCAST_ECORRUPT || r == ZCAST_ELAYOUT || r == ZCAST_EPERM);
	if (after - before > ALLOWED_KIB) {
		fprintf(stderr, "FAIL: opening a garbage file grew the peak RSS by %ld KiB\n",
			after - before);
		return 1;
	}
	return 0;
}

int main(void)
{
	zt_setup("hsparse", 60);
	const char *topics[] = {"/sparse/garbage", "/sparse/magic"};
	for (int v = 0; v < 2; v++) {
		make_file(topics[v], v);
		struct args a = {topics[v], v};
		pid_t c = zt_fork(opener_main, &a);
		zt_child_ok_within(c, 20000, "open of a sparse garbage file");
		long kib = blocks_kib(topics[v]);
		printf("%s: %ld KiB allocated in /dev/shm after the open\n", topics[v], kib);
		if (kib > ALLOWED_KIB) {
			fprintf(stderr,
				"FAIL: the open prefaulted %ld KiB of a sparse garbage file\n",
				kib);
			zt_fail();
		}
	}
	printf("ok\n");
	return 0;
}
