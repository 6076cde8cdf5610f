/* Issue 10, finding 8: an executor whose only subscription is at max_held while messages are queued
 * has nothing it may do, so it must sleep rather than spin. Over one second of wall time, the time
 * the process's threads spend running or waiting for a CPU (/proc/self/task/<tid>/schedstat: on-CPU
 * plus run-queue time) must stay below 30 % of it. A busy loop is runnable all the time (~100 %)
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

static void *spin_main(void *arg)
{
	zcast_executor_spin(arg);
	return NULL;
}

/* Sum over this process's threads of the time spent on a CPU or runnable waiting for one. */
static int64_t runnable_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	CHECK(d != NULL);
	struct dirent *e;
	int64_t sum = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[300];
		snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
		FILE *f = fopen(path, "r");
		long long run = 0, wait = 0;
		if (f && fscanf(f, "%lld %lld", &run, &wait) == 2)
			sum += run + wait;
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
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

	int64_t r0 = runnable_ns(), w0 = zt_now_ns();
	zt_sleep_ms(1000);
	int64_t busy = runnable_ns() - r0, wall = zt_now_ns() - w0;
	printf("executor at max_held: runnable %.1f %% of %.2f s\n",
	       100.0 * (double)busy / (double)wall, (double)wall / 1e9);
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
