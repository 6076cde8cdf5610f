/* Issue 22, item 2: zcast_publish_wait(-1) and zcast_loan_wait(-1) end when their only blocker is
 * killed and this process could not open a pidfd for it when it joined (out of descriptors). The
 * publisher is open before the peer joins; then every free descriptor is used up, so the death
 * watcher's pidfd_open, when it follows the join, fails with EMFILE: the test waits until it did
 * (held there: ZCAST_PAUSE_AT=deaths:pidfd-failed:hold:<fd>, test builds). The descriptors are free
 * again before the wait starts (a pidfd that failed once must not stay missing). */
#include <sys/resource.h>

#include "zt_pause.h"
#include "zt_unseen.h"

static int spent[256];
static int n_spent;

/* Uses up every descriptor under a soft limit of 256 (restored by release_fds). */
static void exhaust_fds(void)
{
	struct rlimit rl;
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 256;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	int fd;
	while (n_spent < 256 && (fd = dup(0)) >= 0)
		spent[n_spent++] = fd;
	CHECK_EQ(errno, EMFILE);
}

static void release_fds(void)
{
	while (n_spent)
		close(spent[--n_spent]);
}

/* The peer gets back the descriptors it inherited used up, and no hold. */
static int peer_main(void *a)
{
	unsetenv("ZCAST_PAUSE_AT");
	release_fds();
	return zt_blocker_main(a);
}

static void blocked_case(const char *topic, int hold)
{
	struct zt_hold failed;
	zt_hold_init(&failed);
	zt_hold_own(&failed, "deaths:pidfd-failed");
	struct zt_blocker a;
	zt_blocker_pipes(&a, topic, hold);
	zcast_pub *p = zt_blocked_pub_for(&a);
	exhaust_fds();
	a.pid = zt_fork(peer_main, &a);
	zt_await(a.ready_r);
	zt_hold_reached(&failed); /* the watcher followed the join: its pidfd_open failed */
	release_fds();
	zt_hold_release(&failed);
	zt_blocker_killed_in_wait(p, &a);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void publish_wait_case(void)
{
	blocked_case("/nofd/pw", 0);
}

static void loan_wait_case(void)
{
	blocked_case("/nofd/lw", 2);
}

int main(void)
{
	zt_setup("nopidfd", 120);
	static const struct zt_case cases[] = {ZT_CASE(publish_wait_case), ZT_CASE(loan_wait_case)};
	return zt_run_cases(cases, 2, 30);
}
