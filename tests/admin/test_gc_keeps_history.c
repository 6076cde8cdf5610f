/* Issue 10, finding 7: gc of a topic whose members are all dead keeps its history (as the next
 * opener would): a publisher with history depth 3 publishes 5 messages and is killed; after
 * zcast_topic_gc (first case) or the tool `zcast gc` (second case), a subscriber asking for
 * history 3 receives messages 3, 4 and 5, in order. The tool is $ZCAST_TOOL, or tools/zcast of the
 * build tree this test lives in. */
#include "zt_hostile.h"
#include "zt_tool.h"

struct args {
	const char *topic;
	int ready_w;
};

static int publisher_main(void *a_)
{
	struct args *a = a_;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 8;
	o.history_depth = 3;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(a->topic, &o, &p), 0);
	for (uint64_t i = 1; i <= 5; i++)
		zt_publish(p, i, 64);
	zt_signal(a->ready_w);
	for (;;)
		pause();
}

static void publish_and_die(const char *topic)
{
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	struct args a = {topic, ready[1]};
	pid_t pub = zt_fork(publisher_main, &a);
	zt_await(ready[0]);
	kill(pub, SIGKILL);
	CHECK_EQ(WTERMSIG(zt_wait(pub)), SIGKILL);
	close(ready[0]);
	close(ready[1]);
}

static void expect_history(const char *topic)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.history = 3;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	for (uint64_t want = 3; want <= 5; want++) {
		zcast_msg *m;
		int r = zcast_take(s, &m);
		if (r != 0) {
			fprintf(stderr,
				"FAIL: %s: history message %llu missing after gc (take %d)\n",
				topic, (unsigned long long)want, r);
			zt_fail();
		}
		uint64_t seq = 0;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		CHECK_EQ(seq, want);
		zcast_msg_drop(m);
	}
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	zcast_sub_close(s);
}

static void api_gc(void)
{
	publish_and_die("/gchist/api");
	CHECK(zcast_topic_gc(NULL, "/gchist/api") >= 0);
	expect_history("/gchist/api");
}

static void tool_gc(void)
{
	char tool[4096];
	zt_tool_path(tool, sizeof tool);
	publish_and_die("/gchist/tool");
	char cmd[8300];
	snprintf(cmd, sizeof cmd, "'%s' -d %s gc /gchist/tool", tool, zt_domain());
	int st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	expect_history("/gchist/tool");
}

int main(void)
{
	zt_setup("gchist", 60);
	static const struct zt_case cases[] = {ZT_CASE(api_gc), ZT_CASE(tool_gc)};
	return zt_run_cases(cases, 2, 20);
}
