/* Issue 10, finding 8: an executor whose only subscription is at max_held while messages are queued
 * has nothing it may do, so it must sleep rather than spin. Over one second of wall time, the time
 * the executor's thread spends running or waiting for a CPU (/proc/self/task/<tid>/schedstat:
 * on-CPU plus run-queue time) must stay below 30 % of it. Every thread's share is printed (the
 * library's and a sanitizer's threads are not the executor, but say who ran if one did). A busy loop is runnable all the time (~100 %)
 * however loaded the machine is, where its plain CPU time (CLOCK_PROCESS_CPUTIME_ID) drops with
 * the load; a sleeping executor is runnable next to never. */
#include <dirent.h>

#include "zcast/executor.h"
#include "zt_hostile.h"

#define TOPIC "/exec/held"

static zcast_msg *kept;
static atomic_int calls;

static void on_msg(zcast_sub *sub, zcast_msg *msg, void *ctx)
{
	(void)sub;
	(void)ctx;
	if (!kept)
		kept = zcast_msg_ref(
		    msg); /* held beyond the callback: the subscription is at max_held */
	atomic_fetch_add(&calls, 1);
}

static _Atomic pid_t spin_tid;

static void *spin_main(void *arg)
{
	atomic_store(&spin_tid, gettid());
	zcast_executor_spin(arg);
	return NULL;
}

/* Time thread `tid` of this process spent on a CPU or runnable waiting for one. */
static int64_t thread_runnable_ns(const char *tid)
{
	char path[300];
	snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", tid);
	FILE *f = fopen(path, "r");
	long long run = 0, wait = 0;
	if (f && fscanf(f, "%lld %lld", &run, &wait) != 2)
		run = wait = 0;
	if (f)
		fclose(f);
	return run + wait;
}

#define MAX_THREADS 64
struct sample {
	int n;
	char tid[MAX_THREADS][256];
	int64_t ns[MAX_THREADS];
};

/* Every thread of this process and its runnable time so far. */
static void sample(struct sample *s)
{
	DIR *d = opendir("/proc/self/task");
	CHECK(d != NULL);
	struct dirent *e;
	s->n = 0;
	while ((e = readdir(d)) && s->n < MAX_THREADS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(s->tid[s->n], sizeof s->tid[0], "%s", e->d_name);
		s->ns[s->n++] = thread_runnable_ns(e->d_name);
	}
	closedir(d);
}

/* Runnable time of thread `tid` between two samples (0 if it was not in both). */
static int64_t delta(const struct sample *a, const struct sample *b, const char *tid)
{
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++)
			if (!strcmp(a->tid[i], tid) && !strcmp(b->tid[j], tid))
				return b->ns[j] - a->ns[i];
	return 0;
}

/* Each thread's share of the wall time, with its name: says who ran if something did. */
static void print_threads(const struct sample *a, const struct sample *b, int64_t wall)
{
	for (int j = 0; j < b->n; j++) {
		char path[300], name[64] = "?";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", b->tid[j]);
		FILE *f = fopen(path, "r");
		if (f && fgets(name, sizeof name, f))
			name[strcspn(name, "\n")] = 0;
		if (f)
			fclose(f);
		printf("  thread %s (%s): runnable %.1f %%\n", b->tid[j], name,
		       100.0 * (double)delta(a, b, b->tid[j]) / (double)wall);
	}
}

int main(void)
{
	zt_setup("execheld", 60);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.max_held = 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 8;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(TOPIC, &po, &p), 0);
	for (uint64_t i = 1; i <= 3; i++)
		zt_publish(p, i, 64);

	zcast_executor *ex = NULL;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_sub(ex, s, on_msg, NULL, 0), 0);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, spin_main, ex), 0);
	CHECK(ZT_POLL(atomic_load(&calls) >= 1, 5000));
	zt_sleep_ms(50);
	CHECK_EQ(atomic_load(&calls), 1); /* max_held = 1: no second callback while one is kept */
	CHECK_EQ(zcast_sub_queued(s), 2);

	struct sample a, b;
	char exec_tid[16];
	snprintf(exec_tid, sizeof exec_tid, "%d", (int)atomic_load(&spin_tid));
	sample(&a);
	int64_t w0 = zt_now_ns();
	zt_sleep_ms(1000);
	sample(&b);
	int64_t wall = zt_now_ns() - w0, busy = delta(&a, &b, exec_tid);
	printf("executor at max_held: its thread runnable %.1f %% of %.2f s\n",
	       100.0 * (double)busy / (double)wall, (double)wall / 1e9);
	print_threads(&a, &b, wall);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	pthread_join(th, NULL);
	if (busy * 10 >= wall * 3) {
		fprintf(stderr, "FAIL: the executor spins while its subscription is at max_held\n");
		zt_fail();
	}
	zcast_msg_drop(kept);
	zcast_executor_destroy(ex);
	zcast_sub_close(s);
	zcast_pub_close(p);
	printf("ok\n");
	return 0;
}
