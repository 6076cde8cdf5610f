/* Issue 22, item 12: zcast_sub_fd when an allocation fails. It called abort() on a failed realloc
 * of its request list, and when the helper thread could not add the subscriber to its wait set
 * (out of memory) it still returned a descriptor that never became readable. Now a failure is an
 * error return, and a returned descriptor works.
 *
 * This test replaces realloc: after arming, the k-th call in the process fails. For every k from 1
 * to 40, a child opens a publisher and ten subscribers, arms, calls zcast_sub_fd for each: a call
 * either fails with an error (and a second call works) or gives a descriptor; then one published
 * message must make every descriptor readable (poll with a 10 s bound: "never" is the failure). A
 * child that aborts fails the test. Skipped under ASan (its allocator cannot be mixed with
 * glibc's). */
#include <poll.h>

#include "zt_seg.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZT_OWN_ALLOCATOR 1
#endif

static _Atomic int fail_in;		     /* > 0: the fail_in-th realloc from now fails */
extern void *__libc_realloc(void *, size_t); /* glibc's own */

#ifndef ZT_OWN_ALLOCATOR
void *realloc(void *p, size_t n)
{
	int k = atomic_load(&fail_in);
	while (k > 0 && !atomic_compare_exchange_weak(&fail_in, &k, k - 1)) {
	}
	if (k == 1)
		return NULL;
	return __libc_realloc(p, n);
}
#endif

#define N_SUBS 10 /* the helper's wait set grows its word arrays at the eighth entry */

/* A published message must make the descriptor readable. */
__attribute__((unused)) static int readable(int fd)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	return poll(&pfd, 1, 10000) == 1;
}

__attribute__((unused)) static int attach_case(void *arg) /* unused where skipped */
{
	int k = (int)(intptr_t)arg;
	zcast_pub *p = zt_open_pub("/subfd/alloc", 64, 8);
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_sub *s[N_SUBS];
	int fd[N_SUBS], r[N_SUBS];
	for (int i = 0; i < N_SUBS; i++)
		CHECK_EQ(zcast_sub_open("/subfd/alloc", &o, &s[i]), 0);
	atomic_store(&fail_in, k);
	for (int i = 0; i < N_SUBS; i++)
		if ((r[i] = zcast_sub_fd(s[i], &fd[i])) != 0)
			CHECK(strlen(zcast_last_error()) > 0);
	atomic_store(&fail_in, 0);
	for (int i = 0; i < N_SUBS; i++)
		if (r[i] != 0)
			CHECK_EQ(zcast_sub_fd(s[i], &fd[i]), 0); /* a failure lost nothing */
	zt_publish(p, 1, 64);
	for (int i = 0; i < N_SUBS; i++) {
		if (!readable(fd[i])) {
			fprintf(stderr,
				"realloc %d failed: zcast_sub_fd of subscriber %d returned %d, "
				"its descriptor never became readable\n",
				k, i, r[i]);
			return 1;
		}
		CHECK_EQ(zcast_sub_close(s[i]), 0);
	}
	CHECK_EQ(zcast_pub_close(p), 0);
	return 0;
}

int main(void)
{
#ifdef ZT_OWN_ALLOCATOR
	printf("skip: a sanitizer's allocator cannot be replaced here\n");
	return ZT_SKIP;
#else
	zt_setup("subfdalloc", 280);
	int failed = 0;
	for (int k = 1; k <= 40; k++) {
		pid_t pid = zt_fork(attach_case, (void *)(intptr_t)k);
		int st = zt_wait(pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("FAIL realloc %d: child %s %d\n", k,
			       WIFSIGNALED(st) ? "killed by signal" : "exited with",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			failed = 1;
		}
		zt_cleanup();
	}
	if (!failed)
		printf("ok subfd_alloc_fail\n");
	return failed;
#endif
}
