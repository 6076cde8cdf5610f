/* Graph events as executor callbacks: a subscriber process joins and is then killed (SIGKILL: the
 * death watcher reclaims it), a publisher process joins and closes cleanly. Each change of the
 * matched count reaches the callback once, with the previous count, in order; the kill is reported
 * as one crashed peer (in the call that saw the count drop, or in one more call once reclaimed), the
 * clean close as none. */
#include <signal.h>

#include "harness.h"
#include "zcast/executor.h"

struct seen {
	int n;
	int matched[8], previous[8];
	int crashed; /* summed over the calls */
	const void *handle;
};

static void on_graph(const zcast_graph_event *ev, void *ctx)
{
	struct seen *s = ctx;
	CHECK(s->n < 8);
	CHECK(ev->pub == s->handle || ev->sub == s->handle);
	CHECK((ev->pub == NULL) != (ev->sub == NULL));
	s->matched[s->n] = ev->matched;
	s->previous[s->n] = ev->previous;
	CHECK(ev->crashed >= 0);
	CHECK(ev->matched != ev->previous || ev->crashed > 0); /* no call without news */
	s->crashed += ev->crashed;
	s->n++;
}

struct peer {
	int ready[2], go[2];
	const char *topic;
	int publisher;
};

static int peer_main(void *arg)
{
	struct peer *p = arg;
	zcast_pub *pub = NULL;
	zcast_sub *sub = NULL;
	if (p->publisher)
		CHECK_EQ(zcast_pub_open(p->topic, NULL, &pub), 0);
	else
		CHECK_EQ(zcast_sub_open(p->topic, NULL, &sub), 0);
	char c = 1;
	CHECK_EQ(write(p->ready[1], &c, 1), 1);
	CHECK_EQ(read(p->go[0], &c, 1), 1); /* the subscriber peer is killed while it waits here */
	if (pub)
		CHECK_EQ(zcast_pub_close(pub), 0);
	return 0;
}

static pid_t start_peer(struct peer *p)
{
	CHECK_EQ(pipe(p->ready), 0);
	CHECK_EQ(pipe(p->go), 0);
	pid_t pid = zt_fork(peer_main, p);
	char c;
	CHECK_EQ(read(p->ready[0], &c, 1), 1);
	return pid;
}

static void spin_until_events(zcast_executor *ex, struct seen *s, int n)
{
	int64_t limit = zt_now_ns() + 30000000000ll;
	while (s->n < n && zt_now_ns() < limit) {
		int r = zcast_executor_spin_once(ex, 1000000000);
		CHECK(r > 0 || r == ZCAST_ETIMEDOUT);
	}
	CHECK_EQ(s->n, n);
}

static void killed_subscriber(void)
{
	zcast_pub *pub;
	CHECK_EQ(zcast_pub_open("/graph/a", NULL, &pub), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	struct seen s = {.handle = pub};
	CHECK_EQ(zcast_executor_add_pub_graph(ex, pub, on_graph, &s), 0);
	CHECK_EQ(zcast_executor_add_pub_graph(ex, pub, on_graph, &s), ZCAST_EBUSY);
	struct peer p = {.topic = "/graph/a"};
	pid_t pid = start_peer(&p);
	spin_until_events(ex, &s, 1);
	CHECK_EQ(s.matched[0], 1);
	CHECK_EQ(s.previous[0], 0);
	CHECK_EQ(s.crashed, 0);
	kill(pid, SIGKILL);
	zt_wait(pid);
	spin_until_events(ex, &s, 2);
	CHECK_EQ(s.matched[1], 0);
	CHECK_EQ(s.previous[1], 1);
	if (s.crashed == 0) { /* seen gone before its reclaim: the crash comes in one more call */
		spin_until_events(ex, &s, 3);
		CHECK_EQ(s.matched[2], 0);
		CHECK_EQ(s.previous[2], 0);
	}
	CHECK_EQ(s.crashed, 1);
	CHECK_EQ(zcast_executor_remove_graph(ex, pub), 0);
	CHECK_EQ(zcast_executor_remove_graph(ex, pub), ZCAST_ENOENT);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_pub_close(pub), 0);
}

static void publisher_leaves(void)
{
	zcast_sub *sub;
	CHECK_EQ(zcast_sub_open("/graph/b", NULL, &sub), 0);
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = 2; /* the pool runs graph callbacks too */
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(&eo, &ex), 0);
	struct seen s = {.handle = sub};
	CHECK_EQ(zcast_executor_add_sub_graph(ex, sub, on_graph, &s), 0);
	struct peer p = {.topic = "/graph/b", .publisher = 1};
	pid_t pid = start_peer(&p);
	spin_until_events(ex, &s, 1);
	CHECK_EQ(s.matched[0], 1);
	char c = 1;
	CHECK_EQ(write(p.go[1], &c, 1), 1);
	CHECK_CHILD_OK(pid);
	spin_until_events(ex, &s, 2);
	CHECK_EQ(s.matched[1], 0);
	CHECK_EQ(s.previous[1], 1);
	CHECK_EQ(s.crashed, 0); /* a clean close */
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_sub_close(sub), 0);
}

int main(void)
{
	zt_setup("exec_graph", 120);
	RUN(killed_subscriber);
	RUN(publisher_leaves);
	return 0;
}
