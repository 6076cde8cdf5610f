/* Issue 22, item 7: out of file descriptors, a publisher's open names that cause. It once said
 * "cannot allocate 4.5 KiB ... /dev/shm has 23.5 GiB free" (the pool's create took EMFILE for a full
 * /dev/shm). With 0 to 8 descriptors left, every failed zcast_pub_open must name the descriptor
 * limit (EMFILE) and must not blame /dev/shm's space; at least one of them fails past the topic's
 * own open (the pool creation). */
#include <sys/resource.h>

#include "zt_hostile.h"

static int fill[256];
static int n_fill;

/* Uses up every descriptor but `left`. */
static void leave_free(int left)
{
	int fd;
	while (n_fill < 256 && (fd = dup(0)) >= 0)
		fill[n_fill++] = fd;
	CHECK_EQ(errno, EMFILE);
	for (int i = 0; i < left && n_fill > 0; i++)
		close(fill[--n_fill]);
}

static void release_all(void)
{
	while (n_fill > 0)
		close(fill[--n_fill]);
}

int main(void)
{
	zt_setup("fdcause", 60);
	struct rlimit rl = {64, 64};
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/fdcause/t", NULL, &s), 0);
	int failures = 0, past_topic = 0;
	for (int left = 0; left <= 8; left++) {
		leave_free(left);
		zcast_pub *p = NULL;
		int r = zcast_pub_open("/fdcause/t", NULL, &p);
		char msg[512];
		snprintf(msg, sizeof msg, "%s", zcast_last_error());
		release_all();
		printf("%d descriptors left: %d (%s)\n", left, r, r < 0 ? msg : "");
		if (r == 0) {
			zcast_pub_close(p);
			break;
		}
		failures++;
		past_topic += strstr(msg, "@") != NULL; /* a pool's name */
		CHECK_MSG_HAS(msg, "EMFILE");
		if (strstr(msg, "/dev/shm has")) {
			fprintf(stderr, "FAIL: blames /dev/shm for a lack of descriptors: %s\n", msg);
			zt_fail();
		}
	}
	CHECK(failures > 0);
	CHECK(past_topic > 0);
	zcast_sub_close(s);
	return 0;
}
