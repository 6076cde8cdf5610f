/* Chaos: publishers and subscribers of every policy on three topics, one random member
 * kill -9'ed every few milliseconds and replaced, for ZCAST_CHAOS_KILLS rounds (default 200, 1000
 * with ZCAST_LONG=1). Every holder verifies each message's checksum and, just before releasing it,
 * that its (slot, generation, sequence) is unchanged and the payload still intact: a premature reuse
 * (the test build poisons slots at loan) fails the test. After every round the survivors' counters
 * must still rise; at the end, with everyone gone, no slot may be loaned or leaked and no segment
 * may remain. Reports how many kills landed inside a zcast call. */
#include "zt_seg.h"

#define SLOT 512
#define N_TOPICS 3
#define HOLD 3

enum role { PUB, SUB_FULL, SUB_DROP, SUB_RR };
enum phase { P_IDLE, P_OPEN, P_LOAN, P_PUBLISH, P_DROP_LOAN, P_WAIT, P_TAKE, P_RELEASE, P_CLOSE, P_N };
static const char *const phase_names[P_N] = {"user code", "open",    "loan",    "publish", "drop loan",
					     "wait",      "take",    "release", "close"};

static const struct {
	int topic, role;
} members[] = {
	{0, PUB},      {0, PUB},     {0, SUB_FULL}, {0, SUB_DROP}, {0, SUB_RR}, {0, SUB_RR},
	{1, PUB},      {1, SUB_FULL}, {1, SUB_DROP}, {2, PUB},     {2, SUB_RR}, {2, SUB_FULL},
};
#define N_MEMBERS ((int)(sizeof members / sizeof members[0]))

struct member_state {
	_Atomic int phase;
	_Atomic uint64_t progress; /* messages published / verified and released */
	_Atomic uint64_t errors;
	char err[200];
};

struct shared {
	struct member_state m[N_MEMBERS];
};

static struct shared *sh;
static volatile sig_atomic_t stop;
static int me;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void topic_name(char *out, size_t n, int t)
{
	snprintf(out, n, "/chaos/t%d", t);
}

static void fail_child(const char *fmt, uint64_t a, uint64_t b)
{
	struct member_state *s = &sh->m[me];
	snprintf(s->err, sizeof s->err, fmt, (unsigned long long)a, (unsigned long long)b);
	atomic_fetch_add(&s->errors, 1);
}

#define PHASE(p) atomic_store_explicit(&sh->m[me].phase, (p), memory_order_relaxed)

static void run_pub(const char *topic, uint32_t hist)
{
	uint64_t seq = 0;
	while (!stop) {
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
		for (int n = 0; n < 300 && !stop; n++) {
			zcast_msg *m;
			PHASE(P_LOAN);
			r = zcast_loan_wait(p, SLOT, 20000000, &m);
			PHASE(P_IDLE);
			if (r != 0)
				continue;
			size_t len = 32 + (size_t)(rand() % (SLOT - 32));
			CHECK_EQ(zcast_msg_resize(m, len), 0);
			zt_fill(zcast_msg_data(m), len, ++seq, zcast_pub_id(p));
			PHASE(P_PUBLISH);
			r = zcast_publish_wait(p, m, 20000000);
			PHASE(P_IDLE);
			if (r == 0) {
				atomic_fetch_add(&sh->m[me].progress, 1);
			} else {
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
	zcast_msg_info info;
};

/* The message is still what it was at take: same slot, generation, sequence, intact payload. */
static void verify_held(struct held *h)
{
	zcast_msg_info now;
	if (zcast_msg_info_get(h->m, &now) != 0 || now.slot != h->info.slot ||
	    now.generation != h->info.generation || now.sequence != h->info.sequence)
		fail_child("slot reused while held: sequence %llu became %llu", h->info.sequence,
			   now.sequence);
	if (!zt_verify(zcast_msg_data(h->m), zcast_msg_size(h->m), NULL, NULL))
		fail_child("payload of sequence %llu changed while held (slot %llu)", h->info.sequence,
			   h->info.slot);
}

static void run_sub(const char *topic, int policy)
{
	/* Per publisher id, the payload sequence must rise (FIFO per publisher in every policy). */
	while (!stop) {
		uint64_t last_pub[16] = {0}, last_seq[16] = {0}; /* per membership: history repeats */
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.policy = policy;
		o.queue_depth = policy == ZCAST_POLICY_DROP_OLD ? 2 : 8;
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
		struct held held[HOLD];
		int n_held = 0;
		uint64_t last_topic_seq = 0;
		for (int n = 0; n < 500 && !stop;) {
			PHASE(P_WAIT);
			r = zcast_wait(s, 20000000);
			PHASE(P_IDLE);
			if (r != 0)
				continue;
			zcast_msg *m;
			PHASE(P_TAKE);
			r = zcast_take(s, &m);
			PHASE(P_IDLE);
			if (r == ZCAST_EAGAIN)
				continue; /* an RR sibling or DROP_OLD overtook us */
			if (r != 0) {
				fail_child("take failed: %lld (%llu)", (uint64_t)(int64_t)r, 0);
				continue;
			}
			struct held *h = &held[n_held++];
			h->m = m;
			uint64_t seq, pub;
			if (zcast_msg_info_get(m, &h->info) != 0 ||
			    !zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub)) {
				fail_child("corrupt message at take: sequence %llu slot %llu", h->info.sequence,
					   h->info.slot);
			} else {
				if (h->info.sequence <= last_topic_seq)
					fail_child("topic sequence went back: %llu after %llu", h->info.sequence,
						   last_topic_seq);
				last_topic_seq = h->info.sequence;
				uint32_t k = (uint32_t)(pub % 16);
				if (last_pub[k] == pub && seq <= last_seq[k])
					fail_child("publisher sequence went back: %llu after %llu", seq, last_seq[k]);
				last_pub[k] = pub;
				last_seq[k] = seq;
			}
			if (n_held == HOLD) { /* release the oldest, keep the others a while */
				verify_held(&held[0]);
				PHASE(P_RELEASE);
				zcast_msg_drop(held[0].m);
				PHASE(P_IDLE);
				memmove(held, held + 1, sizeof held[0] * (HOLD - 1));
				n_held--;
			}
			atomic_fetch_add(&sh->m[me].progress, 1);
			n++;
		}
		for (int i = 0; i < n_held; i++) {
			verify_held(&held[i]);
			PHASE(P_RELEASE);
			zcast_msg_drop(held[i].m);
			PHASE(P_IDLE);
		}
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
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(0);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, on_term);
		srand(seed);
		me = i;
		char topic[32];
		topic_name(topic, sizeof topic, members[i].topic);
		switch (members[i].role) {
		case PUB:
			run_pub(topic, members[i].topic == 0 ? 2 : 0);
			break;
		case SUB_FULL:
			run_sub(topic, ZCAST_POLICY_FULL);
			break;
		case SUB_DROP:
			run_sub(topic, ZCAST_POLICY_DROP_OLD);
			break;
		default:
			run_sub(topic, ZCAST_POLICY_BALANCE_RR);
		}
		_exit(0);
	}
	zt_children[i] = pid;
	return pid;
}

static void check_errors(void)
{
	for (int i = 0; i < N_MEMBERS; i++) {
		if (atomic_load(&sh->m[i].errors)) {
			fprintf(stderr, "member %d: %s\n", i, sh->m[i].err);
			zt_fail();
		}
	}
}

/* Every member alive since `snap` was taken must make progress within 10 s. */
static void check_progress(const uint64_t *snap, int skip)
{
	int64_t deadline = zt_now_ns() + 10000000000ll;
	for (int i = 0; i < N_MEMBERS; i++) {
		if (i == skip)
			continue;
		while (atomic_load(&sh->m[i].progress) <= snap[i]) {
			if (zt_now_ns() > deadline) {
				fprintf(stderr, "member %d (topic %d role %d) made no progress in 10 s, phase %s\n",
					i, members[i].topic, members[i].role,
					phase_names[atomic_load(&sh->m[i].phase)]);
				zt_fail();
			}
			zt_sleep_ms(1);
		}
	}
}

int main(void)
{
	const char *env = getenv("ZCAST_CHAOS_KILLS");
	int kills = env ? atoi(env) : getenv("ZCAST_LONG") ? 1000 : 200;
	zt_setup("chaos", kills > 200 ? 1800 : 180);
	unsigned seed = getenv("ZCAST_SEED") ? (unsigned)atoi(getenv("ZCAST_SEED")) : (unsigned)getpid();
	srand(seed);
	printf("# seed %u, %d kills\n", seed, kills);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	/* A DROP_OLD observer per topic keeps each topic alive for the final leak check. */
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
	pid_t pids[N_MEMBERS];
	zt_n_children = N_MEMBERS;
	for (int i = 0; i < N_MEMBERS; i++)
		pids[i] = start_member(i, seed + (unsigned)i);
	uint64_t snap[N_MEMBERS] = {0};
	check_progress(snap, -1);

	int by_phase[P_N] = {0};
	int64_t t0 = zt_now_ns();
	for (int k = 0; k < kills; k++) {
		for (int i = 0; i < N_MEMBERS; i++)
			snap[i] = atomic_load(&sh->m[i].progress);
		zt_sleep_ms(1 + rand() % 4);
		int v = rand() % N_MEMBERS;
		kill(pids[v], SIGKILL);
		int st = zt_wait(pids[v]);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL); /* it was alive and not stuck in exit */
		int ph = atomic_load(&sh->m[v].phase);
		by_phase[ph >= 0 && ph < P_N ? ph : 0]++;
		check_errors();
		pids[v] = start_member(v, seed * 7919u + (unsigned)k);
		check_progress(snap, v);
	}
	double secs = (double)(zt_now_ns() - t0) / 1e9;
	check_errors();
	uint64_t total = 0;
	for (int i = 0; i < N_MEMBERS; i++)
		total += atomic_load(&sh->m[i].progress);
	/* Everyone dies at once: gc reclaims all of them, nothing stays loaned or leaks. */
	for (int i = 0; i < N_MEMBERS; i++) {
		kill(pids[i], SIGKILL);
		zt_wait(pids[i]);
	}
	check_errors();
	int pools = 0;
	for (int t = 0; t < N_TOPICS; t++) {
		char topic[32];
		topic_name(topic, sizeof topic, t);
		zt_drain(observer[t]); /* then gc unlinks the pools whose last slot this freed */
		CHECK(zcast_topic_gc(NULL, topic) >= 0);
		CHECK_NO_LEAK(topic);
		zcast_topic_stat st = zt_stat(topic);
		CHECK_EQ(st.publishers, 0);
		CHECK_EQ(st.subscribers, 1);
		if (t != 0)
			CHECK_EQ(st.pools, 0); /* no history: every pool of a dead publisher is gone */
		pools += (int)st.pools;
	}
	CHECK_EQ(zt_pool_count(), pools); /* no pool file without its record */
	for (int t = 0; t < N_TOPICS; t++)
		zcast_sub_close(observer[t]); /* the last one out removes the topic and its pools */
	CHECK_EQ(zt_shm_count(), 0);
	int inside = kills - by_phase[P_IDLE], mutating = inside - by_phase[P_WAIT];
	printf("# %d kills survived in %.1f s, %llu messages published+verified by survivors\n", kills,
	       secs, (unsigned long long)total);
	printf("# kills inside a zcast call: %d (%.0f%%), inside a call other than wait: %d (%.0f%%)\n",
	       inside, 100.0 * inside / kills, mutating, 100.0 * mutating / kills);
	printf("#");
	for (int p = 0; p < P_N; p++)
		printf(" %s=%d", phase_names[p], by_phase[p]);
	printf("\n");
	return 0;
}
