/* Services (issue 23): a server that ran in another PID namespace (a container without
 * --pid=host: shared /dev/shm, separate PIDs) is killed with a call taken. Its records name pid 1,
 * which here is a process that never exits, so no pidfd reports the death; the death watcher's
 * inotify close events and OFD-lock probes must, and the call fails with ZCAST_ESRVGONE (the wait
 * is unbounded). Skipped (77) where unshare(CLONE_NEWPID) is refused. */
#include <sched.h>

#include "zt_svc.h"

static const char *service = "/svc/pidns";

struct nsrun {
	struct zt_server *s;
	int pid_w;
};

/* The intermediate child: a new PID namespace for its children, the server as its pid 1. */
static int ns_main(void *arg)
{
	struct nsrun *n = arg;
	pid_t pid = -1;
	if (unshare(CLONE_NEWPID) == 0) {
		pid = fork();
		if (pid == 0)
			_exit(zt_server_main(n->s));
	}
	if (write(n->pid_w, &pid, sizeof pid) != sizeof pid)
		return 3;
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
		}
	return 0;
}

int main(void)
{
	zt_setup("svc_pidns", 120);
	int took[2], ready[2], p[2];
	CHECK_EQ(pipe(took), 0);
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(p), 0);
	struct zt_server s = {.service = service, .took_w = took[1], .start_r = -1, .hold_all = 1,
			      .ready_w = ready[1]};
	struct nsrun n = {&s, p[1]};
	pid_t mid = zt_fork(ns_main, &n), pid;
	CHECK_EQ(read(p[0], &pid, sizeof pid), (long)sizeof pid);
	if (pid <= 0) {
		CHECK_CHILD_OK(mid);
		printf("SKIP svc_server_other_pidns: unshare(CLONE_NEWPID) refused\n");
		return ZT_SKIP;
	}
	zt_children[zt_n_children++] = pid; /* killed if the test fails */
	zt_get_byte(ready[0]);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seq, got;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 1), &seq), 0);
	zt_get_byte(took[0]);
	kill(pid, SIGKILL);
	CHECK_CHILD_OK(mid);
	for (;;) {
		CHECK_EQ(zcast_client_wait(cli, -1), 0);
		zcast_msg *resp;
		int r = zcast_response_take(cli, &resp, &got);
		if (r == ZCAST_EAGAIN)
			continue;
		CHECK_EQ(r, ZCAST_ESRVGONE);
		CHECK_EQ(got, seq);
		break;
	}
	CHECK_EQ(zcast_client_close(cli), 0);
	printf("PASS svc_server_other_pidns\n");
	return 0;
}
