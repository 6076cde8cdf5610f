/* Issue 10, finding 6: the mode of a new pool comes from the caller's options and the control
 * segment's own fstat, never from shared memory. A member rewrites the control header's `mode`
 * field to 0666; a publisher opened afterwards still gets a pool of the topic's mode 0600, whatever
 * the umask. */
#include "zt_hostile.h"

#define TOPIC "/mode/pool"

int main(void)
{
	zt_setup("poolmode", 30);
	umask(0);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0);
	char path[400];
	zt_topic_path(path, sizeof path, TOPIC);
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 0777, 0600);

	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	h->mode_unused = 0666; /* the hostile member widens future pools */
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(TOPIC, NULL, &p), 0);
	CHECK(zt_find_pool(path, sizeof path));
	CHECK_EQ(stat(path, &st), 0);
	printf("pool %s has mode %04o\n", path, (unsigned)(st.st_mode & 07777));
	if ((st.st_mode & 0777) != 0600) {
		fprintf(stderr, "FAIL: the pool took mode %04o from shared memory, want 0600\n",
			(unsigned)(st.st_mode & 0777));
		zt_fail();
	}
	h->mode_unused = 0600;
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
