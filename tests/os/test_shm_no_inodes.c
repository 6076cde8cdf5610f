/* Issue 10, finding 8: a /dev/shm out of inodes is out of memory for zcast (ZCAST_ENOMEM, as the
 * header promises), not an unexpected system error (ZCAST_ESYS): both when the topic's control
 * segment cannot be created and when a publisher's pool cannot. Runs in a child with its own mount
 * namespace and a small tmpfs (nr_inodes) mounted over /dev/shm; needs root: skipped with 77
 * otherwise. */
#include <sched.h>
#include <sys/mount.h>

#include "zt_hostile.h"

/* Creates files in /dev/shm until no inode is left; returns how many. */
static int use_up_inodes(void)
{
	for (int i = 0;; i++) {
		char path[64];
		snprintf(path, sizeof path, "/dev/shm/filler.%d", i);
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			CHECK(errno == ENOSPC);
			return i;
		}
		close(fd);
	}
}

static int child_main(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/dev/shm", "tmpfs", 0, "nr_inodes=16,size=64m,mode=1777") != 0) {
		printf("SKIP: cannot mount a private tmpfs on /dev/shm: %s\n", strerror(errno));
		return ZT_SKIP;
	}
	/* The topic exists, then the inodes run out: the publisher's pool cannot be created. */
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/inodes/pool", NULL, &s), 0);
	int n = use_up_inodes();
	CHECK(n > 0);
	zcast_pub *p = NULL;
	int r = zcast_pub_open("/inodes/pool", NULL, &p);
	printf("pool without an inode: %d (%s)\n", r, zcast_last_error());
	int pool_ok = r == ZCAST_ENOMEM;
	/* No inode for a new topic's control segment either. */
	zcast_sub *t = NULL;
	r = zcast_sub_open("/inodes/topic", NULL, &t);
	printf("topic without an inode: %d (%s)\n", r, zcast_last_error());
	int topic_ok = r == ZCAST_ENOMEM;
	if (!pool_ok || !topic_ok) {
		fprintf(stderr, "FAIL: out of inodes must be ZCAST_ENOMEM (%d)\n", ZCAST_ENOMEM);
		return 1;
	}
	zcast_sub_close(s);
	return 0;
}

int main(void)
{
	zt_setup("noinodes", 30);
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount a small tmpfs in a private mount namespace\n");
		return ZT_SKIP;
	}
	pid_t c = zt_fork(child_main, NULL);
	int st = zt_wait_bounded(c, 20000, "opens on a tmpfs without inodes");
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == ZT_SKIP)
		return ZT_SKIP;
	CHECK_EQ(WEXITSTATUS(st), 0);
	printf("ok\n");
	return 0;
}
