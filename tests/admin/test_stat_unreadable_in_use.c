/* zcast_topic_stat_get on a topic file it cannot read says ZCAST_EAGAIN ("being created") only while
 * a creator is at work: the creator holds byte 0 exclusively until its header is complete, members
 * hold it shared. A topic in use by live members whose header fails the checks (another zcast's
 * layout version, or a header a member rewrote) gets its own error, so `zcast doctor` reports it;
 * it was ZCAST_EAGAIN, and doctor skipped it as "being created" for as long as it was in use. */
#include "zt_seg.h"

#define TOPIC "/statbad/t"
#define MADE "/statbad/made"

/* A process of its own: the test's process has TOPIC mapped and does not read its header again. */
static int stat_in_child(void *arg)
{
	(void)arg;
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(NULL, TOPIC, &st);
	printf("a live member's topic of another layout: stat %d (%s)\n", r, zcast_last_error());
	return r == ZCAST_ELAYOUT ? 0 : 1;
}

/* A file at MADE's name, still empty, with byte 0 locked (F_OFD_SETLK) as `type`. */
static int half_made(short type)
{
	char path[400];
	zt_topic_path(path, sizeof path, MADE);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	CHECK(fcntl(fd, F_OFD_SETLK, &fl) == 0);
	return fd;
}

int main(void)
{
	zt_setup("statbad", 60);

	/* A creator at work (exclusive): being created. */
	zcast_topic_stat st;
	int fd = half_made(F_WRLCK);
	CHECK_EQ(zcast_topic_stat_get(NULL, MADE, &st), ZCAST_EAGAIN);
	close(fd);
	/* Held shared only: nobody is creating it, it is unreadable. */
	fd = half_made(F_RDLCK);
	CHECK_EQ(zcast_topic_stat_get(NULL, MADE, &st), ZCAST_ECORRUPT);
	close(fd);

	/* A live member's topic whose header names another layout version. */
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 4);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, &size);
	uint32_t version = h->layout_version;
	h->layout_version = version + 1;
	CHECK_CHILD_OK(zt_fork(stat_in_child, NULL));
	h->layout_version = version;
	CHECK_EQ(zcast_topic_stat_get(NULL, TOPIC, &st), 0);
	CHECK_EQ(st.in_use, 1);
	zcast_sub_close(s);
	munmap(h, size);
	return 0;
}
