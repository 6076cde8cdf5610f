/* Chaos: publishers and subscribers of every policy on five topics, one random member
 * kill -9'ed every few milliseconds and replaced, for ZCAST_CHAOS_KILLS rounds (default 1000; 400
 * under a sanitizer; 20000 with ZCAST_LONG=1). The default count stops early after 150 s of rounds
 * (a loaded CI machine: at load 40 a round takes ~0.7 s and 1000 outlasted ctest's 300 s); an
 * explicit count always runs whole. Topics 0-2 use 20 ms timeouts; on topics 3 and 4
 * every member blocks without a timeout (zcast_loan_wait / zcast_publish_wait / zcast_wait with -1,
 * a wait set, an executor), so a wake-up that a crash, a close or a cleanup owes and never delivers
 * shows as a hang. Every holder checks each message at take and again just before releasing it
 * against the slot's shared state, read raw (tests/zt_held.h): state PUBLISHED with the handle's
 * generation, its own holder bit set, header and checksummed payload unchanged — a premature reuse
 * fails (the test build poisons slots at loan). Watchdog: after every round each member must make
 * progress within 15 s (else the test fails naming the call it is stuck in); a member that dies by
 * itself (crash, failed CHECK) fails the test at once. At the end the blocking subscribers and then
 * the blocking publisher are stopped by SIGTERM and must exit 0 within 15 s (their peers closed:
 * whatever they wait for must wake them), the others are killed together and must die by that
 * SIGKILL; with everyone gone, no slot may be loaned or leaked and no segment may remain. Reports
 * how many kills landed inside a zcast call. */
#include "zcast/executor.h"
#include "zt_dump.h"
#include "zt_held.h"

#define SLOT 512
#define N_TOPICS 5
#define HOLD 3
#define STUCK_S 15 /* a member without progress this long is hung (slow sanitizer runs included)   \
		    */

enum role { PUB, PUB_BLOCK, SUB_TIMED, SUB_BLOCK, SUB_WAITSET, SUB_EXEC, N_ROLES };
static const char *const role_names[N_ROLES] = {
    "publisher (20 ms waits)",	  "publisher (infinite waits)", "subscriber (20 ms waits)",
    "subscriber (zcast_wait -1)", "subscriber (wait set, -1)",	"subscriber (executor)"};
enum phase {
	P_IDLE,
	P_OPEN,
	P_LOAN,
	P_PUBLISH,
	P_DROP_LOAN,
	P_WAIT,
	P_TAKE,
	P_RELEASE,
	P_CLOSE,
	P_N
};
static const char *const phase_names[P_N] = {"user code", "open", "loan",    "publish", "drop loan",
					     "wait",	  "take", "release", "close"};

static const struct {
	int topic, role, policy;
} members[] = {
    {0, PUB, 0},
    {0, PUB, 0},
    {0, SUB_TIMED, ZCAST_POLICY_FULL},
    {0, SUB_TIMED, ZCAST_POLICY_DROP_OLD},
    {0, SUB_TIMED, ZCAST_POLICY_BALANCE_RR},
    {0, SUB_TIMED, ZCAST_POLICY_BALANCE_RR},
    {1, PUB, 0},
    {1, SUB_TIMED, ZCAST_POLICY_FULL},
    {1, SUB_TIMED, ZCAST_POLICY_DROP_OLD},
    {2, PUB, 0},
    {2, SUB_TIMED, ZCAST_POLICY_BALANCE_RR},
    {2, SUB_TIMED, ZCAST_POLICY_FULL},
    {3, PUB_BLOCK, 0},
    {3, SUB_BLOCK, ZCAST_POLICY_FULL},
    {3, SUB_WAITSET, ZCAST_POLICY_FULL},
    {3, SUB_EXEC, ZCAST_POLICY_FULL},
    {3, SUB_BLOCK, ZCAST_POLICY_DROP_OLD},
    /* Only one subscriber: nobody else's take wakes the publisher when this one dies or leaves. */
    {4, PUB_BLOCK, 0},
    {4, SUB_BLOCK, ZCAST_POLICY_FULL},
};
#define N_MEMBERS ((int)(sizeof members / sizeof members[0]))

struct member_state {
	_Atomic int phase;
	_Atomic uint64_t progress; /* messages published / verified and released */
	_Atomic uint64_t errors;
	char err[300];
};

struct shared {
	struct member_state m[N_MEMBERS];
	_Atomic int stop_req[N_MEMBERS]; /* set before the SIGTERM that ends a member */
};

static struct shared *sh;
static volatile sig_atomic_t stop;
static int me;
#define STOPPING() (stop || atomic_load(&sh->stop_req[me]))
static zcast_guard *volatile stop_guard; /* wakes a wait set member on SIGTERM */

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
	if (stop_guard)
		zcast_guard_trigger(stop_guard);
}

static void topic_name(char *out, size_t n, int t)
{
	snprintf(out, n, "/chaos/t%d", t);
}

/* Records the member's first failure with the library's text for it (this thread's last error: the
 * call that failed is the last zcast call before this). */
static void fail_child(const char *fmt, uint64_t a, uint64_t b)
{
	struct member_state *s = &sh->m[me];
	int n = snprintf(s->err, sizeof s->err, fmt, (unsigned long long)a, (unsigned long long)b);
	if (n >= 0 && (size_t)n < sizeof s->err)
		snprintf(s->err + n, sizeof s->err - (size_t)n, " [%s]", zcast_last_error());
	atomic_fetch_add(&s->errors, 1);
}

static void fail_child_why(const char *what, const char *why)
{
	struct member_state *s = &sh->m[me];
	snprintf(s->err, sizeof s->err, "%s: %s", what, why);
	atomic_fetch_add(&s->errors, 1);
}

#define PHASE(p) atomic_store_explicit(&sh->m[me].phase, (p), memory_order_relaxed)

static void run_pub(const char *topic, uint32_t hist, int64_t timeout_ns)
{
	uint64_t seq = 0;
	while (!STOPPING()) {
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = SLOT;
		o.slot_count = 8;
		o.history_depth = hist;
		zcast_pub *p = NULL;
		PHASE(P_OPEN);
		int r = zcast_pub_open(topic, &o, &p);
		PHASE(P_IDLE);
		if (r != 0) {
			zt_sleep_ms(1);
			continue;
		}
		for (int n = 0; n < 300 && !STOPPING(); n++) {
			zcast_msg *m;
			PHASE(P_LOAN);
			r = zcast_loan_wait(p, SLOT, timeout_ns, &m);
			PHASE(P_IDLE);
			if (r != 0) {
				if (timeout_ns < 0 || r != ZCAST_ETIMEDOUT)
					fail_child("zcast_loan_wait failed: %lld (%llu)",
						   (uint64_t)(int64_t)r, 0);
				continue;
			}
			size_t len = 32 + (size_t)(rand() % (SLOT - 32));
			CHECK_EQ(zcast_msg_resize(m, len), 0);
			zt_fill(zcast_msg_data(m), len, ++seq, zcast_pub_id(p));
			PHASE(P_PUBLISH);
			r = zcast_publish_wait(p, m, timeout_ns);
			PHASE(P_IDLE);
			if (r == 0) {
				atomic_fetch_add(&sh->m[me].progress, 1);
			} else {
				if (timeout_ns < 0 || r != ZCAST_ETIMEDOUT)
					fail_child("zcast_publish_wait failed: %lld (%llu)",
						   (uint64_t)(int64_t)r, 0);
				PHASE(P_DROP_LOAN);
				zcast_msg_drop(m);
				PHASE(P_IDLE);
			}
		}
		PHASE(P_CLOSE);
		zcast_pub_close(p);
		PHASE(P_IDLE);
	}
}

struct held {
	zcast_msg *m;
	struct zt_expect x;
};

/* One membership of a subscriber: what it holds and what it saw. */
struct sub_ctx {
	const char *topic;
	uint32_t index; /* member record: our holder bit */
	struct held held[HOLD];
	int n_held, n;
	uint64_t last_topic_seq;
	uint64_t last_pub[16], last_seq[16]; /* per membership: history repeats */
	zcast_executor *ex;
};

/* The message is still ours and intact, checked against the slot's shared state. */
static void verify_held(struct held *h)
{
	char why[200];
	if (!zt_held_ok(h->m, &h->x, why, sizeof why))
		fail_child_why("held message", why);
}

static void release_oldest(struct sub_ctx *c)
{
	verify_held(&c->held[0]);
	PHASE(P_RELEASE);
	zcast_msg_drop(c->held[0].m);
	PHASE(P_IDLE);
	memmove(c->held, c->held + 1, sizeof c->held[0] * (HOLD - 1));
	c->n_held--;
}

/* A taken message (the caller's reference passes to c): checked, ordered, held a while. Per
 * publisher id the payload sequence must rise (FIFO per publisher in every policy). */
static void on_message(struct sub_ctx *c, zcast_msg *m)
{
	struct held *h = &c->held[c->n_held++];
	zcast_msg_info info;
	uint64_t seq = 0, pub = 0;
	h->m = m;
	if (zcast_msg_info_get(m, &info) != 0 ||
	    !zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub)) {
		fail_child("corrupt message at take: size %llu (%llu)", zcast_msg_size(m), 0);
		info.sequence = 0;
	} else {
		if (info.sequence <= c->last_topic_seq)
			fail_child("topic sequence went back: %llu after %llu", info.sequence,
				   c->last_topic_seq);
		c->last_topic_seq = info.sequence;
		uint32_t k = (uint32_t)(pub % 16);
		if (c->last_pub[k] == pub && seq <= c->last_seq[k])
			fail_child("publisher sequence went back: %llu after %llu", seq,
				   c->last_seq[k]);
		c->last_pub[k] = pub;
		c->last_seq[k] = seq;
	}
	h->x = (struct zt_expect){c->index, info.sequence, seq};
	verify_held(h);	       /* at take: the slot must already be ours */
	if (c->n_held == HOLD) /* release the oldest, keep the others a while */
		release_oldest(c);
	atomic_fetch_add(&sh->m[me].progress, 1);
	c->n++;
}

/* Takes everything queued. */
static void take_all(struct sub_ctx *c, zcast_sub *s)
{
	for (;;) {
		zcast_msg *m;
		PHASE(P_TAKE);
		int r = zcast_take(s, &m);
		PHASE(P_IDLE);
		if (r == ZCAST_EAGAIN)
			return; /* drained, or an RR sibling or DROP_OLD overtook us */
		if (r != 0) {
			fail_child_why("take failed", zcast_last_error());
			return;
		}
		on_message(c, m);
	}
}

static void on_exec_message(zcast_sub *s, zcast_msg *m, void *ctx)
{
	(void)s;
	struct sub_ctx *c = ctx;
	on_message(c, zcast_msg_ref(m)); /* held past the callback */
	PHASE(P_WAIT);
	if (c->n >= 500 || STOPPING())
		zcast_executor_stop(c->ex);
}

/* Receives `c`'s share of messages the way `role` does, until 500 or stop. */
static void receive(struct sub_ctx *c, zcast_sub *s, int role)
{
	if (role == SUB_EXEC) {
		zcast_executor_opts eo;
		zcast_executor_opts_init(&eo);
		eo.threads = 2;
		CHECK_EQ(zcast_executor_create(&eo, &c->ex), 0);
		CHECK_EQ(zcast_executor_add_sub(c->ex, s, on_exec_message, c, 0), 0);
		CHECK_EQ(zcast_executor_stop_on_signals(c->ex), 0);
		if (STOPPING()) /* SIGTERM before the executor's handler was installed */
			zcast_executor_stop(c->ex);
		PHASE(P_WAIT);
		CHECK_EQ(zcast_executor_spin(c->ex), 0);
		PHASE(P_IDLE);
		zcast_executor_destroy(
		    c->ex); /* our SIGTERM handler is back; stop_req tells a SIGTERM */
		return;
	}
	zcast_waitset *ws = NULL;
	if (role == SUB_WAITSET) {
		int id;
		CHECK_EQ(zcast_waitset_create(&ws), 0);
		CHECK_EQ(zcast_waitset_add_sub(ws, s, NULL, &id), 0);
		CHECK_EQ(zcast_waitset_add_guard(ws, stop_guard, NULL, &id), 0);
	}
	while (c->n < 500 && !STOPPING()) {
		int r;
		PHASE(P_WAIT);
		if (ws) {
			zcast_ws_event ev[4];
			r = zcast_waitset_wait(ws, -1, ev, 4);
			r = r > 0 ? 0 : r;
		} else {
			r = zcast_wait(s, role == SUB_BLOCK ? -1 : 20000000);
		}
		PHASE(P_IDLE);
		if (r != 0) {
			if (role != SUB_TIMED || r != ZCAST_ETIMEDOUT)
				fail_child("an infinite wait returned %lld (%llu)",
					   (uint64_t)(int64_t)r, 0);
			continue;
		}
		take_all(c, s);
	}
	if (ws)
		zcast_waitset_destroy(ws);
}

static void run_sub(const char *topic, int policy, int role)
{
	if (role == SUB_WAITSET)
		CHECK_EQ(zcast_guard_create((zcast_guard **)&stop_guard), 0);
	while (!STOPPING()) {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.policy = policy;
		o.queue_depth = policy == ZCAST_POLICY_DROP_OLD ? (role == SUB_TIMED ? 2 : 1) : 8;
		o.group = policy == ZCAST_POLICY_BALANCE_RR ? "workers" : NULL;
		o.history = policy == ZCAST_POLICY_FULL ? 2 : 0;
		zcast_sub *s = NULL;
		PHASE(P_OPEN);
		int r = zcast_sub_open(topic, &o, &s);
		PHASE(P_IDLE);
		if (r != 0) {
			zt_sleep_ms(1);
			continue;
		}
		struct sub_ctx c = {.topic = topic};
		int index = zt_sub_index(topic, zcast_sub_id(s));
		if (index < 0)
			fail_child("own subscriber record (id %llu) not found (%llu)",
				   zcast_sub_id(s), 0);
		c.index = (uint32_t)index;
		receive(&c, s, role);
		while (c.n_held > 0)
			release_oldest(&c);
		PHASE(P_CLOSE);
		zcast_sub_close(s);
		PHASE(P_IDLE);
	}
}

static pid_t start_member(int i, unsigned seed)
{
	struct member_state *s = &sh->m[i];
	atomic_store(&s->phase, P_IDLE);
	atomic_store(&s->progress, 0);
	atomic_store(&sh->stop_req[i], 0);
	fflush(NULL);
	/* SIGTERM stays blocked until the child's handler is in place: a stop right after a restart
	 * must not kill it by the default action. */
	pid_t pid = zt_fork_on_term(on_term);
	if (pid == 0) {
		srand(seed);
		me = i;
		char topic[32];
		topic_name(topic, sizeof topic, members[i].topic);
		int role = members[i].role;
		if (role == PUB || role == PUB_BLOCK)
			run_pub(topic, members[i].topic == 0 ? 2 : 0, role == PUB ? 20000000 : -1);
		else
			run_sub(topic, members[i].policy, role);
		_exit(0);
	}
	zt_children[i] = pid;
	return pid;
}

/* Where the kill loop is, for the whole-test watchdog's message: a run that is slow everywhere
 * (an overloaded machine) reads differently from one with a few long stalls below STUCK_S. */
static volatile sig_atomic_t rounds_done, slowest_ms, slowest_member = -1;

static void check_errors(void)
{
	for (int i = 0; i < N_MEMBERS; i++) {
		if (atomic_load(&sh->m[i].errors)) {
			fprintf(stderr, "member %d (topic %d, %s): %s (after %d kill rounds)\n", i,
				members[i].topic, role_names[members[i].role], sh->m[i].err,
				(int)rounds_done);
			zt_fail();
		}
	}
}

/* No member may end by itself: a crash or a failed CHECK inside a member fails the test here. */
static void check_alive(const pid_t *pids)
{
	for (int i = 0; i < N_MEMBERS; i++) {
		int st;
		if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
			char what[80];
			zt_describe_status(what, sizeof what, st);
			check_errors();
			fprintf(stderr, "member %d (topic %d, %s) %s on its own, in %s\n", i,
				members[i].topic, role_names[members[i].role], what,
				phase_names[atomic_load(&sh->m[i].phase)]);
			zt_children[i] = 0;
			zt_fail();
		}
	}
}

/* For a hang report: the raw state of member i's topic, and where the member is stuck (its stack,
 * where gdb is installed). */
static void dump_topic_of(int i, pid_t pid)
{
	char topic[32];
	topic_name(topic, sizeof topic, members[i].topic);
	zt_dump_topic(topic);
	if (access("/usr/bin/gdb", X_OK) == 0) {
		char cmd[160];
		snprintf(cmd, sizeof cmd,
			 "timeout 30 gdb -p %d -batch -ex 'thread apply all bt' 2>/dev/null | grep "
			 "'^#' >&2",
			 (int)pid);
		fflush(NULL);
		if (system(cmd) != 0)
			fprintf(stderr, "  (no stack of member %d)\n", i);
	}
}

/* With only the observer left (and drained): nothing loaned, every published slot is history. */
static void check_no_leak(const char *topic)
{
	zcast_topic_stat st = zt_stat(topic);
	if (st.slots_loaned == 0 && st.slots_published == st.history_len &&
	    st.slots_free + st.slots_published == st.slots_total)
		return;
	fprintf(stderr,
		"%s: slots stranded with every member gone: %llu loaned, %llu published but %u in "
		"history\n",
		topic, (unsigned long long)st.slots_loaned, (unsigned long long)st.slots_published,
		st.history_len);
	zt_dump_topic(topic);
	zt_fail();
}

/* Watchdog: every member alive since `snap` was taken must make progress within STUCK_S seconds.
 * Publishers keep publishing and subscribers keep being fed, so a member stuck in a call is one
 * that a peer should have woken. */

static void put_num(char **p, long v)
{
	char d[24];
	int n = 0;
	if (v < 0) {
		*(*p)++ = '-';
		v = -v;
	}
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof d);
	while (n)
		*(*p)++ = d[--n];
}

/* SIGALRM: the same failure as the harness's watchdog, with the loop's progress (signal-safe). */
static void chaos_watchdog(int sig)
{
	(void)sig;
	char msg[200], *p = msg;
	static const char a[] = "FAIL: watchdog timeout after ", b[] = " kill rounds; slowest round ",
			  c[] = " ms (waiting for member ", d[] = ")\n";
	memcpy(p, a, sizeof a - 1), p += sizeof a - 1;
	put_num(&p, rounds_done);
	memcpy(p, b, sizeof b - 1), p += sizeof b - 1;
	put_num(&p, slowest_ms);
	memcpy(p, c, sizeof c - 1), p += sizeof c - 1;
	put_num(&p, slowest_member);
	memcpy(p, d, sizeof d - 1), p += sizeof d - 1;
	if (write(2, msg, (size_t)(p - msg)) < 0) {
	}
	zt_fail();
}

static void check_progress(const uint64_t *snap, int skip, const pid_t *pids)
{
	int64_t start = zt_now_ns();
	int64_t deadline = start + STUCK_S * 1000000000ll;
	for (int i = 0; i < N_MEMBERS; i++) {
		if (i == skip)
			continue;
		while (atomic_load(&sh->m[i].progress) <= snap[i]) {
			if (zt_now_ns() > deadline) {
				check_errors();
				fprintf(stderr,
					"member %d (topic %d, %s) made no progress in %d s, "
					"blocked in %s: a peer "
					"should have woken it\n",
					i, members[i].topic, role_names[members[i].role], STUCK_S,
					phase_names[atomic_load(&sh->m[i].phase)]);
				dump_topic_of(i, pids[i]);
				zt_fail();
			}
			zt_sleep_ms(1);
		}
		long waited = (long)((zt_now_ns() - start) / 1000000);
		if (waited > slowest_ms) {
			slowest_ms = waited;
			slowest_member = i;
		}
	}
}

/* Stops the members for which want(i) holds by SIGTERM; each must exit 0 within STUCK_S seconds. */
static void stop_members(pid_t *pids, int (*want)(int))
{
	for (int i = 0; i < N_MEMBERS; i++)
		if (pids[i] > 0 && want(i)) {
			atomic_store(&sh->stop_req[i], 1);
			kill(pids[i], SIGTERM);
		}
	int64_t deadline = zt_now_ns() + STUCK_S * 1000000000ll;
	for (int i = 0; i < N_MEMBERS; i++) {
		if (pids[i] <= 0 || !want(i))
			continue;
		int st;
		while (waitpid(pids[i], &st, WNOHANG) != pids[i]) {
			if (zt_now_ns() > deadline) {
				check_errors();
				fprintf(stderr,
					"member %d (topic %d, %s) did not exit within %d s of "
					"SIGTERM, blocked in %s: "
					"its peers closed, whatever it waits for must wake it\n",
					i, members[i].topic, role_names[members[i].role], STUCK_S,
					phase_names[atomic_load(&sh->m[i].phase)]);
				dump_topic_of(i, pids[i]);
				zt_fail();
			}
			zt_sleep_ms(1);
		}
		zt_children[i] = 0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			char what[80];
			zt_describe_status(what, sizeof what, st);
			check_errors();
			fprintf(stderr, "member %d (topic %d, %s) %s after SIGTERM\n", i,
				members[i].topic, role_names[members[i].role], what);
			zt_fail();
		}
		pids[i] = 0;
	}
}

static int is_blocking_sub(int i)
{
	return members[i].role == SUB_BLOCK || members[i].role == SUB_WAITSET ||
	       members[i].role == SUB_EXEC;
}

static int is_blocking_pub(int i)
{
	return members[i].role == PUB_BLOCK;
}

int main(void)
{
	const char *env = getenv("ZCAST_CHAOS_KILLS");
	int kills = env ? atoi(env) : getenv("ZCAST_LONG") ? 20000 : ZT_SANITIZED ? 400 : 1000;
	int64_t budget_ns = env || getenv("ZCAST_LONG") ? INT64_MAX : 150000000000ll;
	/* The hang detector is check_progress (STUCK_S per round); this alarm only bounds the whole
	 * run, so it allows for a machine loaded by other work (a CI runner, parallel builds). */
	zt_setup("chaos", kills > 1000 ? 3600 : 600);
	signal(SIGALRM, chaos_watchdog);
	unsigned seed =
	    getenv("ZCAST_SEED") ? (unsigned)atoi(getenv("ZCAST_SEED")) : (unsigned)getpid();
	srand(seed);
	printf("# seed %u, %d kills\n", seed, kills);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	/* A DROP_OLD observer per topic keeps each topic alive for the final leak check. The driver
	 * forks members all along, so it runs without the death watcher's threads (test builds): a
	 * fork while a thread of ours is inside the sanitizers' allocator would leave the child's
	 * allocator locked. The members have theirs. */
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1);
	zcast_sub *observer[N_TOPICS];
	for (int t = 0; t < N_TOPICS; t++) {
		char topic[32];
		topic_name(topic, sizeof topic, t);
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.policy = ZCAST_POLICY_DROP_OLD;
		o.queue_depth = 1;
		CHECK_EQ(zcast_sub_open(topic, &o, &observer[t]), 0);
	}
	unsetenv("ZCAST_NO_DEATH_WATCH");
	pid_t pids[N_MEMBERS];
	zt_n_children = N_MEMBERS;
	for (int i = 0; i < N_MEMBERS; i++)
		pids[i] = start_member(i, seed + (unsigned)i);
	uint64_t snap[N_MEMBERS] = {0};
	check_progress(snap, -1, pids);

	int by_phase[P_N] = {0};
	int64_t t0 = zt_now_ns();
	for (int k = 0; k < kills; k++) {
		for (int i = 0; i < N_MEMBERS; i++)
			snap[i] = atomic_load(&sh->m[i].progress);
		zt_sleep_ms(1 + rand() % 4);
		check_alive(pids);
		int v = rand() % N_MEMBERS;
		kill(pids[v], SIGKILL);
		int st = zt_wait(pids[v]);
		CHECK(WIFSIGNALED(st) &&
		      WTERMSIG(st) == SIGKILL); /* it was alive and not stuck in exit */
		int ph = atomic_load(&sh->m[v].phase);
		by_phase[ph >= 0 && ph < P_N ? ph : 0]++;
		check_errors();
		pids[v] = start_member(v, seed * 7919u + (unsigned)k);
		check_progress(snap, v, pids);
		rounds_done = k + 1;
		if (zt_now_ns() - t0 > budget_ns && k + 1 < kills) {
			printf("# time budget: stopped after %d of %d kills (a loaded machine)\n", k + 1,
			       kills);
			kills = k + 1;
		}
	}
	double secs = (double)(zt_now_ns() - t0) / 1e9;
	check_alive(pids);
	check_errors();
	uint64_t total = 0;
	for (int i = 0; i < N_MEMBERS; i++)
		total += atomic_load(&sh->m[i].progress);
	/* The blocking subscribers, then the blocking publisher, leave by SIGTERM: each must be
	 * woken (by the next publish, its guard, the executor's stop, room left by the closed
	 * subscribers). */
	stop_members(pids, is_blocking_sub);
	stop_members(pids, is_blocking_pub);
	check_errors();
	/* Everyone else dies at once, by this SIGKILL and nothing earlier: gc reclaims them all,
	 * nothing stays loaned or leaks. */
	for (int i = 0; i < N_MEMBERS; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < N_MEMBERS; i++) {
		if (pids[i] <= 0)
			continue;
		int st = zt_wait(pids[i]);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
			char what[80];
			zt_describe_status(what, sizeof what, st);
			fprintf(stderr, "member %d (topic %d, %s) %s before the final SIGKILL\n", i,
				members[i].topic, role_names[members[i].role], what);
			zt_fail();
		}
	}
	check_errors();
	int pools = 0;
	for (int t = 0; t < N_TOPICS; t++) {
		char topic[32];
		topic_name(topic, sizeof topic, t);
		zt_drain(observer[t]); /* then gc unlinks the pools whose last slot this freed */
		CHECK(zcast_topic_gc(NULL, topic) >= 0);
		check_no_leak(topic);
		zcast_topic_stat st = zt_stat(topic);
		CHECK_EQ(st.publishers, 0);
		CHECK_EQ(st.subscribers, 1);
		if (t != 0)
			CHECK_EQ(st.pools,
				 0); /* no history: every pool of a dead publisher is gone */
		pools += (int)st.pools;
	}
	CHECK_EQ(zt_pool_count(), pools); /* no pool file without its record */
	for (int t = 0; t < N_TOPICS; t++)
		zcast_sub_close(observer[t]); /* the last one out removes the topic and its pools */
	CHECK_EQ(zt_shm_count(), 0);
	int inside = kills - by_phase[P_IDLE], mutating = inside - by_phase[P_WAIT];
	printf("# %d kills survived in %.1f s, %llu messages published+verified by survivors\n",
	       kills, secs, (unsigned long long)total);
	printf("# slowest round: %d ms waiting for member %d\n", (int)slowest_ms, (int)slowest_member);
	printf("# kills inside a zcast call: %d (%.0f%%), inside a call other than wait: %d "
	       "(%.0f%%)\n",
	       inside, 100.0 * inside / kills, mutating, 100.0 * mutating / kills);
	printf("#");
	for (int p = 0; p < P_N; p++)
		printf(" %s=%d", phase_names[p], by_phase[p]);
	printf("\n");
	return 0;
}
