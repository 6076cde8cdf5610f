/* Issue 22, item 2: zcast_publish_wait(-1) and zcast_loan_wait(-1) end when their only blocker is
 * killed and it ran in another PID namespace (a container without --pid=host: shared /dev/shm,
 * separate PIDs). The peer is pid 1 of a fresh namespace, so its record names pid 1, which here is
 * a process that never exits: its pidfd never fires. Skipped (77) where unshare(CLONE_NEWPID) is
 * refused (not root, or a seccomp filter). */
#include <sched.h>

#include "zt_unseen.h"

struct nsrun {
	struct zt_blocker *a;
	int pid_w;
};

/* The intermediate child: a new PID namespace for its children, the peer as its pid 1. */
static int ns_main(void *a_)
{
	struct nsrun *n = a_;
	pid_t pid = -1;
	if (unshare(CLONE_NEWPID) == 0) {
		pid = fork();
		if (pid == 0)
			_exit(zt_blocker_main(n->a));
	}
	if (write(n->pid_w, &pid, sizeof pid) != sizeof pid)
		return 3;
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
		}
	return 0;
}

/* Starts the peer in its own namespace and waits until it has joined; 0 when namespaces are
 * refused. */
static pid_t start_in_new_pidns(struct zt_blocker *a, const char *topic, int hold, pid_t *mid)
{
	zt_blocker_pipes(a, topic, hold);
	int p[2];
	CHECK_EQ(pipe(p), 0);
	struct nsrun n = {a, p[1]};
	*mid = zt_fork(ns_main, &n);
	pid_t pid;
	CHECK_EQ(read(p[0], &pid, sizeof pid), (long)sizeof pid);
	if (pid <= 0)
		return 0;
	zt_children[zt_n_children++] = pid; /* killed if the test fails */
	a->pid = pid;
	zt_await(a->ready_r);
	return pid;
}

static void blocked_case(const char *topic, int hold)
{
	struct zt_blocker a;
	pid_t mid;
	CHECK(start_in_new_pidns(&a, topic, hold, &mid) > 0);
	zcast_pub *p = zt_blocked_pub_for(&a);
	zt_wait_until_killed(p, &a);
	CHECK_CHILD_OK(mid);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void publish_wait_case(void)
{
	blocked_case("/pidns/pw", 0);
}

static void loan_wait_case(void)
{
	blocked_case("/pidns/lw", 2);
}

int main(void)
{
	zt_setup("otherpidns", 120);
	/* Probe in a child: is a new PID namespace allowed here? */
	pid_t probe = fork();
	CHECK(probe >= 0);
	if (probe == 0)
		_exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
	int st = zt_wait(probe);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("skip: unshare(CLONE_NEWPID) refused here\n");
		return ZT_SKIP;
	}
	static const struct zt_case cases[] = {ZT_CASE(publish_wait_case), ZT_CASE(loan_wait_case)};
	return zt_run_cases(cases, 2, 30);
}
