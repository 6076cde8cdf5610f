/* A publisher killed after it published but before it woke anyone (crash point
 * "publish:before-wake") must not leave its subscribers asleep beside the message forever: the wake
 * it owed (its mark in wake_owed) is paid by whoever comes next (the death watcher, a reclaim, the
 * next locker), in zcast_wait and in a wait set alike. The subscribers wait without a timeout and
 * without sleep slices (sleep_slice_ns 0, and guard slices off: ZCAST_NO_GUARD_SLICE=1 from
 * tests/tamper2.cmake): only that owed wake can end their waits. */
#include "harness.h"

#include <poll.h>
#include <zcast/waitset.h>

struct sub_args {
	int use_waitset;
	int ready_fd;
};

/* Subscribes, says so, then waits without a timeout for exactly one message. */
static int subscriber(void *arg)
{
	struct sub_args *a = arg;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/lw/t", NULL, &s), 0);
	CHECK_EQ(write(a->ready_fd, "r", 1), 1);
	if (a->use_waitset) {
		zcast_waitset *ws;
		int id;
		zcast_ws_event ev[4];
		CHECK_EQ(zcast_waitset_create(&ws), 0);
		CHECK_EQ(zcast_waitset_add_sub(ws, s, NULL, &id), 0);
		CHECK(zcast_waitset_wait(ws, -1, ev, 4) >= 1);
		zcast_waitset_destroy(ws);
	} else {
		CHECK_EQ(zcast_wait(s, -1), 0);
	}
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	CHECK_EQ(zcast_msg_size(m), 64);
	CHECK_EQ(((const uint8_t *)zcast_msg_data(m))[0], 0x5a);
	zcast_msg_drop(m);
	zcast_sub_close(s);
	return 0;
}

/* Publishes one message with the crash point armed: dies between unlock and wake-up. */
static int doomed_publisher(void *arg)
{
	(void)arg;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/lw/t", NULL, &p), 0);
	setenv("ZCAST_CRASH_AT", "publish:before-wake", 1);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	memset(zcast_msg_data(m), 0x5a, 64);
	zcast_publish(p, m);
	return 3; /* reached only without fault injection */
}

static void run(int use_waitset)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct sub_args a = {use_waitset, fds[1]};
	pid_t sub = zt_fork(subscriber, &a);
	char c;
	CHECK_EQ(read(fds[0], &c, 1), 1);
	for (int i = 0; i < 1000 && !zt_futex_asleep(sub, sub); i++)
		zt_sleep_ms(2);
	pid_t pub = zt_fork(doomed_publisher, NULL);
	int st = zt_wait(pub);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
		printf("# fault injection is not compiled in (ZCAST_TEST_BUILD=OFF): skip\n");
		kill(sub, SIGKILL);
		zt_wait(sub);
		exit(ZT_SKIP);
	}
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* The subscriber gets the message although its publisher never woke it: the owed wake did (the
	 * watchdog bounds the wait). */
	CHECK_CHILD_OK(sub);
	close(fds[0]);
	close(fds[1]);
}

static void lost_wake_zcast_wait(void) { run(0); }
static void lost_wake_waitset(void) { run(1); }

int main(void)
{
	zt_setup("lostwake", 60);
	RUN(lost_wake_zcast_wait);
	RUN(lost_wake_waitset);
	return 0;
}
