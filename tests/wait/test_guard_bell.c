/* Guards ring the doorbell of the wait sets they are attached to (docs/WAITSETS.md, "Guards and the
 * doorbell"):
 *  - an executor with one subscription (and its internal wake guard) sleeps on ONE futex word, so
 *    with $ZCAST_NO_FUTEX_WAITV=1 its thread blocks in a plain FUTEX_WAIT on a shared word (its
 *    doorbell) instead of polling: seen in /proc/self/task/<tid>/syscall, and by a control with
 *    $ZCAST_NO_DOORBELL=1 where the same executor polls (so the probe can tell the two apart);
 *  - a wait set of a subscription and a guard sleeps on one word (zcast_waitset_last_words);
 *  - a guard attached to two wait sets wakes and is reported by both;
 *  - no trigger is lost while a waiter attaches and detaches the guard (remove, and destroy of the
 *    whole wait set) with many threads triggering; runs under TSan. */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "zt_seg.h"
#include "zt_skip.h"
#include "zcast/executor.h"

#define WAIT_NS 10000000000ll

static zcast_sub *open_sub(const char *topic)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_DROP_OLD;
	o.queue_depth = 4;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

/* ---- what a sleeping thread sleeps in ---- */

struct sleep_seen {
	long nr;	    /* syscall number */
	unsigned long op;   /* its second argument (the futex op) */
	unsigned long addr; /* its first argument (the futex word) */
};

/* Waits until thread `tid` is blocked in a system call (state S) and reads which one. False when
 * /proc does not tell (the part is skipped then). */
static bool blocked_in(pid_t tid, struct sleep_seen *out)
{
	char path[96], buf[256];
	for (;;) {
		snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
		FILE *f = fopen(path, "r");
		if (!f)
			return false;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		char *close_paren = strrchr(buf, ')');
		bool sleeping = close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
		snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
		if (!(f = fopen(path, "r")))
			return false;
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		/* "running", or the number and the arguments of the call the thread is blocked in
		 */
		if (sleeping && sscanf(buf, "%ld %lx %lx", &out->nr, &out->addr, &out->op) == 3)
			return true;
		zt_sleep_ms(1);
	}
}

struct spinner {
	zcast_executor *ex;
	_Atomic pid_t tid;
	_Atomic int calls;
	pthread_t th;
};

static void on_msg(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	(void)m;
	struct spinner *s = ctx;
	atomic_fetch_add(&s->calls, 1);
}

static void *spin_main(void *arg)
{
	struct spinner *s = arg;
	atomic_store(&s->tid, (pid_t)syscall(SYS_gettid));
	CHECK_EQ(zcast_executor_spin(s->ex), 0);
	return NULL;
}

/* An executor with one subscription spins in a thread; `expect_one_word`: every time it is seen
 * asleep, it is in FUTEX_WAIT on one shared word (the doorbell); else (the control) it is seen
 * asleep in anything but that. Messages still reach the callback. Run in a child: the futex_waitv
 * probe and the doorbell switch are read once per process. */
static int exec_sleep(void *arg)
{
	bool expect_one_word = arg != NULL;
	setenv("ZCAST_NO_FUTEX_WAITV", "1", 1);
	if (!expect_one_word)
		setenv("ZCAST_NO_DOORBELL", "1", 1);
	zcast_pub *p = zt_open_pub(expect_one_word ? "/gb/exec1" : "/gb/exec2", 64, 16);
	zcast_sub *sub = open_sub(expect_one_word ? "/gb/exec1" : "/gb/exec2");
	struct spinner s = {0};
	CHECK_EQ(zcast_executor_create(NULL, &s.ex), 0);
	CHECK_EQ(zcast_executor_add_sub(s.ex, sub, on_msg, &s, 0), 0);
	CHECK_EQ(pthread_create(&s.th, NULL, spin_main, &s), 0);
	ZT_EVENTUALLY(atomic_load(&s.tid) != 0);
	zt_publish(p, 1, 64);
	ZT_EVENTUALLY(atomic_load(&s.calls) == 1);
	int status = 0;
	unsigned long addr = 0;
	for (int i = 0; i < 20; i++) {
		struct sleep_seen seen;
		if (!blocked_in(atomic_load(&s.tid), &seen)) {
			zt_skip_part("exec_sleep", "/proc/self/task/<tid>/syscall is not readable");
			status = ZT_SKIP;
			break;
		}
		unsigned long cmd = seen.op & FUTEX_CMD_MASK;
		bool one_word = seen.nr == SYS_futex && !(seen.op & FUTEX_PRIVATE_FLAG) &&
				(cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET);
		if (expect_one_word) {
			if (!one_word)
				fprintf(stderr, "asleep in syscall %ld op 0x%lx\n", seen.nr,
					seen.op);
			CHECK(one_word);
			CHECK(i == 0 || seen.addr == addr); /* always the same word */
			addr = seen.addr;
		} else {
			CHECK(!one_word); /* the probe can tell: without the doorbell it polls */
		}
		zt_sleep_ms(1);
	}
	zt_publish(p, 2, 64); /* still woken from that sleep */
	ZT_EVENTUALLY(atomic_load(&s.calls) == 2);
	CHECK_EQ(zcast_executor_stop(s.ex), 0);
	CHECK_EQ(pthread_join(s.th, NULL), 0);
	zcast_executor_destroy(s.ex);
	CHECK_EQ(zcast_sub_close(sub), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
	return status;
}

/* ---- a wait set of a subscription and a guard: one word ---- */

static void waitset_one_word(void)
{
	zcast_pub *p = zt_open_pub("/gb/ws", 64, 16);
	zcast_sub *sub = open_sub("/gb/ws");
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int is, ig;
	CHECK_EQ(zcast_waitset_add_guard(ws, g, g, &ig), 0);
	CHECK_EQ(zcast_waitset_add_sub(ws, sub, sub, &is), 0);
	zcast_ws_event ev[4];
	CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_last_words(ws), 1);
	/* Reported once per trigger, several triggers in between as one. */
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 4), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_GUARD);
	CHECK(ev[0].user == g);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT);
	/* Disabled, a trigger waits; enabled again, it is reported. */
	CHECK_EQ(zcast_waitset_enable(ws, ig, 0), 0);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_enable(ws, ig, 1), 0);
	CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 4), 1);
	CHECK_EQ(ev[0].id, ig);
	/* Both kinds at once. */
	zt_publish(p, 1, 64);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 4), 2);
	CHECK(ev[0].id != ev[1].id);
	CHECK_EQ(zt_drain(sub), 1);
	/* A trigger while attached nowhere is reported by the next wait set it is attached to. */
	CHECK_EQ(zcast_waitset_remove(ws, ig), 0);
	CHECK_EQ(zcast_guard_trigger(g), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_add_guard(ws, g, g, &ig), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), 1);
	CHECK_EQ(ev[0].id, ig);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT);
	zcast_waitset_destroy(ws);
	zcast_guard_destroy(g);
	CHECK_EQ(zcast_sub_close(sub), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

/* ---- one guard, two wait sets ---- */

struct two {
	zcast_waitset *ws;
	int id, got;
	_Atomic pid_t tid;
	pthread_t th;
};

static void *wait_guard(void *arg)
{
	struct two *t = arg;
	atomic_store(&t->tid, (pid_t)syscall(SYS_gettid));
	zcast_ws_event ev[2];
	int n = zcast_waitset_wait(t->ws, WAIT_NS, ev, 2);
	t->got = n == 1 && ev[0].kind == ZCAST_WS_GUARD && ev[0].id == t->id;
	return NULL;
}

static void two_wait_sets(void)
{
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	struct two t[2];
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_waitset_create(&t[i].ws), 0);
		CHECK_EQ(zcast_waitset_add_guard(t[i].ws, g, NULL, &t[i].id), 0);
	}
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 2; i++) {
			atomic_store(&t[i].tid, 0);
			CHECK_EQ(pthread_create(&t[i].th, NULL, wait_guard, &t[i]), 0);
		}
		/* Odd rounds: both asleep in the futex first (a timed pause was not enough in CI: a
		 * wait set that never slept in 50 rounds reported 0 words); even rounds: racing. */
		for (int i = 0; i < 2 && round % 2; i++)
			ZT_EVENTUALLY(atomic_load(&t[i].tid) &&
				      zt_futex_asleep(getpid(), atomic_load(&t[i].tid)));
		CHECK_EQ(zcast_guard_trigger(g), 0);
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(pthread_join(t[i].th, NULL), 0);
			CHECK_EQ(t[i].got, 1);
		}
	}
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_waitset_last_words(t[i].ws), 1);
		zcast_waitset_destroy(t[i].ws);
	}
	zcast_guard_destroy(g);
}

/* ---- no trigger lost while attaching and detaching ---- */

#define TRIGGERERS 4
#define EPOCHS 40

struct stress {
	zcast_guard *g;
	_Atomic int go, stop;
	_Atomic uint64_t started; /* triggers called */
};

static void *trigger_main(void *arg)
{
	struct stress *S = arg;
	while (!atomic_load(&S->go))
		sched_yield();
	while (!atomic_load(&S->stop)) {
		atomic_fetch_add(&S->started, 1);
		CHECK_EQ(zcast_guard_trigger(S->g), 0);
	}
	return NULL;
}

/* One wait on ws. After a report, `last` is the count of triggers called by then: those called
 * later are not covered by it. */
static bool wait_once(zcast_waitset *ws, int64_t timeout, uint64_t *last, struct stress *S)
{
	zcast_ws_event ev[2];
	int n = zcast_waitset_wait(ws, timeout, ev, 2);
	if (n == ZCAST_ETIMEDOUT)
		return false;
	CHECK_EQ(n, 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_GUARD);
	*last = atomic_load(&S->started);
	return true;
}

/* Triggerers run while the waiter attaches the guard, waits a little and detaches it (by a remove,
 * or by destroying the wait set), over and over. Then, with triggers called after the last report
 * still running through the last detach, the triggerers stop: the next wait set the guard is
 * attached to must report them. */
static void no_trigger_lost(void)
{
	struct stress S = {0};
	CHECK_EQ(zcast_guard_create(&S.g), 0);
	uint64_t reports = 0;
	for (int epoch = 0; epoch < EPOCHS; epoch++) {
		atomic_store(&S.go, 0);
		atomic_store(&S.stop, 0);
		pthread_t th[TRIGGERERS];
		for (int i = 0; i < TRIGGERERS; i++)
			CHECK_EQ(pthread_create(&th[i], NULL, trigger_main, &S), 0);
		uint64_t last = atomic_load(&S.started); /* no report yet in this epoch */
		atomic_store(&S.go, 1);
		zcast_waitset *ws = NULL;
		for (int round = 0; round < 50; round++) {
			int id;
			if (!ws)
				CHECK_EQ(zcast_waitset_create(&ws), 0);
			CHECK_EQ(zcast_waitset_add_guard(ws, S.g, NULL, &id), 0);
			for (int k = 0; k < 3; k++)
				reports += wait_once(ws, k == 2 ? 100000 : 0, &last, &S);
			if (round ==
			    49) /* some triggers after the last report, racing the detach */
				while (atomic_load(&S.started) < last + TRIGGERERS)
					sched_yield();
			if (round % 3 == 2) { /* detached by the destroy of the whole wait set */
				zcast_waitset_destroy(ws);
				ws = NULL;
			} else {
				CHECK_EQ(zcast_waitset_remove(ws, id), 0);
			}
		}
		atomic_store(&S.stop, 1);
		for (int i = 0; i < TRIGGERERS; i++)
			CHECK_EQ(pthread_join(th[i], NULL), 0);
		CHECK(atomic_load(&S.started) > last);
		if (!ws)
			CHECK_EQ(zcast_waitset_create(&ws), 0);
		int id;
		CHECK_EQ(zcast_waitset_add_guard(ws, S.g, NULL, &id), 0);
		zcast_ws_event ev[2];
		CHECK_EQ(zcast_waitset_wait(ws, WAIT_NS, ev, 2), 1);
		CHECK_EQ(ev[0].id, id);
		CHECK_EQ(zcast_waitset_remove(ws, id), 0);
		zcast_waitset_destroy(ws);
	}
	CHECK(reports > 0);
	zcast_guard_destroy(S.g);
}

int main(void)
{
	zt_setup("guard_bell", 240);
	/* First, in children: the parent has not probed futex_waitv yet. */
	pid_t c = zt_fork(exec_sleep, (void *)1);
	zt_child_parts(c);
	printf("ok executor with one subscription: one FUTEX_WAIT without futex_waitv\n");
	c = zt_fork(exec_sleep, NULL);
	zt_child_parts(c);
	printf("ok control: without the doorbell the same executor polls\n");
	RUN(waitset_one_word);
	RUN(two_wait_sets);
	RUN(no_trigger_lost);
	CHECK_EQ(zt_shm_count(), 0);
	return zt_status();
}
