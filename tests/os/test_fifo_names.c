/* Issue 22, item 5: a FIFO at a zcast name in /dev/shm (any uid can make one in the sticky
 * directory) must not hang whoever opens that name. Opening a FIFO read-only blocks until a writer
 * comes, before any type check could run; every open of a name is non-blocking and checks the type
 * first. Each case runs under a 10 s watchdog (a hang is a FAIL):
 *  - zcast_topic_members and zcast_topic_gc on a topic whose control segment is a FIFO fail at once,
 *    saying the file is not a regular file;
 *  - the tool's `gc TOPIC`, `gc --all`, `echo TOPIC` and `info TOPIC` end (the tool is
 *    $ZCAST_TOOL);
 *  - a pool replaced by a FIFO after this process mapped its headers: the take that maps its
 *    payload fails instead of waiting for a writer. */
#include "zt_hostile.h"

static char path[400];

static void make_fifo(const char *topic)
{
	zt_topic_path(path, sizeof path, topic);
	CHECK_EQ(mkfifo(path, 0600), 0);
}

static void api(void)
{
	make_fifo("/fifo/api");
	int r = zcast_topic_members(NULL, "/fifo/api", NULL, NULL);
	printf("members: %d (%s)\n", r, zcast_last_error());
	CHECK(r < 0);
	CHECK_MSG_HAS(zcast_last_error(), "not a regular file");
	r = zcast_topic_gc(NULL, "/fifo/api");
	printf("gc: %d (%s)\n", r, zcast_last_error());
	CHECK(r < 0);
	zcast_topic_stat st;
	r = zcast_topic_stat_get(NULL, "/fifo/api", &st);
	printf("stat: %d (%s)\n", r, zcast_last_error());
	CHECK(r < 0);
	CHECK_MSG_HAS(zcast_last_error(), "not a regular file"); /* not "permission denied" */
	unlink(path);
}

/* Runs the tool with `args`; it must end (any status) within 8 s. */
static void tool(const char *args)
{
	const char *t = getenv("ZCAST_TOOL");
	CHECK(t && access(t, X_OK) == 0);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "exec '%s' -d %s %s </dev/null", t, zt_domain(), args);
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	zt_children[zt_n_children++] = pid;
	int st = zt_wait_bounded(pid, 8000, args);
	printf("zcast %s: exit %d\n", args, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 127);
}

static void tools(void)
{
	make_fifo("/fifo/tool");
	tool("gc /fifo/tool");
	tool("gc --all");
	tool("echo /fifo/tool --timeout 1");
	tool("info /fifo/tool");
	unlink(path);
}

static int publish_one(void *arg)
{
	int *ready = arg;
	zcast_pub *p = zt_open_pub("/fifo/pool", 64, 4);
	zt_publish(p, 1, 64);
	zt_publish(p, 2, 64);
	zt_signal(ready[1]);
	while (pause() < 0 || p)
		;
	return 0;
}

static void pool(void)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 4;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/fifo/pool", &o, &s), 0);
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	pid_t pub = zt_fork(publish_one, ready);
	zt_await(ready[0]);
	/* Maps the pool's headers (not its payload) in this process, as any reclaim does. */
	CHECK_EQ(zcast_topic_members(NULL, "/fifo/pool", NULL, NULL), 2);
	char pool_path[400];
	CHECK(zt_find_pool(pool_path, sizeof pool_path));
	CHECK_EQ(unlink(pool_path), 0);
	CHECK_EQ(mkfifo(pool_path, 0600), 0);
	zcast_msg *m = NULL;
	int r = zcast_take(s, &m);
	printf("take: %d (%s)\n", r, zcast_last_error());
	if (r == 0)
		zcast_msg_drop(m);
	unlink(pool_path);
	kill(pub, SIGKILL);
	zt_wait(pub);
	zcast_sub_close(s);
}

int main(void)
{
	zt_setup("fifonames", 120);
	static const struct zt_case cases[] = {ZT_CASE(api), ZT_CASE(tools), ZT_CASE(pool)};
	return zt_run_cases(cases, 3, 10);
}
