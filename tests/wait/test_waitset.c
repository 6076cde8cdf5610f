/* Wait sets in one process: subscribers, guards, timers; 1024 subscribers on 1024 distinct futex
 * words in one wait set (helper chunks beyond futex_waitv's 128); a wait sleeping in another thread
 * is woken by a publish to a subscriber of the last chunk; timers never fire early. The whole test
 * runs twice: with futex_waitv, and in a child with the fallback forced ($ZCAST_NO_FUTEX_WAITV=1). */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "zt_skip.h"
#include "zcast/waitset.h"

#define WAIT_NS 10000000000ll

static void small_topic(zcast_topic_opts *t)
{
	t->max_subscribers = 4;
	t->max_publishers = 2;
	t->max_queue_depth = 8;
	t->history_capacity = 1;
}

static zcast_pub *open_pub(const char *topic)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 8;
	small_topic(&o.topic);
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

static zcast_sub *open_sub(const char *topic, const char *group)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 4;
	if (group) {
		o.policy = ZCAST_POLICY_BALANCE_RR;
		o.group = group;
	}
	small_topic(&o.topic);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static void publish(zcast_pub *p, uint64_t seq)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, seq, 0);
	CHECK_EQ(zcast_publish(p, m), 0);
}

static void drain(zcast_sub *s, int want)
{
	zcast_msg *m;
	for (int i = 0; i < want; i++) {
		CHECK_EQ(zcast_take(s, &m), 0);
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
		zcast_msg_drop(m);
	}
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
}

static void test_basic(void)
{
	zcast_pub *pa = open_pub("/ws/a"), *pb = open_pub("/ws/b");
	zcast_sub *a1 = open_sub("/ws/a", NULL), *a2 = open_sub("/ws/a", NULL);
	zcast_sub *b1 = open_sub("/ws/b", NULL);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int ia1, ia2, ib1, ig;
	CHECK_EQ(zcast_waitset_add_sub(ws, a1, a1, &ia1), 0);
	CHECK_EQ(zcast_waitset_add_sub(ws, a2, a2, &ia2), 0);
	CHECK_EQ(zcast_waitset_add_sub(ws, b1, b1, &ib1), 0);
	CHECK_EQ(zcast_waitset_add_guard(ws, g, g, &ig), 0);
	zcast_ws_event ev[8];
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 8), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 8), ZCAST_ETIMEDOUT);

	publish(pa, 1);
	int n = zcast_waitset_wait(ws, WAIT_NS, ev, 8);
	CHECK_EQ(n, 2); /* both subscribers of /ws/a, not /ws/b */
	for (int i = 0; i < n; i++) {
		CHECK_EQ(ev[i].kind, ZCAST_WS_SUB);
		CHECK(ev[i].user == a1 || ev[i].user == a2);
	}
	CHECK(ev[0].user != ev[1].user);
	/* Level-triggered: still ready until taken. */
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 8), 2);
	drain(a1, 1);
	drain(a2, 1);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 8), ZCAST_ETIMEDOUT);

	/* max = 1: the second ready entry is reported by the next call (fairness cursor). */
	publish(pb, 2);
	publish(pa, 3);
	void *seen[3] = {0};
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 1), 1);
		seen[i] = ev[0].user;
		zcast_msg *m;
		CHECK_EQ(zcast_take(ev[0].user, &m), 0);
		zcast_msg_drop(m);
	}
	CHECK(seen[0] != seen[1] && seen[1] != seen[2] && seen[0] != seen[2]);

	/* A guard is reported once per trigger. */
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 8), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_GUARD);
	CHECK(ev[0].user == g);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 8), ZCAST_ETIMEDOUT);

	/* A disabled subscriber is not reported; enabled again, it is. */
	CHECK_EQ(zcast_waitset_enable(ws, ib1, 0), 0);
	publish(pb, 4);
	CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 8), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_enable(ws, ib1, 1), 0);
	CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 8), 1);
	CHECK(ev[0].user == b1);
	drain(b1, 1);
	CHECK_EQ(zcast_waitset_remove(ws, ib1), 0);
	CHECK_EQ(zcast_waitset_remove(ws, ib1), ZCAST_EINVAL);
	publish(pb, 5);
	CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 8), ZCAST_ETIMEDOUT);

	zcast_waitset_destroy(ws);
	zcast_guard_destroy(g);
	CHECK_EQ(zcast_sub_close(a1), 0);
	CHECK_EQ(zcast_sub_close(a2), 0);
	CHECK_EQ(zcast_sub_close(b1), 0);
	CHECK_EQ(zcast_pub_close(pa), 0);
	CHECK_EQ(zcast_pub_close(pb), 0);
}

static void test_timers_never_early(void)
{
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	const int64_t p1 = 3000000, p2 = 7000000;
	int64_t t0 = zt_now_ns();
	int i1, i2;
	CHECK_EQ(zcast_waitset_add_timer(ws, p1, (void *)1, &i1), 0);
	CHECK_EQ(zcast_waitset_add_timer(ws, p2, (void *)2, &i2), 0);
	CHECK_EQ(zcast_waitset_add_timer(ws, 0, NULL, &i2), ZCAST_EINVAL);
	int fired[3] = {0};
	while (fired[1] < 10 || fired[2] < 4) {
		zcast_ws_event ev[4];
		int n = zcast_waitset_wait(ws, WAIT_NS, ev, 4);
		CHECK(n > 0);
		int64_t now = zt_now_ns();
		for (int i = 0; i < n; i++) {
			CHECK_EQ(ev[i].kind, ZCAST_WS_TIMER);
			int which = (int)(intptr_t)ev[i].user;
			fired[which]++;
			/* The k-th report of a timer comes at least k periods after it was added. */
			CHECK(now - t0 >= (int64_t)fired[which] * (which == 1 ? p1 : p2));
		}
	}
	zcast_waitset_destroy(ws);
}

#define MANY_TOPICS 512

struct many {
	zcast_pub *pub[MANY_TOPICS];
	zcast_sub *sub[2 * MANY_TOPICS];
	zcast_waitset *ws;
	_Atomic int woken_user;
};

static void *waiter(void *arg)
{
	struct many *M = arg;
	zcast_ws_event ev[4];
	int n = zcast_waitset_wait(M->ws, WAIT_NS, ev, 4);
	/* One or both subscribers of the topic (the second may be seen only by the next scan). */
	int u = n >= 1 ? (int)(intptr_t)ev[0].user : -1;
	for (int i = 1; i < n; i++)
		if ((int)(intptr_t)ev[i].user / 2 != u / 2)
			u = -1;
	atomic_store(&M->woken_user, u);
	return NULL;
}

static void test_1024_subscribers(void)
{
	struct rlimit rl;
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 4 * MANY_TOPICS + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < 4 * MANY_TOPICS + 64) {
			zt_skip_part("test_1024_subscribers", "RLIMIT_NOFILE %lu < %d, cannot be raised",
				     (unsigned long)rl.rlim_cur, 4 * MANY_TOPICS + 64);
			return;
		}
	}
	struct many *M = calloc(1, sizeof *M);
	CHECK(M);
	CHECK_EQ(zcast_waitset_create(&M->ws), 0);
	/* Per topic one broadcast subscriber (topic word) and one RR member (own word): 1024 words. */
	for (int i = 0; i < MANY_TOPICS; i++) {
		char name[64];
		snprintf(name, sizeof name, "/many/t%d", i);
		M->pub[i] = open_pub(name);
		M->sub[2 * i] = open_sub(name, NULL);
		M->sub[2 * i + 1] = open_sub(name, "g");
		int id;
		CHECK_EQ(zcast_waitset_add_sub(M->ws, M->sub[2 * i], (void *)(intptr_t)(2 * i), &id), 0);
		CHECK_EQ(zcast_waitset_add_sub(M->ws, M->sub[2 * i + 1], (void *)(intptr_t)(2 * i + 1), &id),
			 0);
	}
	zcast_ws_event ev[8];
	CHECK_EQ(zcast_waitset_wait(M->ws, 1000000, ev, 8), ZCAST_ETIMEDOUT);
	unsigned rnd = 12345;
	for (int round = 0; round < 200; round++) {
		rnd = rnd * 1103515245u + 12345u;
		int t = (int)((rnd >> 8) % MANY_TOPICS);
		publish(M->pub[t], (uint64_t)round);
		int n = zcast_waitset_wait(M->ws, WAIT_NS, ev, 8);
		CHECK_EQ(n, 2);
		for (int i = 0; i < 2; i++) {
			int u = (int)(intptr_t)ev[i].user;
			CHECK_EQ(u / 2, t);
			drain(M->sub[u], 1);
		}
	}
	/* A sleeping wait (not a ready-at-once scan) woken through each chunk, the last ones included. */
	int targets[] = {0, 127, 300, MANY_TOPICS - 1};
	for (int k = 0; k < 4; k++) {
		int t = targets[k];
		atomic_store(&M->woken_user, -2);
		pthread_t th;
		CHECK_EQ(pthread_create(&th, NULL, waiter, M), 0);
		zt_sleep_ms(20); /* lets it sleep; correctness does not depend on it */
		publish(M->pub[t], 1000);
		CHECK_EQ(pthread_join(th, NULL), 0);
		int u = atomic_load(&M->woken_user);
		CHECK(u >= 0);
		CHECK_EQ(u / 2, t);
		CHECK_EQ(zcast_waitset_wait(M->ws, WAIT_NS, ev, 8), 2);
		drain(M->sub[2 * t], 1);
		drain(M->sub[2 * t + 1], 1);
	}
	zcast_waitset_destroy(M->ws);
	for (int i = 0; i < 2 * MANY_TOPICS; i++)
		CHECK_EQ(zcast_sub_close(M->sub[i]), 0);
	for (int i = 0; i < MANY_TOPICS; i++)
		CHECK_EQ(zcast_pub_close(M->pub[i]), 0);
	free(M);
}

static int run_all(void *arg)
{
	if (arg)
		setenv("ZCAST_NO_FUTEX_WAITV", "1", 1);
	RUN(test_basic);
	RUN(test_timers_never_early);
	RUN(test_1024_subscribers);
	return zt_status();
}

/* Whether this kernel (and seccomp) lets us call futex_waitv: with n = 0 it answers EINVAL. */
static int futex_waitv_works(void)
{
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
	long r = syscall(SYS_futex_waitv, NULL, 0, 0, NULL, CLOCK_MONOTONIC);
	return !(r < 0 && (errno == ENOSYS || errno == EPERM));
}

int main(void)
{
	zt_setup("waitset", 240);
	pid_t child = zt_fork(run_all, (void *)1); /* the fallback, before this process probes */
	zt_child_parts(child);
	printf("ok fallback (ZCAST_NO_FUTEX_WAITV=1)\n");
	/* Without futex_waitv the library falls back on its own: this run would test the fallback again. */
	if (!futex_waitv_works()) {
		zt_skip_part("the futex_waitv run", "futex_waitv is refused here (%s)", strerror(errno));
		return zt_status();
	}
	run_all(NULL);
	CHECK_EQ(zt_shm_count(), 0);
	return zt_status();
}
