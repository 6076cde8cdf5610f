/* Issue 22, item 10: zcast_topic_members keeps no descriptor. It once lost the one of its peek (the
 * probe descriptor took its place), one per call: 100 calls left 100 descriptors open, and a
 * `zcast top` ran out of them in minutes. */
#include "zt_seg.h"

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	CHECK(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int main(void)
{
	zt_setup("membersfd", 60);
	zcast_pub *p = zt_open_pub("/fdleak/t", 64, 4);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/fdleak/t", NULL, &s), 0);
	CHECK_EQ(zcast_topic_members(NULL, "/fdleak/t", NULL, NULL), 2); /* lazy set-ups done */
	int before = open_fds();
	for (int i = 0; i < 100; i++)
		CHECK_EQ(zcast_topic_members(NULL, "/fdleak/t", NULL, NULL), 2);
	int after = open_fds();
	printf("descriptors: %d before 100 calls, %d after\n", before, after);
	CHECK_EQ(after, before);
	zcast_sub_close(s);
	zcast_pub_close(p);
	return 0;
}
