/* Debug builds: touching a loan through a copy after it was published aborts (release builds
 * return NULL / ZCAST_ESTALE instead, see test_pubsub). */
#include "harness.h"

static int use_stale_copy(void *arg)
{
	(void)arg;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/stale", NULL, &p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	zcast_msg *copy = zcast_msg_ref(m);
	CHECK_EQ(zcast_publish(p, m), 0);
	memset(zcast_msg_data(copy), 1, 8); /* must not get here */
	return 0;
}

int main(void)
{
	zt_setup("dbgstale", 60);
	pid_t pid = zt_fork(use_stale_copy, NULL);
	int st = zt_wait(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	printf("ok stale loan copy aborts in a debug build\n");
	return 0;
}
