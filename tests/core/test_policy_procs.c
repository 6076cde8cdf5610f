/* Delivery policies across processes (fork): the overload scene of LibXR's benchmark (FULL and
 * DROP_OLD, 64 KiB and 1 MiB), a BALANCE_RR worker group of 3 processes, and a mixed topic with
 * two broadcast subscribers and a worker group at once. Properties are asserted, never timings;
 * every wait is bounded. Counter semantics: see test_policy_single.c and docs/POLICIES.md. */
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>

#include "harness.h"


/* ---- shared state between the test process and its children ---- */

#define MAX_SEQ 40000u
#define MAX_SUBS 8

struct result {
	uint64_t received, last, delivered, dropped, rejected, queued;
};

struct shared {
	_Atomic int ready, done, finished, checked;
	_Atomic uint64_t dropped_seen; /* the overload subscriber's dropped counter, live */
	_Atomic int attempts;          /* the overload publisher's publish attempts (capped), live */
	struct result res[MAX_SUBS];
	_Atomic uint8_t count[MAX_SEQ + 2]; /* how often each sequence was received (RR groups) */
};

static struct shared *shared_new(void)
{
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				 -1, 0);
	CHECK(sh != MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	return sh;
}

/* Bounded spin-sleep until *v >= want. Returns 0 or -1 on timeout. */
static int await(_Atomic int *v, int want, int64_t timeout_ns)
{
	int64_t until = zt_now_ns() + timeout_ns;
	while (atomic_load(v) < want) {
		if (zt_now_ns() > until)
			return -1;
		zt_sleep_ms(1);
	}
	return 0;
}

/* The test process waits for its subscriber children to finish; a child that exits early fails the
 * test at once with its exit status (see subscriber() for the codes). */
static void await_finished(struct shared *sh, int n, const pid_t *pids)
{
	int64_t until = zt_now_ns() + 30000000000ll;
	while (atomic_load(&sh->finished) < n) {
		for (int i = 0; i < n; i++) {
			int st;
			if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				fprintf(stderr, "subscriber child %d exited early (status 0x%x)\n", i, st);
				zt_fail();
			}
		}
		CHECK(zt_now_ns() < until);
		zt_sleep_ms(1);
	}
}

struct job {
	struct shared *sh;
	int idx;
	const char *topic;
	int policy;
	const char *group;
	uint32_t depth;
	int sleep_us;        /* after each message */
	int strict;          /* sequences must be consecutive from 1 (FULL) vs strictly increasing */
	size_t marker_size;  /* > 0: the stream ends with a message of this size; else at sh->done */
	int count;           /* record each sequence in sh->count (RR groups) */
	int spin;            /* poll without sleeping: races the producer's drops hardest */
	int wait_full;       /* take nothing before the publisher finished depth + 1 attempts: the
			      * queue surely overflowed once (a refusal / a drop), however fast either side */
};

static void sleep_us(int us)
{
	struct timespec ts = {0, us * 1000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* A subscriber process: receives until the stream ends, checking every payload, then reports its
 * counters, says it has finished and waits for the test to check the pool before it closes. */
static int subscriber(void *arg)
{
	struct job *j = arg;
	struct shared *sh = j->sh;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = j->policy;
	o.group = j->group;
	o.queue_depth = j->depth;
	zcast_sub *s;
	if (zcast_sub_open(j->topic, &o, &s) != 0)
		return 10;
	atomic_fetch_add(&sh->ready, 1);
	if (j->wait_full && await(&sh->attempts, (int)j->depth + 1, 30000000000ll) != 0)
		return 20;
	uint64_t last = 0, received = 0;
	int64_t until = zt_now_ns() + 45000000000ll;
	for (bool end = false; !end;) {
		int done = atomic_load(&sh->done);
		zcast_msg *m;
		int r;
		while (!end && (r = zcast_take(s, &m)) == 0) {
			int q = zcast_sub_queued(s);
			if (q < 0 || q > (int)j->depth) {
				fprintf(stderr, "zcast_sub_queued: %d (%s)\n", q, zcast_last_error());
				return 19; /* never a false "corrupt" while a drop races us */
			}
			uint64_t seq;
			size_t size = zcast_msg_size(m);
			if (!zt_verify(zcast_msg_data(m), size, &seq, NULL))
				return 11; /* a reused or torn slot */
			zcast_msg_info info;
			if (zcast_msg_info_get(m, &info) != 0 || info.sequence != seq)
				return 12;
			if (j->strict ? seq != last + 1 : seq <= last)
				return 13; /* FULL: no gap; any policy: in order, no duplicate */
			last = seq;
			received++;
			if (j->count && seq <= MAX_SEQ)
				atomic_fetch_add(&sh->count[seq], 1);
			zcast_msg_drop(m);
			zcast_sub_stat st;
			zcast_sub_stat_get(s, &st);
			atomic_store(&sh->dropped_seen, st.dropped);
			if (j->marker_size && size == j->marker_size)
				end = true;
			else if (j->sleep_us)
				sleep_us(j->sleep_us);
		}
		if (!end && r != ZCAST_EAGAIN) {
			fprintf(stderr, "zcast_take: %d (%s)\n", r, zcast_last_error());
			return 14;
		}
		if (end || (!j->marker_size && done))
			break; /* done was set after the last publish returned: all of ours was queued */
		if (j->spin) {
			int q = zcast_sub_queued(s);
			if (q < 0 || q > (int)j->depth) {
				fprintf(stderr, "zcast_sub_queued: %d (%s)\n", q, zcast_last_error());
				return 19;
			}
			if (zt_now_ns() > until)
				return 16;
			continue;
		}
		r = zcast_wait(s, 50000000);
		if (r != 0 && r != ZCAST_ETIMEDOUT)
			return 15;
		if (zt_now_ns() > until)
			return 16;
	}
	zcast_sub_stat st;
	zcast_sub_stat_get(s, &st);
	sh->res[j->idx] = (struct result){received, last, st.delivered, st.dropped, st.rejected, st.queued};
	if (st.held != 0)
		return 17;
	atomic_fetch_add(&sh->finished, 1);
	if (await(&sh->checked, 1, 30000000000ll) != 0)
		return 18;
	zcast_sub_close(s);
	return 0;
}

static zcast_topic_stat pu_tstat(const char *topic)
{
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, topic, &st), 0);
	return st;
}

/* ---- the overload scene ---- */

struct overload {
	uint64_t ok, fail, noslot, marker_fail;
};

static struct overload overload_publish(const char *topic, struct shared *sh, pid_t pid, int policy,
					size_t size, uint32_t depth, uint64_t min_attempts)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = size;
	o.slot_count = 2 * depth + 2; /* > queue + held + own loan: loans do not fail */
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	CHECK_EQ(await(&sh->ready, 1, 10000000000ll), 0);
	struct overload ov = {0, 0, 0, 0};
	int64_t until = zt_now_ns() + 30000000000ll;
	for (uint64_t attempts = 0;; attempts++) {
		bool enough = attempts >= min_attempts &&
			      (policy == ZCAST_POLICY_FULL ? ov.fail > 0 && ov.ok > 0
			       : size > (1u << 16)   ? true
						     : atomic_load(&sh->dropped_seen) > 0);
		if (enough)
			break;
		CHECK(zt_now_ns() < until); /* the property never showed up: fail, do not hang */
		zcast_msg *m;
		int r = zcast_loan(p, size, &m);
		if (r == ZCAST_ENOSLOT) {
			ov.noslot++;
			sched_yield();
			continue;
		}
		CHECK_EQ(r, 0);
		zt_fill(zcast_msg_data(m), size, ov.ok + 1, 0);
		r = zcast_publish(p, m); /* no retry: a refused message is counted and dropped */
		if (r == 0) {
			ov.ok++;
		} else {
			CHECK_EQ(r, ZCAST_EAGAIN);
			CHECK(policy == ZCAST_POLICY_FULL);
			ov.fail++;
			zcast_msg_drop(m);
		}
		/* finished attempts: the subscriber starts after depth + 1 of them, one of which had to fail */
		atomic_store(&sh->attempts, attempts < 1000 ? (int)attempts + 1 : 1000);
	}
	/* The end marker: a small message, retried until it is accepted (retries counted). */
	zcast_msg *m;
	CHECK_EQ(zcast_loan_wait(p, 64, 10000000000ll, &m), 0);
	zt_fill(zcast_msg_data(m), 64, ov.ok + 1, 0);
	int r;
	while ((r = zcast_publish(p, m)) == ZCAST_EAGAIN) {
		ov.marker_fail++;
		CHECK(zt_now_ns() < until);
		sleep_us(100);
	}
	CHECK_EQ(r, 0);
	await_finished(sh, 1, &pid);
	/* Everything was taken and released: every slot is back before the last member leaves. */
	zcast_topic_stat ts = pu_tstat(topic);
	CHECK_EQ(ts.slots_free, ts.slots_total);
	CHECK_EQ(ts.slots_total, 2 * depth + 2);
	atomic_store(&sh->checked, 1);
	zcast_pub_close(p);
	return ov;
}

static void overload_case(int policy, size_t size, uint32_t depth, uint64_t min_attempts)
{
	struct shared *sh = shared_new();
	const char *topic = "/overload";
	struct job j = {sh, 0, topic, policy, NULL, depth, 50, policy == ZCAST_POLICY_FULL, 64, 0, 0, 1};
	pid_t pid = zt_fork(subscriber, &j);
	struct overload ov = overload_publish(topic, sh, pid, policy, size, depth, min_attempts);
	CHECK_CHILD_OK(pid);
	struct result *res = &sh->res[0];
	printf("  %s %zu KiB queue %u: %llu published, %llu refused, %llu marker retries, %llu no-slot; "
	       "subscriber received %llu, dropped %llu\n",
	       policy == ZCAST_POLICY_FULL ? "FULL" : "DROP_OLD", size >> 10, depth,
	       (unsigned long long)ov.ok, (unsigned long long)ov.fail, (unsigned long long)ov.marker_fail,
	       (unsigned long long)ov.noslot, (unsigned long long)res->received,
	       (unsigned long long)res->dropped);
	uint64_t total = ov.ok + 1; /* with the marker */
	CHECK_EQ(res->delivered, total);
	CHECK_EQ(res->last, total); /* the stream ends with the last message */
	CHECK_EQ(res->queued, 0);
	if (policy == ZCAST_POLICY_FULL) {
		/* Every accepted publish was delivered, in order, without gap (checked in the child);
		 * every refusal is counted; nothing else is lost. */
		CHECK(ov.ok >= 1);
		CHECK(ov.fail >= 1);
		CHECK_EQ(res->received, total);
		CHECK_EQ(res->dropped, 0);
		CHECK_EQ(res->rejected, ov.fail + ov.marker_fail);
	} else {
		/* Every publish succeeded; the subscriber saw an increasing subsequence ending with
		 * the last message; what it did not see was dropped, and counted. */
		CHECK_EQ(ov.fail + ov.marker_fail, 0);
		CHECK_EQ(res->rejected, 0);
		CHECK_EQ(res->received + res->dropped, total);
		if (size <= (1u << 16))
			CHECK(res->dropped > 0);
	}
	CHECK_EQ(zt_shm_count(), 0);
	munmap(sh, sizeof *sh);
}

static void test_overload_full_64k(void)
{
	overload_case(ZCAST_POLICY_FULL, 64 << 10, 8, 2000);
}
static void test_overload_drop_old_64k(void)
{
	overload_case(ZCAST_POLICY_DROP_OLD, 64 << 10, 8, 2000);
}
static void test_overload_full_1m(void)
{
	overload_case(ZCAST_POLICY_FULL, 1 << 20, 4, 200);
}
static void test_overload_drop_old_1m(void)
{
	overload_case(ZCAST_POLICY_DROP_OLD, 1 << 20, 4, 200);
}

/* ---- publishing every message exactly once, retrying refusals (counted) ---- */

static uint64_t publish_all(zcast_pub *p, uint64_t n, size_t size)
{
	uint64_t refused = 0;
	int64_t until = zt_now_ns() + 40000000000ll;
	for (uint64_t seq = 1; seq <= n; seq++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, size, 10000000000ll, &m), 0);
		zt_fill(zcast_msg_data(m), size, seq, 0);
		int r;
		while ((r = zcast_publish(p, m)) == ZCAST_EAGAIN) {
			refused++;
			CHECK(zt_now_ns() < until);
			sched_yield();
		}
		CHECK_EQ(r, 0);
	}
	return refused;
}

/* ---- BALANCE_RR: 3 worker processes share 30 000 messages ---- */

static void test_rr_three_workers(void)
{
	const uint64_t N = 30000;
	struct shared *sh = shared_new();
	struct job j[3];
	pid_t pid[3];
	for (int i = 0; i < 3; i++) {
		j[i] = (struct job){sh, i, "/rrwork", ZCAST_POLICY_BALANCE_RR, "workers", 16, 0, 0, 0, 1, 0, 0};
		pid[i] = zt_fork(subscriber, &j[i]);
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 64;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/rrwork", &o, &p), 0);
	CHECK_EQ(await(&sh->ready, 3, 10000000000ll), 0);
	uint64_t refused = publish_all(p, N, 64);
	atomic_store(&sh->done, 1);
	await_finished(sh, 3, pid);
	zcast_topic_stat ts = pu_tstat("/rrwork");
	CHECK_EQ(ts.slots_free, ts.slots_total);
	CHECK_EQ(ts.subscribers, 3);
	atomic_store(&sh->checked, 1);
	for (int i = 0; i < 3; i++)
		CHECK_CHILD_OK(pid[i]);
	zcast_pub_close(p);
	uint64_t sum = 0;
	for (int i = 0; i < 3; i++) {
		struct result *r = &sh->res[i];
		printf("  worker %d: %llu messages, %llu rejected\n", i, (unsigned long long)r->received,
		       (unsigned long long)r->rejected);
		CHECK(r->received > 0); /* everyone works */
		CHECK_EQ(r->delivered, r->received);
		CHECK_EQ(r->dropped, 0);
		CHECK_EQ(r->rejected, refused); /* a refusal means every member was full */
		sum += r->delivered;
	}
	CHECK_EQ(sum, N);
	for (uint64_t q = 1; q <= N; q++)
		if (atomic_load(&sh->count[q]) != 1) {
			fprintf(stderr, "sequence %llu received %d times\n", (unsigned long long)q,
				(int)atomic_load(&sh->count[q]));
			zt_fail();
		}
	CHECK_EQ(zt_shm_count(), 0);
	munmap(sh, sizeof *sh);
}

/* ---- DROP_OLD under a racing consumer: the head CAS gives each message to exactly one side ---- */

static void test_drop_old_take_or_drop_never_both(void)
{
	const uint64_t N = 100000;
	struct shared *sh = shared_new();
	struct job j[2] = {
		{sh, 0, "/dropr", ZCAST_POLICY_DROP_OLD, NULL, 1, 0, 0, 0, 0, 1, 0},
		{sh, 1, "/dropr", ZCAST_POLICY_DROP_OLD, NULL, 3, 0, 0, 0, 0, 1, 0},
	};
	pid_t pid[2];
	for (int i = 0; i < 2; i++)
		pid[i] = zt_fork(subscriber, &j[i]);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	o.slot_count = 12;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/dropr", &o, &p), 0);
	CHECK_EQ(await(&sh->ready, 2, 10000000000ll), 0);
	CHECK_EQ(publish_all(p, N, 256), 0); /* DROP_OLD never refuses */
	atomic_store(&sh->done, 1);
	await_finished(sh, 2, pid);
	zcast_topic_stat ts = pu_tstat("/dropr");
	CHECK_EQ(ts.slots_free, ts.slots_total);
	atomic_store(&sh->checked, 1);
	for (int i = 0; i < 2; i++)
		CHECK_CHILD_OK(pid[i]);
	zcast_pub_close(p);
	for (int i = 0; i < 2; i++) {
		struct result *r = &sh->res[i];
		printf("  depth %u: received %llu, dropped %llu\n", j[i].depth,
		       (unsigned long long)r->received, (unsigned long long)r->dropped);
		CHECK_EQ(r->delivered, N);
		CHECK_EQ(r->received + r->dropped, N); /* taken or dropped: never both, never neither */
		CHECK_EQ(r->last, N);
		CHECK_EQ(r->rejected, 0);
	}
	CHECK_EQ(zt_shm_count(), 0);
	munmap(sh, sizeof *sh);
}

/* ---- a mixed topic: FULL + DROP_OLD broadcast and a group of 3, all invariants at once ---- */

static void test_mixed_topic(void)
{
	const uint64_t N = 6000;
	struct shared *sh = shared_new();
	struct job j[5] = {
		{sh, 0, "/mixed", ZCAST_POLICY_FULL, NULL, 8, 0, 1, 0, 0, 0, 0},
		{sh, 1, "/mixed", ZCAST_POLICY_DROP_OLD, NULL, 4, 50, 0, 0, 0, 0, 0},
		{sh, 2, "/mixed", ZCAST_POLICY_BALANCE_RR, "grp", 4, 0, 0, 0, 1, 0, 0},
		{sh, 3, "/mixed", ZCAST_POLICY_BALANCE_RR, "grp", 4, 20, 0, 0, 1, 0, 0},
		{sh, 4, "/mixed", ZCAST_POLICY_BALANCE_RR, "grp", 4, 0, 0, 0, 1, 0, 0},
	};
	pid_t pid[5];
	for (int i = 0; i < 5; i++)
		pid[i] = zt_fork(subscriber, &j[i]);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 4096;
	o.slot_count = 48;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/mixed", &o, &p), 0);
	CHECK_EQ(await(&sh->ready, 5, 10000000000ll), 0);
	uint64_t refused = publish_all(p, N, 4096);
	atomic_store(&sh->done, 1);
	await_finished(sh, 5, pid);
	zcast_topic_stat ts = pu_tstat("/mixed");
	CHECK_EQ(ts.slots_free, ts.slots_total);
	atomic_store(&sh->checked, 1);
	for (int i = 0; i < 5; i++)
		CHECK_CHILD_OK(pid[i]);
	zcast_pub_close(p);
	struct result *full = &sh->res[0], *drop = &sh->res[1], *g = &sh->res[2];
	printf("  %llu refusals; FULL rejected %llu; DROP_OLD received %llu dropped %llu; group "
	       "%llu/%llu/%llu, rejected %llu\n",
	       (unsigned long long)refused, (unsigned long long)full->rejected,
	       (unsigned long long)drop->received, (unsigned long long)drop->dropped,
	       (unsigned long long)g[0].received, (unsigned long long)g[1].received,
	       (unsigned long long)g[2].received, (unsigned long long)g[0].rejected);
	/* FULL broadcast: all N, consecutive (checked in the child). */
	CHECK_EQ(full->received, N);
	CHECK_EQ(full->delivered, N);
	CHECK_EQ(full->dropped, 0);
	/* DROP_OLD broadcast: never refuses, ends with N, the rest dropped and counted. */
	CHECK_EQ(drop->last, N);
	CHECK_EQ(drop->delivered, N);
	CHECK_EQ(drop->received + drop->dropped, N);
	CHECK_EQ(drop->rejected, 0);
	/* The group: each message exactly once, shared by all members. */
	uint64_t sum = 0;
	for (int i = 0; i < 3; i++) {
		CHECK(g[i].received > 0);
		CHECK_EQ(g[i].delivered, g[i].received);
		CHECK_EQ(g[i].dropped, 0);
		CHECK_EQ(g[i].rejected, g[0].rejected); /* all members count a group refusal */
		sum += g[i].delivered;
	}
	CHECK_EQ(sum, N);
	for (uint64_t q = 1; q <= N; q++)
		CHECK_EQ(atomic_load(&sh->count[q]), 1);
	/* Each refusal was caused by the FULL subscriber, the group, or both. */
	uint64_t rf = full->rejected, rg = g[0].rejected;
	CHECK(refused >= (rf > rg ? rf : rg));
	CHECK(refused <= rf + rg);
	CHECK_EQ(zt_shm_count(), 0);
	munmap(sh, sizeof *sh);
}

int main(void)
{
	zt_setup("polprocs", 120);
	RUN(test_overload_full_64k);
	RUN(test_overload_drop_old_64k);
	RUN(test_overload_full_1m);
	RUN(test_overload_drop_old_1m);
	RUN(test_drop_old_take_or_drop_never_both);
	RUN(test_rr_three_workers);
	RUN(test_mixed_topic);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
