/* Crash recovery without fault injection: liveness across fork, dead-member cleanup and its
 * triggers, corrupted lock words, stale segments (dead members, other layout, corruption) and
 * permissions. */
#include <grp.h>
#include <pwd.h>
#include <stddef.h>

#include "zt_seg.h"
#include "zt_skip.h"

static zcast_pub *open_pub(const char *topic, uint32_t slots, uint32_t hist)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	o.slot_count = slots;
	o.history_depth = hist;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

static zcast_sub *open_sub(const char *topic, int policy, uint32_t depth, uint32_t hist)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = policy;
	o.queue_depth = depth;
	o.history = hist;
	if (policy == ZCAST_POLICY_BALANCE_RR)
		o.group = "workers";
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

/* A late joiner of a dead publisher's topic (history 2 of 1..3) gets 2 then 3. */
static void takes_history_2_3(zcast_sub *late)
{
	for (uint64_t want = 2; want <= 3; want++) {
		zcast_msg *m;
		uint64_t seq;
		CHECK_EQ(zcast_take(late, &m), 0);
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		CHECK_EQ(seq, want);
		zcast_msg_drop(m);
	}
}

/* ---- a child that joins as subscriber, takes `hold` messages, forks a grandchild, and waits ----
 */
struct holder_arg {
	const char *topic;
	int policy, depth, hold, fork_child, ready_fd;
	pid_t *grandchild; /* shared page */
};

static int holder_main(void *a_)
{
	struct holder_arg *a = a_;
	zcast_sub *s = open_sub(a->topic, a->policy, (uint32_t)a->depth, 0);
	zt_signal(a->ready_fd);
	zcast_msg *held[64];
	for (int i = 0; i < a->hold; i++) {
		while (zcast_wait(s, 5000000000ll) != 0) {
		}
		CHECK_EQ(zcast_take(s, &held[i]), 0);
		CHECK(zt_verify(zcast_msg_data(held[i]), zcast_msg_size(held[i]), NULL, NULL));
	}
	if (a->fork_child) {
		pid_t g = fork();
		if (g == 0) { /* lives on after its parent is killed: must not keep it "alive" */
			zt_signal(a->ready_fd); /* after the atfork handlers ran */
			sleep(30);
			_exit(0);
		}
		*a->grandchild = g;
	}
	zt_signal(a->ready_fd);
	for (;;)
		pause();
}

static pid_t start_holder(struct holder_arg *a, int pfd[2])
{
	CHECK_EQ(pipe(pfd), 0);
	a->ready_fd = pfd[1];
	pid_t pid = zt_fork(holder_main, a);
	zt_await(pfd[0]);
	return pid;
}

static void kill_and_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	int st = zt_wait(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_killed_member_with_living_child_is_dead(void)
{
	pid_t *g = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(g != MAP_FAILED);
	zcast_pub *p = open_pub("/live", 8, 0);
	struct holder_arg a = {"/live", ZCAST_POLICY_FULL, 8, 3, 1, -1, g};
	int pfd[2];
	pid_t pid = start_holder(&a, pfd);
	for (uint64_t i = 0; i < 5; i++)
		zt_publish(p, i, 64);
	zt_await(pfd[0]);
	zt_await(pfd[0]);
	CHECK(!a.fork_child || (*g > 0 && kill(*g, 0) == 0)); /* the grandchild is alive */
	CHECK_EQ(zt_stat("/live").slots_published, 5);
	kill_and_reap(pid);
	/* The grandchild inherited the record's OFD lock but closed it at fork: the holder is dead
	 * (reclaimed by our death watcher, or by this gc, whichever comes first). */
	ZT_EVENTUALLY(zcast_topic_gc(NULL, "/live") >= 0 && zt_stat("/live").subscribers == 0);
	zcast_topic_stat st = zt_stat("/live");
	CHECK_EQ(st.subscribers, 0);
	CHECK_EQ(st.slots_free, st.slots_total); /* held and queued messages came back */
	CHECK_EQ(zcast_topic_gc(NULL, "/live"), 0);
	if (*g > 0)
		kill(*g, SIGKILL);
	close(pfd[0]);
	close(pfd[1]);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
	munmap(g, 4096);
}

/* A dead subscriber is not counted, and is reclaimed without anyone asking: the death watcher of a
 * process that shares the topic sees it die (full rings and empty pools still reclaim too). */
static void test_dead_subscriber_cleanup_triggers(void)
{
	int pfd[2];
	zcast_pub *p = open_pub("/trig", 4, 0);
	zcast_sub *keep = open_sub("/trig", ZCAST_POLICY_DROP_OLD, 2, 0);
	struct holder_arg a = {"/trig", ZCAST_POLICY_FULL, 8, 3, 0, -1, NULL};
	pid_t pid = start_holder(&a, pfd);
	for (uint64_t i = 0; i < 4; i++)
		zt_publish(p, i, 64);
	zt_await(pfd[0]);
	kill_and_reap(pid);
	CHECK_EQ(zt_stat("/trig").subscribers, 1); /* a dead member is not counted */
	CHECK_EQ(zt_drain(keep), 2);
	ZT_EVENTUALLY(zt_stat("/trig").slots_free == 4); /* its 3 held and 1 queued came back */
	zcast_sub_close(keep);
	close(pfd[0]);
	close(pfd[1]);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

struct dead_pub_arg {
	const char *topic;
	int ready_fd;
	uint32_t hist;
};

static int dead_pub_main(void *a_)
{
	struct dead_pub_arg *a = a_;
	zcast_pub *p = open_pub(a->topic, 8, a->hist);
	for (uint64_t i = 1; i <= 3; i++)
		zt_publish(p, i, 100);
	zcast_msg *loans[2];
	CHECK_EQ(zcast_loan(p, 64, &loans[0]), 0);
	CHECK_EQ(zcast_loan(p, 64, &loans[1]), 0);
	zt_signal(a->ready_fd);
	for (;;)
		pause();
}

static void test_dead_publisher_loans_return_and_history_stays(void)
{
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	zcast_sub *s = open_sub("/dpub", ZCAST_POLICY_FULL, 8, 0);
	struct dead_pub_arg a = {"/dpub", pfd[1], 2};
	pid_t pid = zt_fork(dead_pub_main, &a);
	zt_await(pfd[0]);
	CHECK_EQ(zt_stat("/dpub").slots_loaned, 2);
	kill_and_reap(pid);
	/* Reclaimed by our death watcher or by this gc, whichever comes first. */
	ZT_EVENTUALLY(zcast_topic_gc(NULL, "/dpub") >= 0 && zt_stat("/dpub").slots_loaned == 0);
	zcast_topic_stat st = zt_stat("/dpub");
	CHECK_EQ(st.publishers, 0);
	CHECK_EQ(st.slots_loaned, 0);
	CHECK_EQ(st.pools, 1); /* still holds published messages */
	CHECK_EQ(zt_drain(s), 3);
	/* History of the dead publisher stays valid for late joiners, oldest first. */
	zcast_sub *late = open_sub("/dpub", ZCAST_POLICY_FULL, 8, 2);
	takes_history_2_3(late);
	CHECK_NO_LEAK("/dpub");
	CHECK_EQ(zt_stat("/dpub").history_len, 2);
	zcast_sub_close(late);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);

	/* Without history: the dead publisher's pool is unlinked once its last slot is free. */
	s = open_sub("/dpub2", ZCAST_POLICY_FULL, 8, 0);
	a.topic = "/dpub2";
	a.hist = 0;
	pid = zt_fork(dead_pub_main, &a);
	zt_await(pfd[0]);
	kill_and_reap(pid);
	/* Reclaimed by our death watcher or by this gc, whichever comes first. */
	ZT_EVENTUALLY(zcast_topic_gc(NULL, "/dpub2") >= 0 && zt_stat("/dpub2").publishers == 0 &&
		      zt_stat("/dpub2").slots_loaned == 0);
	CHECK_EQ(zt_pool_count(), 1);
	zcast_msg *m[3];
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_take(s, &m[i]), 0);
	for (int i = 0; i < 3; i++)
		zcast_msg_drop(m[i]);
	CHECK_EQ(zcast_topic_gc(NULL, "/dpub2"), 0);
	CHECK_EQ(zt_pool_count(), 0);
	CHECK_EQ(zt_stat("/dpub2").pools, 0);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
	close(pfd[0]);
	close(pfd[1]);
}

/* ---- corrupted lock word: publish works (garbage or dead owner) or fails cleanly in bound ---- */
static void test_corrupted_lock_word_never_hangs(void)
{
	zcast_sub *s = open_sub("/lock", ZCAST_POLICY_DROP_OLD, 4, 0);
	zcast_pub *p = open_pub("/lock", 8, 0);
	size_t hsize;
	struct zc_topic_hdr *h = zt_map_topic("/lock", &hsize);
	uint32_t n_members = h->n_members;
	/* Owners that are garbage or have no live process: taken over at once. Pub record 1 is
	 * free. */
	uint32_t garbage[] = {0xffffffffu,
			      0x7fffffffu,
			      ZC_LOCK_WAITERS,
			      n_members + 1,
			      (n_members + 1) | ZC_LOCK_WAITERS,
			      2u,
			      2u | ZC_LOCK_WAITERS,
			      n_members /* the last tool record: free */};
	for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
		atomic_store(&h->lock.word, garbage[i]);
		int64_t t0 = zt_now_ns();
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, i, 1);
		CHECK_EQ(zcast_publish(p, m), 0);
		CHECK(zt_now_ns() - t0 < 1000000000ll);
		CHECK_EQ(ZC_LOCK_LOW(atomic_load(&h->lock.word)), 0);
	}
	CHECK(zt_drain(s) > 0);
	/* Owner = a live member that does not hold it (our subscriber, or ourselves): a clean
	 * ZCAST_ETIMEDOUT in bound, never a hang or an abort. */
	uint32_t live[] = {h->max_pubs + 1u, 1u, (h->max_pubs + 1u) | ZC_LOCK_WAITERS};
	for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
		atomic_store(&h->lock.word, live[i]);
		int64_t t0 = zt_now_ns();
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, 100 + i, 1);
		int r = zcast_publish(p, m);
		CHECK(r == 0 || r == ZCAST_ETIMEDOUT);
		CHECK(zt_now_ns() - t0 < 5000000000ll);
		if (r != 0)
			zcast_msg_drop(m);
		CHECK_EQ(zcast_topic_gc(NULL, "/lock") < 0 || 1, 1); /* bounded too */
	}
	atomic_store(&h->lock.word, 0);
	zt_publish(p, 200, 64);
	CHECK(zt_drain(s) >= 1);
	munmap(h, hsize);
	zcast_pub_close(p);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

/* ---- stale segments ---- */
struct creator_arg {
	const char *topic;
	int ready_fd;
};

static int creator_main(void *a_)
{
	struct creator_arg *a = a_;
	zcast_sub *s = open_sub(a->topic, ZCAST_POLICY_FULL, 8, 0);
	zcast_pub *p = open_pub(a->topic, 8, 2);
	for (uint64_t i = 1; i <= 3; i++)
		zt_publish(p, i, 80);
	zcast_msg *m, *loan;
	CHECK_EQ(zcast_take(s, &m), 0);
	CHECK_EQ(zcast_loan(p, 64, &loan), 0);
	zt_signal(a->ready_fd);
	for (;;)
		pause();
}

static void make_dead_topic(const char *topic)
{
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	struct creator_arg a = {topic, pfd[1]};
	pid_t pid = zt_fork(creator_main, &a);
	zt_await(pfd[0]);
	kill_and_reap(pid);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_all_dead_topic_is_repaired_and_keeps_history(void)
{
	make_dead_topic("/stale");
	CHECK_EQ(zt_stat("/stale").slots_loaned, 1);
	zcast_sub *late = open_sub("/stale", ZCAST_POLICY_FULL, 8, 2); /* runs cleanup */
	zcast_topic_stat st = zt_stat("/stale");
	CHECK_EQ(st.publishers, 0);
	CHECK_EQ(st.subscribers, 1);
	CHECK_EQ(st.last_sequence, 3);
	takes_history_2_3(late);
	CHECK_NO_LEAK("/stale");
	zcast_sub_close(late);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_other_layout_or_corrupt_segment_nobody_uses_is_rebuilt(void)
{
	for (int kind = 0; kind < 4; kind++) {
		make_dead_topic("/rebuild");
		size_t hsize;
		struct zc_topic_hdr *h = zt_map_topic("/rebuild", &hsize);
		if (kind == 0)
			h->layout_version = ZC_LAYOUT_VERSION + 7;
		else if (kind == 1)
			h->max_subs = 0;
		else if (kind == 2)
			h->off_rings += 8;
		else
			atomic_store(&h->magic, 0x1234);
		munmap(h, hsize);
		zcast_sub *s = open_sub("/rebuild", ZCAST_POLICY_FULL, 8, 0);
		zcast_topic_stat st = zt_stat("/rebuild");
		CHECK_EQ(st.last_sequence, 0); /* a fresh topic */
		CHECK_EQ(st.subscribers, 1);
		CHECK_EQ(zt_pool_count(), 0); /* the old pool went with it */
		zcast_pub *p = open_pub("/rebuild", 4, 0);
		zt_publish(p, 1, 64);
		CHECK_EQ(zt_drain(s), 1);
		zcast_pub_close(p);
		zcast_sub_close(s);
		CHECK_EQ(zt_shm_count(), 0);
	}
}

struct opener_arg {
	const char *topic;
	int expect;
	const char *needle;
};

static int opener_main(void *a_)
{
	struct opener_arg *a = a_;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_sub *s = NULL;
	int64_t t0 = zt_now_ns();
	int r = zcast_sub_open(a->topic, &o, &s);
	if (r != a->expect) {
		fprintf(stderr, "open: %d (%s), want %d\n", r, zcast_last_error(), a->expect);
		return 1;
	}
	if (a->needle && !strstr(zcast_last_error(), a->needle)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", zcast_last_error(), a->needle);
		return 1;
	}
	if (zt_now_ns() - t0 > 6000000000ll)
		return 1;
	if (s)
		zcast_sub_close(s);
	return 0;
}

static void test_segment_in_live_use_is_refused(void)
{
	zcast_sub *s = open_sub("/inuse", ZCAST_POLICY_FULL, 8, 0);
	size_t hsize;
	struct zc_topic_hdr *h = zt_map_topic("/inuse", &hsize);
	h->layout_version = ZC_LAYOUT_VERSION + 1;
	struct opener_arg a = {"/inuse", ZCAST_ELAYOUT, "layout version"};
	CHECK_CHILD_OK(zt_fork(opener_main, &a));
	h->layout_version = ZC_LAYOUT_VERSION;
	/* Corrupted geometry under a live member: refused as corrupt, never rebuilt under it. */
	uint32_t keep = h->max_depth;
	h->max_depth = 0;
	struct opener_arg b = {"/inuse", ZCAST_ECORRUPT, "topic /inuse"};
	CHECK_CHILD_OK(zt_fork(opener_main, &b));
	h->max_depth = keep;
	struct opener_arg c = {"/inuse", 0, NULL};
	CHECK_CHILD_OK(zt_fork(opener_main, &c));
	munmap(h, hsize);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

/* ---- permissions ---- */
static mode_t mode_of(const char *path)
{
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	return st.st_mode & 0777;
}

struct perm_arg {
	const char *topic;
	int expect_pub, expect_sub;
	uid_t uid;
	gid_t gid;
};

static int unprivileged_main(void *a_)
{
	struct perm_arg *a = a_;
	if (setgroups(0, NULL) != 0 || setgid(a->gid) != 0 || setuid(a->uid) != 0)
		return 77;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.topic.mode =
	    0660; /* joining a group topic says so: a 0600 opener refuses group-writable files */
	zcast_sub *s = NULL;
	int r = zcast_sub_open(a->topic, &o, &s);
	if (r != a->expect_sub) {
		fprintf(stderr, "sub_open as %d: %d (%s)\n", (int)a->uid, r, zcast_last_error());
		return 1;
	}
	if (r == ZCAST_EPERM && !strstr(zcast_last_error(), "permission denied") &&
	    !strstr(zcast_last_error(), "topic.mode"))
		return 1;
	if (s) {
		/* Group members read what the owner publishes (pool opened with the group bits). */
		while (zcast_wait(s, 5000000000ll) != 0) {
		}
		zcast_msg *m;
		if (zcast_take(s, &m) != 0 ||
		    !zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL))
			return 1;
		zcast_msg_drop(m);
		zcast_sub_close(s);
	}
	zcast_topic_stat st;
	r = zcast_topic_stat_get(NULL, a->topic, &st);
	if (r != (a->expect_sub == 0 ? 0 : ZCAST_EPERM))
		return 1;
	return 0;
}

static void test_permissions(void)
{
	char path[400], pool[400];
	zcast_pub *p = open_pub("/perm", 4, 0);
	zt_topic_path(path, sizeof path, "/perm");
	CHECK(zt_find_pool(pool, sizeof pool));
	CHECK_EQ(mode_of(path), 0600);
	CHECK_EQ(mode_of(pool), 0600);
	zcast_pub_close(p);

	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	o.slot_count = 4;
	o.topic.mode = 0660;
	CHECK_EQ(zcast_pub_open("/grp", &o, &p), 0);
	zt_topic_path(path, sizeof path, "/grp");
	CHECK(zt_find_pool(pool, sizeof pool));
	CHECK_EQ(mode_of(path), 0660);
	CHECK_EQ(mode_of(pool), 0660);

	if (geteuid() != 0) {
		zt_skip_part("test_permissions, other users", "not root: cannot run a child as another user");
		zcast_pub_close(p);
		return;
	}
	/* The other user: "nobody", or its usual ids where the passwd file has none. */
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	gid_t gid = pw ? pw->pw_gid : 65534;
	/* Other user, not in the group: EPERM with a clear message. */
	zcast_pub *q = open_pub("/private", 4, 0);
	struct perm_arg a = {"/private", 0, ZCAST_EPERM, uid, gid};
	CHECK_CHILD_OK(zt_fork(unprivileged_main, &a));
	zcast_pub_close(q);
	/* A member of the segments' group may join a mode-0660 topic. */
	CHECK_EQ(chown(path, 0, gid), 0);
	CHECK_EQ(chown(pool, 0, gid), 0);
	struct perm_arg b = {"/grp", 0, 0, uid, gid};
	pid_t pid = zt_fork(unprivileged_main, &b);
	for (int i = 0; i < 500 && zt_stat("/grp").subscribers == 0; i++)
		zt_sleep_ms(10);
	zt_publish(p, 1, 64);
	CHECK_CHILD_OK(pid);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("recovery", 120);
	RUN(test_killed_member_with_living_child_is_dead);
	RUN(test_dead_subscriber_cleanup_triggers);
	RUN(test_dead_publisher_loans_return_and_history_stays);
	RUN(test_corrupted_lock_word_never_hangs);
	RUN(test_all_dead_topic_is_repaired_and_keeps_history);
	RUN(test_other_layout_or_corrupt_segment_nobody_uses_is_rebuilt);
	RUN(test_segment_in_live_use_is_refused);
	RUN(test_permissions);
	return zt_status();
}
