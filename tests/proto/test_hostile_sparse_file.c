/* Issue 10, finding 2: a 256 MiB sparse file full of garbage at a topic's /dev/shm name must cost
 * an opener nothing: it checks the file (fstat, header) before mapping or prefaulting all of it.
 *  - garbage, nobody attached: the open fails (ZCAST_ECORRUPT, ZCAST_ELAYOUT or ZCAST_EPERM), or
 *    rebuilds the segment as one nobody uses (the recovery design), at the size it needs;
 *  - a valid magic with garbage limits, held by a live process (a shared lock on byte 0, as every
 *    member holds): it may not be rebuilt, so the open fails with one of those errors.
 * Each open runs in a fresh child: its peak resident set (VmHWM) may grow by at most 8 MiB, and the
 * file (if still there) may have at most 8 MiB allocated afterwards (nothing prefaulted). */
#include "zt_hostile.h"

#define BIG (256ull << 20)
#define ALLOWED_KIB (8 * 1024)

static void make_file(const char *topic, int good_magic)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	static _Alignas(64) uint8_t junk[65536]; /* read as a header: aligned like one */
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (size_t i = 0; i < sizeof junk; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		junk[i] = (uint8_t)x;
	}
	if (good_magic) { /* passes the first look: magic and version, garbage after */
		struct zc_topic_hdr *hh = (struct zc_topic_hdr *)junk;
		hh->magic = ZC_TOPIC_MAGIC;
		hh->layout_version = ZC_LAYOUT_VERSION;
	}
	CHECK_EQ(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
	CHECK_EQ(ftruncate(fd, (off_t)BIG), 0);
	close(fd);
}

/* KiB allocated to the file, 0 if it is gone. */
static long blocks_kib(const char *topic)
{
	char path[400];
	zt_topic_path(path, sizeof path, topic);
	struct stat st;
	if (stat(path, &st) != 0) {
		CHECK_EQ(errno, ENOENT);
		return 0;
	}
	return (long)(st.st_blocks / 2);
}

struct args {
	const char *topic;
	int must_fail;
	int ready_w;
};

/* A live "member" of the file: holds a shared lock on byte 0 until killed. */
static int holder_main(void *a_)
{
	struct args *a = a_;
	char path[400];
	zt_topic_path(path, sizeof path, a->topic);
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	CHECK_EQ(fcntl(fd, F_OFD_SETLK, &fl), 0);
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

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
	if (r == 0 && a->must_fail) {
		fprintf(stderr,
			"FAIL: a garbage segment held by a live process was accepted as %s\n",
			a->topic);
		zcast_sub_close(s);
		return 1;
	}
	if (r == 0)
		zcast_sub_close(s);
	else
		CHECK(r == ZCAST_ECORRUPT || r == ZCAST_ELAYOUT || r == ZCAST_EPERM);
	if (after - before > ALLOWED_KIB) {
		fprintf(stderr, "FAIL: opening a garbage file grew the peak RSS by %ld KiB\n",
			after - before);
		return 1;
	}
	return 0;
}

static void one_variant(const char *topic, int good_magic, int held)
{
	make_file(topic, good_magic);
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	struct args a = {topic, held, ready[1]};
	pid_t holder = 0;
	if (held) {
		holder = zt_fork(holder_main, &a);
		zt_await(ready[0]);
	}
	pid_t c = zt_fork(opener_main, &a);
	zt_child_ok_within(c, 20000, "open of a sparse garbage file");
	long kib = blocks_kib(topic);
	printf("%s: %ld KiB allocated in /dev/shm after the open\n", topic, kib);
	if (kib > ALLOWED_KIB) {
		fprintf(stderr, "FAIL: the open prefaulted %ld KiB of a sparse garbage file\n",
			kib);
		zt_fail();
	}
	if (holder) {
		kill(holder, SIGKILL);
		zt_wait(holder);
	}
}

static void garbage_unused(void)
{
	one_variant("/sparse/garbage", 0, 0);
}

static void magic_held_live(void)
{
	one_variant("/sparse/magic", 1, 1);
}

int main(void)
{
	zt_setup("hsparse", 60);
	static const struct zt_case cases[] = {ZT_CASE(garbage_unused), ZT_CASE(magic_held_live)};
	return zt_run_cases(cases, 2, 25);
}
