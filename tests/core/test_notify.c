/* Wake-ups: a publish makes no wake syscall when no target sleeps, and one FUTEX_WAKE
 * for all sleeping broadcast subscribers. Counted by interposing syscall(): the library's futex
 * calls resolve to this executable's definition. */
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "harness.h"

static _Atomic int futex_wakes;

long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	typedef long (*syscall_fn)(long, ...);
	static _Atomic(syscall_fn) real_fn;
	syscall_fn real = atomic_load(&real_fn);
	if (!real) {
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
		atomic_store(&real_fn, real);
	}
	if (nr == SYS_futex && (a[1] & 127) == FUTEX_WAKE)
		atomic_fetch_add(&futex_wakes, 1);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void publish(zcast_pub *p, uint64_t seq)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, seq, 0);
	CHECK_EQ(zcast_publish(p, m), 0);
}

static void drain(zcast_sub *s)
{
	zcast_msg *m;
	while (zcast_take(s, &m) == 0)
		zcast_msg_drop(m);
}

static void test_busy_subscribers_cost_no_syscall(void)
{
	zcast_sub *a, *b;
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open("/busy", NULL, &a), 0);
	CHECK_EQ(zcast_sub_open("/busy", NULL, &b), 0);
	CHECK_EQ(zcast_pub_open("/busy", NULL, &p), 0);
	atomic_store(&futex_wakes, 0);
	for (int i = 0; i < 100; i++) {
		publish(p, (uint64_t)i);
		drain(a);
		drain(b);
	}
	CHECK_EQ(atomic_load(&futex_wakes), 0);
	zcast_sub_close(a);
	zcast_sub_close(b);
	zcast_pub_close(p);
}

#define SLEEPERS 3
static _Atomic int tids[SLEEPERS];
static _Atomic int woken;

static void *sleeper(void *arg)
{
	zcast_sub *s = arg;
	static _Atomic int next;
	atomic_store(&tids[atomic_fetch_add(&next, 1)], (int)gettid());
	CHECK_EQ(zcast_wait(s, 20000000000), 0);
	atomic_fetch_add(&woken, 1);
	return NULL;
}

static void test_one_wake_for_all_sleepers(void)
{
	zcast_sub *s[SLEEPERS];
	zcast_pub *p;
	for (int i = 0; i < SLEEPERS; i++)
		CHECK_EQ(zcast_sub_open("/sleepy", NULL, &s[i]), 0);
	CHECK_EQ(zcast_pub_open("/sleepy", NULL, &p), 0);
	pthread_t th[SLEEPERS];
	for (int i = 0; i < SLEEPERS; i++)
		pthread_create(&th[i], NULL, sleeper, s[i]);
	int64_t until = zt_now_ns() + 10000000000;
	for (int i = 0; i < SLEEPERS; i++) {
		while (!atomic_load(&tids[i]) || !zt_futex_asleep(getpid(), atomic_load(&tids[i]))) {
			CHECK(zt_now_ns() < until);
			zt_sleep_ms(1);
		}
	}
	atomic_store(&futex_wakes, 0);
	publish(p, 1);
	CHECK_EQ(atomic_load(&futex_wakes), 1);
	for (int i = 0; i < SLEEPERS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(atomic_load(&woken), SLEEPERS);
	for (int i = 0; i < SLEEPERS; i++) {
		drain(s[i]);
		zcast_sub_close(s[i]);
	}
	zcast_pub_close(p);
}

int main(void)
{
	zt_setup("notify", 60);
	RUN(test_busy_subscribers_cost_no_syscall);
	RUN(test_one_wake_for_all_sleepers);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
