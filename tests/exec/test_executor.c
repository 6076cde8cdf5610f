/* Executor: one process with 300 subscriptions on 300 topics fed by 3 publisher processes (FULL
 * backpressure, zcast_publish_wait): every message reaches the right callback exactly once and in
 * order, callbacks of one subscription never overlap; with a pool of 4 threads and single-threaded.
 * Shutdown while callbacks run (from another thread, and by SIGINT): spin returns after the running
 * callbacks, nothing runs afterwards, and once the kept messages are dropped and the subscribers
 * closed every pool is full again (slots_free == slots_total). */
#include <pthread.h>
#include <sys/resource.h>

#include "harness.h"
#include "zcast/executor.h"

#define N_TOPICS 300
#define N_PUBS 3
#define LIMIT_NS 120000000000ll

struct go_pipe {
	int fd[2];
};

static void topic_name(char *buf, size_t n, int i)
{
	snprintf(buf, n, "/ex/t%d", i);
}

static void small_topic(zcast_topic_opts *t)
{
	t->max_subscribers = 4;
	t->max_publishers = 2;
	t->max_queue_depth = 8;
	t->history_capacity = 1;
}

struct pub_job {
	int k;        /* publisher k owns topics i with i % N_PUBS == k */
	int per_topic;
	int go;       /* read end */
};

static int publisher(void *arg)
{
	struct pub_job *j = arg;
	char c;
	CHECK_EQ(read(j->go, &c, 1), 1);
	zcast_pub *p[N_TOPICS / N_PUBS];
	int n = 0;
	for (int i = j->k; i < N_TOPICS; i += N_PUBS) {
		char name[64];
		topic_name(name, sizeof name, i);
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = 64;
		o.slot_count = 8;
		small_topic(&o.topic);
		CHECK_EQ(zcast_pub_open(name, &o, &p[n]), 0);
		CHECK_EQ(zcast_pub_matched(p[n]), 1); /* the subscriber joined before "go" */
		n++;
	}
	for (int s = 0; s < j->per_topic; s++) {
		for (int t = 0; t < n; t++) {
			zcast_msg *m;
			CHECK_EQ(zcast_loan_wait(p[t], 64, LIMIT_NS, &m), 0);
			zt_fill(zcast_msg_data(m), 64, (uint64_t)s, (uint64_t)(j->k + t * N_PUBS));
			CHECK_EQ(zcast_publish_wait(p[t], m, LIMIT_NS), 0); /* FULL: waits for room */
		}
	}
	for (int t = 0; t < n; t++)
		CHECK_EQ(zcast_pub_close(p[t]), 0);
	return 0;
}

struct sub_state {
	int topic;
	uint64_t next;
	_Atomic int inside;
	zcast_msg *kept; /* the latest message, kept past the callback with zcast_msg_ref */
};

static struct {
	struct sub_state st[N_TOPICS];
	_Atomic uint64_t total;
	uint64_t want;
	int64_t t0;
	_Atomic int failed;
	zcast_executor *ex;
} G;

static void on_msg(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	struct sub_state *s = ctx;
	if (atomic_fetch_add(&s->inside, 1) != 0)
		atomic_store(&G.failed, 1); /* two callbacks of one subscription at once */
	uint64_t seq = UINT64_MAX, pub = UINT64_MAX;
	if (!zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub) || pub != (uint64_t)s->topic ||
	    seq != s->next)
		atomic_store(&G.failed, 2);
	s->next = seq + 1;
	if (s->kept)
		zcast_msg_drop(s->kept);
	s->kept = zcast_msg_ref(m);
	atomic_fetch_sub(&s->inside, 1);
	if (atomic_fetch_add(&G.total, 1) + 1 == G.want)
		zcast_executor_stop(G.ex);
}

static void on_watchdog(void *ctx)
{
	(void)ctx;
	if (zt_now_ns() - G.t0 > LIMIT_NS) { /* bounded: report instead of hanging */
		atomic_store(&G.failed, 3);
		zcast_executor_stop(G.ex);
	}
}

static int raise_nofile(rlim_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < need)
		return -1;
	return 0;
}

static void run_many(uint32_t threads, int per_topic)
{
	memset(&G, 0, sizeof G);
	G.want = (uint64_t)N_TOPICS * (uint64_t)per_topic;
	struct go_pipe go[N_PUBS];
	struct pub_job job[N_PUBS];
	pid_t pid[N_PUBS];
	for (int k = 0; k < N_PUBS; k++) { /* fork before any thread exists in this process */
		CHECK_EQ(pipe(go[k].fd), 0);
		job[k] = (struct pub_job){k, per_topic, go[k].fd[0]};
		pid[k] = zt_fork(publisher, &job[k]);
	}
	zcast_sub *sub[N_TOPICS];
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = threads;
	CHECK_EQ(zcast_executor_create(&eo, &G.ex), 0);
	for (int i = 0; i < N_TOPICS; i++) {
		char name[64];
		topic_name(name, sizeof name, i);
		zcast_sub_opts so;
		zcast_sub_opts_init(&so);
		so.queue_depth = 4; /* small: publishers meet backpressure often */
		small_topic(&so.topic);
		CHECK_EQ(zcast_sub_open(name, &so, &sub[i]), 0);
		G.st[i].topic = i;
		CHECK_EQ(zcast_executor_add_sub(G.ex, sub[i], on_msg, &G.st[i], 0), 0);
	}
	CHECK_EQ(zcast_executor_add_timer(G.ex, 100000000, on_watchdog, NULL), 0);
	G.t0 = zt_now_ns();
	for (int k = 0; k < N_PUBS; k++)
		CHECK_EQ(write(go[k].fd[1], "g", 1), 1);
	CHECK_EQ(zcast_executor_spin(G.ex), 0);
	CHECK_EQ(atomic_load(&G.failed), 0);
	CHECK_EQ(atomic_load(&G.total), G.want);
	for (int k = 0; k < N_PUBS; k++)
		CHECK_CHILD_OK(pid[k]);
	for (int i = 0; i < N_TOPICS; i++) {
		CHECK_EQ(G.st[i].next, (uint64_t)per_topic);
		zcast_msg *m;
		CHECK_EQ(zcast_take(sub[i], &m), ZCAST_EAGAIN); /* none twice, nothing left */
	}
	zcast_executor_destroy(G.ex);
	for (int i = 0; i < N_TOPICS; i++) {
		zcast_msg_drop(G.st[i].kept);
		CHECK_EQ(zcast_sub_close(sub[i]), 0);
	}
	for (int k = 0; k < N_PUBS; k++)
		close(go[k].fd[0]), close(go[k].fd[1]);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_300_topics_pool(void)
{
	run_many(4, 100);
}

static void test_300_topics_single_thread(void)
{
	run_many(1, 30);
}

/* ---- shutdown while callbacks run ---- */

#define S_TOPICS 4
#define KEEP 4 /* below slot_count: kept messages hold slots */

struct kept {
	pthread_mutex_t mu;
	zcast_msg *m[KEEP];
	int n;
};

static struct {
	struct kept k[S_TOPICS];
	_Atomic int running; /* callbacks running now */
	_Atomic uint64_t calls;
	_Atomic int after_stop;
	_Atomic int spin_returned;
	zcast_executor *ex;
	int use_signal;
} S;

static void on_slow(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	struct kept *k = ctx;
	atomic_fetch_add(&S.running, 1);
	if (atomic_load(&S.spin_returned))
		atomic_store(&S.after_stop, 1);
	uint64_t c = atomic_fetch_add(&S.calls, 1);
	if (c % 3 == 0) {
		pthread_mutex_lock(&k->mu);
		if (k->n < KEEP)
			k->m[k->n++] = zcast_msg_ref(m); /* held past the callback and the shutdown */
		pthread_mutex_unlock(&k->mu);
	}
	zt_sleep_ms(1);
	atomic_fetch_sub(&S.running, 1);
}

static void *stopper(void *arg)
{
	(void)arg;
	int64_t t0 = zt_now_ns();
	while (atomic_load(&S.calls) < 200 && zt_now_ns() - t0 < LIMIT_NS)
		zt_sleep_ms(1);
	if (S.use_signal)
		kill(getpid(), SIGINT);
	else
		zcast_executor_stop(S.ex);
	return NULL;
}

struct flood_args {
	int done[2]; /* child -> parent: stopped publishing, no loan held */
	int quit[2]; /* parent -> child: leave */
};

static int flood(void *arg)
{
	struct flood_args *a = arg;
	zcast_pub *p[S_TOPICS];
	for (int i = 0; i < S_TOPICS; i++) {
		char name[64];
		snprintf(name, sizeof name, "/ex/s%d", i);
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = 64;
		o.slot_count = 16;
		CHECK_EQ(zcast_pub_open(name, &o, &p[i]), 0);
	}
	int64_t t0 = zt_now_ns();
	while (zcast_pub_matched(p[0]) == 0 && zt_now_ns() - t0 < LIMIT_NS)
		zt_sleep_ms(1); /* setup only: the subscribers join */
	uint64_t seq = 0;
	for (;;) {
		int live = 0;
		for (int i = 0; i < S_TOPICS; i++) {
			if (zcast_pub_matched(p[i]) == 0)
				continue;
			live++;
			zcast_msg *m;
			if (zcast_loan_wait(p[i], 64, 100000000, &m) != 0)
				continue;
			zt_fill(zcast_msg_data(m), 64, seq++, (uint64_t)i);
			if (zcast_publish_wait(p[i], m, 100000000) != 0)
				zcast_msg_drop(m);
		}
		if (!live)
			break;
		CHECK(zt_now_ns() - t0 < LIMIT_NS);
	}
	CHECK_EQ(write(a->done[1], "d", 1), 1);
	char c;
	CHECK_EQ(read(a->quit[0], &c, 1), 1);
	for (int i = 0; i < S_TOPICS; i++)
		CHECK_EQ(zcast_pub_close(p[i]), 0);
	return 0;
}

static void run_shutdown(int use_signal)
{
	memset(&S, 0, sizeof S);
	S.use_signal = use_signal;
	struct flood_args a;
	CHECK_EQ(pipe(a.done), 0);
	CHECK_EQ(pipe(a.quit), 0);
	pid_t pid = zt_fork(flood, &a);
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = 3;
	CHECK_EQ(zcast_executor_create(&eo, &S.ex), 0);
	if (use_signal)
		CHECK_EQ(zcast_executor_stop_on_signals(S.ex), 0);
	zcast_sub *sub[S_TOPICS];
	for (int i = 0; i < S_TOPICS; i++) {
		char name[64];
		snprintf(name, sizeof name, "/ex/s%d", i);
		CHECK_EQ(zcast_sub_open(name, NULL, &sub[i]), 0);
		pthread_mutex_init(&S.k[i].mu, NULL);
		/* One subscription asks for parallel callbacks. */
		CHECK_EQ(zcast_executor_add_sub(S.ex, sub[i], on_slow, &S.k[i],
						i == 0 ? ZCAST_EXEC_CONCURRENT : 0),
			 0);
	}
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, stopper, NULL), 0);
	CHECK_EQ(zcast_executor_spin(S.ex), 0);
	atomic_store(&S.spin_returned, 1);
	CHECK_EQ(atomic_load(&S.running), 0); /* every callback returned before spin did */
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK(atomic_load(&S.calls) >= 200);
	zt_sleep_ms(10);
	CHECK_EQ(atomic_load(&S.after_stop), 0);
	zcast_executor_destroy(S.ex);
	int held = 0;
	for (int i = 0; i < S_TOPICS; i++) {
		held += S.k[i].n;
		for (int j = 0; j < S.k[i].n; j++)
			zcast_msg_drop(S.k[i].m[j]);
		pthread_mutex_destroy(&S.k[i].mu);
		CHECK_EQ(zcast_sub_close(sub[i]), 0);
	}
	CHECK(held > 0);
	char c;
	CHECK_EQ(read(a.done[0], &c, 1), 1);
	for (int i = 0; i < S_TOPICS; i++) {
		char name[64];
		snprintf(name, sizeof name, "/ex/s%d", i);
		zcast_topic_stat st;
		CHECK_EQ(zcast_topic_stat_get(NULL, name, &st), 0);
		CHECK(st.slots_total > 0);
		CHECK_EQ(st.slots_free, st.slots_total);
	}
	CHECK_EQ(write(a.quit[1], "x", 1), 1);
	CHECK_CHILD_OK(pid);
	for (int i = 0; i < 2; i++)
		close(a.done[i]), close(a.quit[i]);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_shutdown_from_thread(void)
{
	run_shutdown(0);
}

static void test_shutdown_on_sigint(void)
{
	run_shutdown(1);
}

int main(void)
{
	zt_setup("executor", 280);
	if (raise_nofile(N_TOPICS + 200) != 0) {
		printf("skip: RLIMIT_NOFILE cannot be raised to %d (one descriptor per subscription)\n",
		       N_TOPICS + 200);
		return ZT_SKIP;
	}
	RUN(test_300_topics_pool);
	RUN(test_300_topics_single_thread);
	RUN(test_shutdown_from_thread);
	RUN(test_shutdown_on_sigint);
	return 0;
}
