/* Issue 10, finding 8: an executor whose only subscription is at max_held while messages are queued
 * has nothing it may do, so it must sleep rather than spin. Its process CPU time over one second of
 * wall time (CLOCK_PROCESS_CPUTIME_ID) must stay below 10 % of it: a sleeping executor uses next to
 * nothing, a busy loop a whole core when it gets one (still ~40 % on a loaded shared 2-core
 * machine, hence the bound well below that). */
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

static int64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

	int64_t c0 = cpu_ns(), w0 = zt_now_ns();
	zt_sleep_ms(1000);
	int64_t cpu = cpu_ns() - c0, wall = zt_now_ns() - w0;
	printf("executor at max_held: %.1f %% CPU over %.2f s\n",
	       100.0 * (double)cpu / (double)wall, (double)wall / 1e9);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	pthread_join(th, NULL);
	if (cpu * 10 >= wall) {
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
