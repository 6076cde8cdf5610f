/* Graph events: a publisher sees its matched count go 0 -> 2 -> 1 as subscriber processes join and
 * one leaves, and 1 -> 0 when the other is SIGKILLed: reported through the wait set's graph entry,
 * with no zcast_topic_gc and no polling by the test (the library's pidfd watcher runs the cleanup).
 * The same from the subscriber side for a killed publisher process. */
#include "harness.h"
#include "zcast/waitset.h"

#define WAIT_NS 20000000000ll

struct child_args {
	int ready[2]; /* child -> parent: joined */
	int go[2];    /* parent -> child: leave now */
	int is_pub;
};

static int member(void *arg)
{
	struct child_args *a = arg;
	zcast_sub *s = NULL;
	zcast_pub *p = NULL;
	if (a->is_pub)
		CHECK_EQ(zcast_pub_open("/graph/t", NULL, &p), 0);
	else
		CHECK_EQ(zcast_sub_open("/graph/t", NULL, &s), 0);
	CHECK_EQ(write(a->ready[1], "r", 1), 1);
	char c;
	CHECK_EQ(read(a->go[0], &c, 1), 1); /* a SIGKILLed child never gets past this */
	if (s)
		CHECK_EQ(zcast_sub_close(s), 0);
	if (p)
		CHECK_EQ(zcast_pub_close(p), 0);
	return 0;
}

static pid_t start(struct child_args *a, int is_pub)
{
	CHECK_EQ(pipe(a->ready), 0);
	CHECK_EQ(pipe(a->go), 0);
	a->is_pub = is_pub;
	pid_t pid = zt_fork(member, a);
	char c;
	CHECK_EQ(read(a->ready[0], &c, 1), 1);
	return pid;
}

/* Waits on the graph entry until count() == want; every report must be a graph event. */
static void wait_count(zcast_waitset *ws, int (*count)(void *), void *h, int want, int *seen_max)
{
	for (;;) {
		int c = count(h);
		CHECK(c >= 0);
		if (c > *seen_max)
			*seen_max = c;
		if (c == want)
			return;
		zcast_ws_event ev[2];
		int n = zcast_waitset_wait(ws, WAIT_NS, ev, 2);
		CHECK_EQ(n, 1); /* bounded: a timeout here means the change was not reported */
		CHECK_EQ(ev[0].kind, ZCAST_WS_GRAPH);
	}
}

static int pub_matched(void *h)
{
	return zcast_pub_matched(h);
}

static int sub_matched(void *h)
{
	return zcast_sub_matched(h);
}

static void test_pub_sees_subscribers(void)
{
	zcast_pub *pub;
	CHECK_EQ(zcast_pub_open("/graph/t", NULL, &pub), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id, seen = 0;
	CHECK_EQ(zcast_waitset_add_pub_graph(ws, pub, pub, &id), 0);
	CHECK_EQ(zcast_pub_matched(pub), 0);
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);

	struct child_args a, b;
	pid_t pa = start(&a, 0);
	pid_t pb = start(&b, 0);
	wait_count(ws, pub_matched, pub, 2, &seen);
	CHECK_EQ(zcast_sub_matched(NULL), ZCAST_EINVAL);

	CHECK_EQ(write(a.go[1], "g", 1), 1); /* a leaves cleanly */
	CHECK_CHILD_OK(pa);
	wait_count(ws, pub_matched, pub, 1, &seen);
	CHECK_EQ(seen, 2);

	kill(pb, SIGKILL); /* b crashes: its record stays ACTIVE until someone cleans up */
	wait_count(ws, pub_matched, pub, 0, &seen);
	int st = zt_wait(pb);
	CHECK(WIFSIGNALED(st));
	/* A late extra event (the watcher's cleanup member) may follow; the count stays 0. */
	if (zcast_waitset_wait(ws, 0, ev, 2) == 1)
		CHECK_EQ(ev[0].kind, ZCAST_WS_GRAPH);
	CHECK_EQ(zcast_pub_matched(pub), 0);

	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_pub_close(pub), 0);
	for (int i = 0; i < 2; i++) {
		close(a.ready[i]), close(a.go[i]);
		close(b.ready[i]), close(b.go[i]);
	}
}

static void test_sub_sees_killed_publisher(void)
{
	zcast_sub *sub;
	CHECK_EQ(zcast_sub_open("/graph/t", NULL, &sub), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id, seen = 0;
	CHECK_EQ(zcast_waitset_add_sub_graph(ws, sub, NULL, &id), 0);
	CHECK_EQ(zcast_sub_matched(sub), 0);
	struct child_args a;
	pid_t pa = start(&a, 1);
	wait_count(ws, sub_matched, sub, 1, &seen);
	kill(pa, SIGKILL);
	wait_count(ws, sub_matched, sub, 0, &seen);
	zt_wait(pa);
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_sub_close(sub), 0);
	for (int i = 0; i < 2; i++)
		close(a.ready[i]), close(a.go[i]);
}

int main(void)
{
	zt_setup("graph", 120);
	RUN(test_pub_sees_subscribers);
	RUN(test_sub_sees_killed_publisher);
	/* The watcher's cleanup attaches as a tool member; its detach (which unlinks when it is the
	 * last one out) may still be in flight right after the count was reported. Bounded wait. */
	for (int i = 0; i < 10000 && zt_shm_count() != 0; i++)
		zt_sleep_ms(1);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
