/* Issue 10, finding 8: a fork() in one thread while another thread runs zcast_sub_open must not let
 * the child keep the parent "alive". A process opens subscribers in a loop in one thread while a
 * second thread forks children that only sleep; the process is then killed with SIGKILL, its
 * children still sleeping. A third process (the test) runs gc: every member of the killed process
 * must be reclaimed (the test's own subscriber keeps the topic, so it counts 1). 6 rounds. */
#include "zt_hostile.h"

#define TOPIC "/fork/open"
#define ROUNDS 6
#define OPENS 48
#define FORKS 8

struct parent_args {
	int report_w; /* child pids, then -1 when ready to be killed */
};

static atomic_int opening;

static void *opener_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < OPENS; i++) {
		zcast_sub *s = NULL;
		CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0); /* kept open */
	}
	atomic_store(&opening, 0);
	return NULL;
}

static int parent_main(void *a_)
{
	struct parent_args *a = a_;
	unsetenv("ZCAST_NO_DEATH_WATCH"); /* this process runs the library's threads, as any would */
	atomic_store(&opening, 1);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, opener_main, NULL), 0);
	for (int i = 0; i < FORKS && atomic_load(&opening); i++) {
		pid_t c = fork();
		CHECK(c >= 0);
		if (c == 0) {
			alarm(60); /* never outlives the test for long */
			for (;;)
				pause();
		}
		CHECK_EQ(write(a->report_w, &c, sizeof c), (ssize_t)sizeof c);
		usleep(200);
	}
	pthread_join(th, NULL);
	pid_t done = -1;
	CHECK_EQ(write(a->report_w, &done, sizeof done), (ssize_t)sizeof done);
	for (;;)
		pause();
}

int main(void)
{
	zt_setup("forkopen", 120);
	/* The test process forks a new "parent" every round: it runs no library threads, since a
	 * child forked while one of them allocates may inherit a held sanitizer allocator lock. */
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1);
	zcast_sub *own = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &own), 0);
	for (int round = 0; round < ROUNDS; round++) {
		int rep[2];
		CHECK_EQ(pipe(rep), 0);
		struct parent_args a = {rep[1]};
		pid_t parent = zt_fork(parent_main, &a);
		pid_t kids[FORKS];
		int n = 0;
		for (;;) {
			pid_t c;
			CHECK_EQ(read(rep[0], &c, sizeof c), (ssize_t)sizeof c);
			if (c < 0)
				break;
			CHECK(n < FORKS);
			kids[n++] = c;
		}
		kill(parent, SIGKILL);
		CHECK_EQ(WTERMSIG(zt_wait(parent)), SIGKILL);
		/* The kernel drops a killed process's OFD locks shortly after waitpid returns: wait for
		 * the reclaim, up to 5 s. A child that kept the parent alive keeps it past that. */
		int reclaimed = 0;
		zcast_topic_stat st = zt_stat(TOPIC);
		for (int ms = 0; ms < 5000 && st.subscribers != 1; ms += 10) {
			int last = zcast_topic_gc(NULL, TOPIC);
		CHECK(last >= 0);
		reclaimed += last;
			zt_sleep_ms(10);
			st = zt_stat(TOPIC);
		}
		/* Nobody here runs a death watcher: the killed process's records are freed by this gc
		 * (its locks are gone now), or the next round's joins would find no free record. */
		int last = zcast_topic_gc(NULL, TOPIC);
		CHECK(last >= 0);
		reclaimed += last;
		printf("round %d: %d forks, gc reclaimed %d, %u of its subscribers left\n", round,
		       n, reclaimed, st.subscribers - 1);
		if (st.subscribers != 1) {
			fprintf(stderr,
				"FAIL: round %d: %u subscribers of the killed process stay alive "
				"through a forked child\n",
				round, st.subscribers - 1);
			zt_fail();
		}
		for (int i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
		close(rep[0]);
		close(rep[1]);
	}
	zcast_sub_close(own);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
