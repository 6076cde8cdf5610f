/* Issue 10, finding 6: a non-regular file (a FIFO, a directory) at a topic's /dev/shm name makes
 * zcast_sub_open and zcast_pub_open fail at once with an error that names the topic (or its file);
 * no opener waits for such a file to become a topic (each case has a 2 s watchdog), and none
 * removes it to make its own. */
#include "zt_hostile.h"

static char path[400];

static void expect_refused(const char *topic)
{
	zcast_sub *s = NULL;
	int r = zcast_sub_open(topic, NULL, &s);
	printf("sub open: %d (%s)\n", r, zcast_last_error());
	CHECK(r < 0);
	CHECK(r != ZCAST_ETIMEDOUT);
	CHECK_MSG_HAS(zcast_last_error(), "odd"); /* names the topic or its file */
	zcast_pub *p = NULL;
	r = zcast_pub_open(topic, NULL, &p);
	printf("pub open: %d (%s)\n", r, zcast_last_error());
	CHECK(r < 0);
	CHECK(r != ZCAST_ETIMEDOUT);
	CHECK_MSG_HAS(zcast_last_error(), "odd");
}

static void fifo(void)
{
	zt_topic_path(path, sizeof path, "/odd/fifo");
	CHECK_EQ(mkfifo(path, 0600), 0);
	expect_refused("/odd/fifo");
	struct stat st;
	CHECK_EQ(lstat(path, &st), 0);
	CHECK(S_ISFIFO(st.st_mode));
	unlink(path);
}

static void directory(void)
{
	zt_topic_path(path, sizeof path, "/odd/dir");
	CHECK_EQ(mkdir(path, 0700), 0);
	expect_refused("/odd/dir");
	struct stat st;
	CHECK_EQ(lstat(path, &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	rmdir(path);
}

int main(void)
{
	zt_setup("notregular", 60);
	static const struct zt_case cases[] = {ZT_CASE(fifo), ZT_CASE(directory)};
	int r = zt_run_cases(cases, 2, 2);
	zt_topic_path(path, sizeof path, "/odd/fifo");
	unlink(path);
	zt_topic_path(path, sizeof path, "/odd/dir");
	rmdir(path);
	return r;
}
