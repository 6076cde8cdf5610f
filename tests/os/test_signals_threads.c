/* Issue 10, finding 8: the library's own threads must not take a program's signals. After zcast has
 * started its threads (a pollable subscriber descriptor, a wait set with graph entries), the main
 * thread blocks SIGINT and reads it from a signalfd; kill(getpid(), SIGINT) must arrive there. If a
 * library thread left SIGINT unblocked, the kernel would deliver it there and the default action
 * would kill the process. Runs in a child whose exit status is checked; 5 s watchdog. */
#include <poll.h>
#include <sys/signalfd.h>

#include "zcast/waitset.h"
#include "zt_hostile.h"
#include "zt_threads.h"

static int child_main(void *arg)
{
	(void)arg;
	alarm(5);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/sig/threads", NULL, &s), 0);
	zcast_waitset *ws = zt_start_helpers(s);
	zt_sleep_ms(50); /* the helper threads run */

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	CHECK(sfd >= 0);
	kill(getpid(), SIGINT);
	struct pollfd pfd = {sfd, POLLIN, 0};
	CHECK_EQ(poll(&pfd, 1, 4000), 1);
	struct signalfd_siginfo si;
	CHECK_EQ(read(sfd, &si, sizeof si), (ssize_t)sizeof si);
	CHECK_EQ(si.ssi_signo, SIGINT);
	zcast_waitset_destroy(ws);
	zcast_sub_close(s);
	return 0;
}

int main(void)
{
	zt_setup("sigthreads", 30);
	pid_t c = zt_fork(child_main, NULL);
	int st = zt_wait_bounded(c, 10000, "child reading SIGINT from a signalfd");
	if (WIFSIGNALED(st)) {
		fprintf(stderr,
			"FAIL: the process died of signal %d (%s): a zcast thread took it\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		zt_fail();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("ok\n");
	return 0;
}
