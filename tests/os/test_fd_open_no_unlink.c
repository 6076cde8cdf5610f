/* Issue 22, item 11: when the fork registry cannot grow (realloc fails), an open of an existing name
 * fails and leaves the file alone. It once unlinked it as if it had created it: a live topic (or
 * pool, or doorbell) vanished. This test makes realloc fail on demand (it interposes realloc), opens
 * a topic another process created, and checks that the topic is still there and usable. */
#include <dlfcn.h>

#include "zt_seg.h"

static _Atomic int fail_realloc;

void *realloc(void *p, size_t n)
{
	static void *(*real)(void *, size_t);
	if (atomic_load(&fail_realloc))
		return NULL;
	if (!real)
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return real(p, n);
}

static int owner_main(void *arg)
{
	int *ready = arg;
	zcast_pub *p = zt_open_pub("/noun/t", 64, 4);
	zt_signal(ready[1]);
	while (pause() < 0 || p)
		;
	return 0;
}

int main(void)
{
	zt_setup("nounlink", 60);
	free(realloc(NULL, 16)); /* resolves the real realloc before it is needed */
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	pid_t owner = zt_fork(owner_main, ready);
	zt_await(ready[0]);
	char path[400];
	zt_topic_path(path, sizeof path, "/noun/t");
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	/* The first name this process opens: the registry must grow from nothing, and cannot. */
	atomic_store(&fail_realloc, 1);
	zcast_sub *s = NULL;
	int r = zcast_sub_open("/noun/t", NULL, &s);
	atomic_store(&fail_realloc, 0);
	printf("open with realloc failing: %d (%s)\n", r, zcast_last_error());
	CHECK_EQ(r, ZCAST_ENOMEM);
	if (stat(path, &st) != 0) {
		fprintf(stderr, "FAIL: the topic's file %s is gone\n", path);
		zt_fail();
	}
	CHECK_EQ(zcast_sub_open("/noun/t", NULL, &s), 0);
	zcast_sub_close(s);
	kill(owner, SIGKILL);
	zt_wait(owner);
	return 0;
}
