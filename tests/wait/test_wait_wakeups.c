/* Issue 10, "wake-ups that cannot be lost": a publisher killed after its publish but before its
 * wake-up (crash point publish:before-wake), or inside the lock after every push (a publisher with
 * history, crash point publish:after-history), leaves a wake owed. A subscriber asleep in
 * zcast_wait(-1) and another asleep in zcast_waitset_wait(-1) must both wake and take the message
 * within a 5 s watchdog, with nobody else touching the topic.
 *
 * The subscribers run with no sleep slice (sleep_slice_ns 0, and guard slices off:
 * ZCAST_NO_GUARD_SLICE=1 from tests/tamper2.cmake): only the owed wake (paid by the death watcher, a reclaim or the next locker) can end their waits. */
#include "zcast/waitset.h"
#include "zt_hostile.h"

#define WATCHDOG_MS 5000

struct waiter {
	const char *topic;
	int ready_w;
};

static zcast_sub *open_sub(const char *topic)
{
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, NULL, &s), 0);
	return s;
}

static void take_one(zcast_sub *s)
{
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
	zcast_msg_drop(m);
}

static int plain_waiter(void *a_)
{
	struct waiter *a = a_;
	zcast_sub *s = open_sub(a->topic);
	zt_signal(a->ready_w);
	CHECK_EQ(zcast_wait(s, -1), 0);
	take_one(s);
	zcast_sub_close(s);
	return 0;
}

static int waitset_waiter(void *a_)
{
	struct waiter *a = a_;
	zcast_sub *s = open_sub(a->topic);
	zcast_waitset *ws = NULL;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id;
	CHECK_EQ(zcast_waitset_add_sub(ws, s, NULL, &id), 0);
	zt_signal(a->ready_w);
	zcast_ws_event ev[4];
	int n = zcast_waitset_wait(ws, -1, ev, 4);
	CHECK_EQ(n, 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_SUB);
	take_one(s);
	zcast_waitset_destroy(ws);
	zcast_sub_close(s);
	return 0;
}

struct pub_args {
	const char *topic, *point;
};

static int publisher_main(void *a_)
{
	struct pub_args *a = a_;
	setenv("ZCAST_CRASH_AT", a->point, 1);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 4;
	o.history_depth = 1; /* publish:after-history: inside the lock, after the pushes */
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(a->topic, &o, &p), 0);
	zt_publish(p, 1, 64);
	return 0;
}

static void crash_with_sleepers(const char *topic, const char *point)
{
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	struct waiter w = {topic, ready[1]};
	pid_t a = zt_fork(plain_waiter, &w);
	pid_t b = zt_fork(waitset_waiter, &w);
	zt_await(ready[0]);
	zt_await(ready[0]);
	CHECK(ZT_POLL(zt_futex_asleep(a, a) && zt_futex_asleep(b, b), 5000));

	struct pub_args pa = {topic, point};
	pid_t p = zt_fork(publisher_main, &pa);
	int st = zt_wait_bounded(p, 20000, "publisher with a crash point");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	zt_child_ok_within(a, WATCHDOG_MS, "subscriber asleep in zcast_wait(-1)");
	zt_child_ok_within(b, WATCHDOG_MS, "subscriber asleep in zcast_waitset_wait(-1)");
	/* The last subscriber out removes the topic, unless the killed publisher's file locks were
	 * still held by the kernel at that moment (its teardown lags its exit). A gc would keep it
	 * then (an all-dead topic with history is kept for the next joiner): remove it. */
	ZT_EVENTUALLY(zt_shm_count() == 0 ||
		      (zcast_topic_remove(NULL, topic) >= 0 && zt_shm_count() == 0));
}

static void before_wake(void)
{
	crash_with_sleepers("/wake/before_wake", "publish:before-wake");
}

static void inside_lock(void)
{
	crash_with_sleepers("/wake/inside_lock", "publish:after-history");
}

int main(void)
{
	zt_setup("wakeups", 120);
	static const struct zt_case cases[] = {ZT_CASE(before_wake), ZT_CASE(inside_lock)};
	return zt_run_cases(cases, 2, 40);
}
