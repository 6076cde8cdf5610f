/* Issue 22, item 9: after fork() without exec, the parent's death watcher must still sleep once a
 * peer leaves. The child shares the pidfds and the epoll set it inherited; closing the parent's
 * pidfd then left it in the set, readable for good (0.8-1.9 s CPU in 2 idle seconds). The watcher
 * counts its returns from epoll_wait (zcast_test_watcher_wakeups, test builds only): over an idle
 * second after the leave it may wake a few times, never thousands. */
#include "zt_unseen.h"

extern _Atomic uint64_t zcast_test_watcher_wakeups __attribute__((weak));

static int idle_child(void *a)
{
	(void)a;
	pause(); /* until killed */
	return 0;
}

int main(void)
{
	zt_setup("forkspin", 60);
	if (!&zcast_test_watcher_wakeups) {
		printf("skip: not a test build (no watcher counter)\n");
		return ZT_SKIP;
	}
	zcast_pub *p = zt_blocked_pub("/fork/spin", 4); /* our watcher runs */
	struct zt_blocker a;
	zt_blocker_start(&a, "/fork/spin", 0);
	/* Our watcher holds a pidfd for the peer once it has followed the join. */
	zt_sleep_ms(200);
	pid_t child = zt_fork(idle_child, NULL); /* no exec: shares our watcher's descriptors */
	kill(a.pid, SIGKILL);
	CHECK(WIFSIGNALED(zt_wait(a.pid)));
	ZT_EVENTUALLY(zt_stat("/fork/spin").subscribers == 0); /* seen and reclaimed */
	zt_sleep_ms(500); /* lock probes after the close are over */
	uint64_t before = atomic_load(&zcast_test_watcher_wakeups);
	zt_sleep_ms(1000);
	uint64_t woke = atomic_load(&zcast_test_watcher_wakeups) - before;
	printf("watcher wake-ups in an idle second after the peer left: %llu\n",
	       (unsigned long long)woke);
	CHECK(woke < 100);
	kill(child, SIGKILL);
	zt_wait(child);
	CHECK_EQ(zcast_pub_close(p), 0);
	printf("ok fork_spin\n");
	return 0;
}
