/* Issue 22, item 16: starting the death watcher must not leak what it made when a later step
 * fails. With only a few descriptors free, opens fail at every step in turn (the topic, the pool,
 * the watcher's epoll set, its eventfd ...); after each attempt (closed again when it succeeded)
 * the process holds at most one epoll descriptor, the running watcher's. */
#include <sys/resource.h>

#include "zt_unseen.h"

int main(void)
{
	zt_setup("startfds", 60);
	struct rlimit rl;
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 128;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	int opened = 0;
	for (int free_fds = 1; free_fds <= 12; free_fds++) {
		int spent[128], n = 0, fd;
		while (n < 128 && (fd = dup(0)) >= 0)
			spent[n++] = fd;
		for (int i = 0; i < free_fds && n; i++)
			close(spent[--n]);
		char topic[32];
		snprintf(topic, sizeof topic, "/start/fds%d", free_fds);
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		zcast_sub *s = NULL;
		int r = zcast_sub_open(topic, &o, &s);
		while (n)
			close(spent[--n]);
		if (r == 0) {
			opened++;
			CHECK_EQ(zcast_sub_close(s), 0);
		}
		int eps = zt_epoll_fds(0);
		printf("%d descriptors free: open %s, %d epoll descriptors\n", free_fds,
		       r == 0 ? "ok" : "failed", eps);
		CHECK(eps <= 1);
	}
	CHECK(opened > 0);
	printf("ok start_fds\n");
	return 0;
}
