/* A publisher's pool that cannot fit is refused before anything is allocated (found by the audit of
 * issue 26: zcast-bridge's `in /big ... max_size=1G` asked for 20 GiB, posix_fallocate took it from
 * a /dev/shm bigger than the RAM, and the host's free memory fell to 1-2 GiB for a minute). Two
 * cases, each in a child with its own mount namespace and a tmpfs over /dev/shm (root, else 77):
 *  - a tmpfs of 8 TiB (a limit, nothing is reserved) and a pool of 2 TiB: more than the memory the
 *    host has (MemAvailable + SwapFree), so ZCAST_ENOMEM naming that memory. RLIMIT_FSIZE of
 *    64 MiB is the safety net: a library without the check fails in posix_fallocate at once
 *    (EFBIG) with /dev/shm's numbers instead, and allocates nothing;
 *  - a tmpfs of 16 MiB with 12 MiB taken and a pool of 8 MiB: /dev/shm's free space, named. */
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "zt_hostile.h"

static int private_shm(const char *opts)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/dev/shm", "tmpfs", 0, opts) != 0) {
		printf("SKIP: cannot mount a private tmpfs on /dev/shm: %s\n", strerror(errno));
		return -1;
	}
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = {64 << 20, 64 << 20};
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
	return 0;
}

/* Opens a publisher of slots x slot_size on `topic`: its error code; the message in `why`. */
static int open_pool(const char *topic, uint32_t slots, uint64_t slot_size, char *why, size_t n)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_count = slots;
	o.slot_size = slot_size;
	zcast_pub *p = NULL;
	int r = zcast_pub_open(topic, &o, &p);
	snprintf(why, n, "%s", r < 0 ? zcast_last_error() : "opened");
	printf("%s: %u x %llu bytes: %d (%s)\n", topic, slots, (unsigned long long)slot_size, r,
	       why);
	if (p)
		zcast_pub_close(p);
	return r;
}

static int beyond_memory(void *arg)
{
	(void)arg;
	if (private_shm("size=8t,mode=1777") < 0)
		return ZT_SKIP;
	char why[400];
	int r = open_pool("/big/memory", 2, (uint64_t)1 << 40, why, sizeof why);
	return r == ZCAST_ENOMEM && strstr(why, "of memory available") ? 0 : 1;
}

static int beyond_free_space(void *arg)
{
	(void)arg;
	if (private_shm("size=16m,mode=1777") < 0)
		return ZT_SKIP;
	int fd = open("/dev/shm/filler", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(posix_fallocate(fd, 0, 12 << 20), 0);
	close(fd);
	char why[400];
	int r = open_pool("/big/space", 8, 1 << 20, why, sizeof why);
	return r == ZCAST_ENOMEM && strstr(why, "/dev/shm has") ? 0 : 1;
}

static int run(int (*child)(void *), const char *what)
{
	pid_t c = zt_fork(child, NULL);
	int st = zt_wait_bounded(c, 20000, what);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != ZT_SKIP)
		fprintf(stderr, "FAIL: %s\n", what);
	return WEXITSTATUS(st);
}

int main(void)
{
	zt_setup("bigpool", 30);
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount a tmpfs in a private mount namespace\n");
		return ZT_SKIP;
	}
	int a = run(beyond_memory, "a pool bigger than the memory available");
	if (a == ZT_SKIP)
		return ZT_SKIP;
	int b = run(beyond_free_space, "a pool bigger than /dev/shm's free space");
	CHECK_EQ(a, 0);
	CHECK_EQ(b, 0);
	printf("ok\n");
	return 0;
}
