/* Transient Local history: late joiners get the last N messages in publication order, before
 * anything newer, without duplicates or gaps; history outlives its publisher (closed or killed)
 * while the topic exists, and a retained topic keeps it until zcast_topic_remove.
 *
 * Slot accounting with history: the window holds exactly min(D, published) slots (its history
 * bit), so before the last member closes slots_published == history_len + queued + held, and once
 * the topic is gone no segment of the domain remains. */
#include <poll.h>
#include <stdatomic.h>

#include "harness.h"

#include "policy_helpers.h"

static void take_expect(zcast_sub *s, uint64_t from, uint64_t to)
{
	for (uint64_t want = from; want <= to; want++)
		CHECK_EQ(pu_take(s), want);
	CHECK_EQ(pu_take(s), 0);
}

static void publish_range(zcast_pub *p, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i <= to; i++)
		CHECK_EQ(pu_publish(p, i, 100), 0);
}

/* Waits (bounded) for one byte on a pipe from a child. */
static void wait_byte(int fd)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	CHECK_EQ(poll(&pfd, 1, 10000), 1);
	char c;
	CHECK_EQ(read(fd, &c, 1), 1);
}

static void test_late_joiner_gets_last_n_then_live(void)
{
	zcast_pub *p = pu_pub("/hist", 128, 16, 5);
	publish_range(p, 1, 20);
	zcast_topic_stat ts = pu_tstat("/hist");
	CHECK_EQ(ts.history_len, 5);
	CHECK_EQ(ts.slots_published, 5); /* exactly the window is kept */
	zcast_sub *s3 = pu_sub("/hist", ZCAST_POLICY_FULL, NULL, 8, 3);
	CHECK_EQ(pu_stat(s3).delivered, 3);
	CHECK_EQ(zcast_sub_queued(s3), 3);
	zcast_sub *s10 = pu_sub("/hist", ZCAST_POLICY_FULL, NULL, 16, 10); /* capped by depth 5 */
	zcast_sub *s0 = pu_sub("/hist", ZCAST_POLICY_FULL, NULL, 8, 0);
	publish_range(p, 21, 22);
	take_expect(s3, 18, 22);
	take_expect(s10, 16, 22);
	take_expect(s0, 21, 22);
	zcast_sub_stat st = pu_stat(s10);
	CHECK_EQ(st.delivered, 7);
	CHECK_EQ(st.dropped + st.rejected, 0);
	/* A history request larger than the queue is refused, naming both numbers. */
	for (int policy = ZCAST_POLICY_FULL; policy <= ZCAST_POLICY_DROP_OLD; policy++) {
		zcast_sub_opts so;
		zcast_sub_opts_init(&so);
		so.policy = policy;
		so.queue_depth = 2;
		so.history = 5;
		zcast_sub *small = NULL;
		CHECK_EQ(zcast_sub_open("/hist", &so, &small), ZCAST_EINVAL);
		CHECK(small == NULL);
		CHECK(strstr(zcast_last_error(), "history 5 exceeds queue_depth 2") != NULL);
	}
	/* At the queue's depth it all arrives, oldest first. */
	zcast_sub *d = pu_sub("/hist", ZCAST_POLICY_DROP_OLD, NULL, 4, 4);
	take_expect(d, 19, 22);
	zcast_sub_close(d);
	/* Asking for more than the topic's capacity is refused. */
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.history = 65;
	o.queue_depth = 65;
	zcast_sub *x;
	CHECK_EQ(zcast_sub_open("/hist", &o, &x), ZCAST_ELIMIT);
	ts = pu_tstat("/hist");
	CHECK_EQ(ts.slots_published, 5);
	zcast_sub_close(s3);
	zcast_sub_close(s10);
	zcast_sub_close(s0);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Depth equal to the topic's history capacity: the window is a full ring. */
static void test_depth_equal_to_capacity(void)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 128;
	o.slot_count = 8;
	o.history_depth = 5;
	o.topic.history_capacity = 5;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/histcap", &o, &p), 0);
	publish_range(p, 1, 20);
	zcast_topic_stat ts = pu_tstat("/histcap");
	CHECK_EQ(ts.history_len, 5);
	CHECK_EQ(ts.slots_published, 5);
	zcast_sub *s = pu_sub("/histcap", ZCAST_POLICY_DROP_OLD, NULL, 2, 2);
	take_expect(s, 19, 20);
	publish_range(p, 21, 40);
	/* s's two queued messages are the newest two of the window: still 5 slots. */
	CHECK_EQ(pu_tstat("/histcap").slots_published, 5);
	CHECK_EQ(pu_stat(s).dropped, 18);
	take_expect(s, 39, 40);
	zcast_sub_close(s);
	CHECK_EQ(pu_tstat("/histcap").slots_published, 5);
	zcast_sub *s2 = pu_sub("/histcap", ZCAST_POLICY_FULL, NULL, 8, 5);
	take_expect(s2, 36, 40);
	zcast_sub_close(s2);
	zcast_pub_close(p);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Two publishers: D is the larger depth, sequence numbers are per topic, order is publication order
 * across both pools. */
static void test_history_across_publishers(void)
{
	zcast_pub *a = pu_pub("/hist2", 128, 8, 2), *b = pu_pub("/hist2", 256, 8, 5);
	for (uint64_t i = 1; i <= 12; i++)
		CHECK_EQ(pu_publish(i % 3 ? a : b, i, 100), 0);
	CHECK_EQ(pu_tstat("/hist2").history_len, 5);
	zcast_pub_close(b); /* its messages in the window stay */
	zcast_sub *s = pu_sub("/hist2", ZCAST_POLICY_FULL, NULL, 8, 5);
	take_expect(s, 8, 12);
	CHECK_EQ(pu_publish(a, 13, 100), 0);
	take_expect(s, 13, 13);
	zcast_sub_close(s);
	zcast_pub_close(a);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Joins while a publisher runs: history, then live, contiguous; the joint is where the join ran. */
struct runner {
	_Atomic int stop;
	_Atomic uint64_t published;
};

static int run_publisher(void *arg)
{
	struct runner *r = arg;
	zcast_pub *p = pu_pub("/histlive", 256, 64, 5);
	uint64_t seq = 1;
	while (!atomic_load(&r->stop)) {
		zcast_msg *m;
		int rc = zcast_loan_wait(p, 200, 2000000000, &m);
		if (rc != 0)
			return 2;
		zt_fill(zcast_msg_data(m), 200, seq, 0);
		/* Subscribers are FULL: wait for room, the stream must have no gap. */
		while ((rc = zcast_publish_wait(p, m, 100000000)) == ZCAST_ETIMEDOUT && !atomic_load(&r->stop)) {
		}
		if (rc != 0) {
			zcast_msg_drop(m);
			break;
		}
		atomic_store(&r->published, seq++);
	}
	zcast_pub_close(p);
	return 0;
}

static void test_join_during_traffic_is_seamless(void)
{
	struct runner *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(r != MAP_FAILED);
	atomic_init(&r->stop, 0);
	atomic_init(&r->published, 0);
	/* A keeper keeps the topic alive between joiners. */
	zcast_sub *keeper = pu_sub("/histlive", ZCAST_POLICY_DROP_OLD, NULL, 1, 0);
	pid_t pid = zt_fork(run_publisher, r);
	int64_t until = zt_now_ns() + 10000000000ll;
	while (atomic_load(&r->published) < 50)
		CHECK(zt_now_ns() < until);
	for (int j = 0; j < 20; j++) {
		uint64_t before = pu_tstat("/histlive").last_sequence;
		zcast_sub *s = pu_sub("/histlive", ZCAST_POLICY_FULL, NULL, 32, 5);
		uint64_t after = pu_tstat("/histlive").last_sequence;
		uint64_t first = 0, last = 0;
		for (int k = 0; k < 100; k++) {
			CHECK_EQ(zcast_wait(s, 5000000000ll), 0);
			uint64_t q = pu_take(s);
			CHECK(q != 0);
			if (!first)
				first = q;
			else
				CHECK_EQ(q, last + 1); /* no gap, no duplicate, in order */
			last = q;
		}
		/* The 5 history messages end at the sequence current when the join ran. */
		CHECK(first + 4 >= before);
		CHECK(first + 4 <= after);
		zcast_sub_close(s);
	}
	atomic_store(&r->stop, 1);
	CHECK_CHILD_OK(pid);
	zcast_topic_stat ts = pu_tstat("/histlive");
	CHECK_EQ(ts.publishers, 0);
	CHECK_EQ(ts.history_len, 5);
	CHECK_EQ(zcast_sub_queued(keeper), 1);
	CHECK_EQ(ts.slots_published, 5); /* keeper's queued message is the newest of the window */
	zcast_sub_close(keeper);
	CHECK_EQ(zt_shm_count(), 0);
	munmap(r, sizeof *r);
}

/* ---- publishers that die, topics that outlive their members ---- */

struct child_arg {
	const char *topic;
	int fd;
	int retain;
};

/* Opens a publisher with history depth 5 and publishes 1..20: 0, or a child's exit status. */
static int publish_20(const struct child_arg *a, zcast_pub **p)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 128;
	o.slot_count = 8;
	o.history_depth = 5;
	o.topic.retain = a->retain;
	if (zcast_pub_open(a->topic, &o, p) != 0)
		return 2;
	for (uint64_t i = 1; i <= 20; i++)
		if (pu_publish(*p, i, 100) != 0)
			return 3;
	return 0;
}

/* Publishes 1..20 with depth 5, says so on the pipe, then waits to be killed. */
static int publish_and_hang(void *arg)
{
	struct child_arg *a = arg;
	zcast_pub *p;
	int rc = publish_20(a, &p);
	if (rc)
		return rc;
	zcast_msg *loan; /* a loan in flight when it dies: cleanup returns it */
	if (zcast_loan(p, 10, &loan) != 0)
		return 4;
	if (write(a->fd, "x", 1) != 1)
		return 5;
	for (;;)
		pause();
}

/* Publishes 1..20 with depth 5 and exits normally. */
static int publish_and_exit(void *arg)
{
	zcast_pub *p;
	int rc = publish_20(arg, &p);
	if (rc)
		return rc;
	zcast_pub_close(p);
	return 0;
}

static int late_join_expects_16_20(void *arg)
{
	struct child_arg *a = arg;
	zcast_sub *s = pu_sub(a->topic, ZCAST_POLICY_FULL, NULL, 16, 10);
	take_expect(s, 16, 20);
	zcast_sub_close(s);
	return 0;
}

static pid_t spawn_killable(struct child_arg *a)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	a->fd = fds[1];
	pid_t pid = zt_fork(publish_and_hang, a);
	close(fds[1]);
	wait_byte(fds[0]);
	close(fds[0]);
	return pid;
}

static void kill_child(pid_t pid)
{
	CHECK_EQ(kill(pid, SIGKILL), 0);
	int st = zt_wait(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_history_survives_killed_publisher(void)
{
	zcast_sub *stay = pu_sub("/histkill", ZCAST_POLICY_DROP_OLD, NULL, 2, 0);
	struct child_arg a = {"/histkill", -1, 0};
	kill_child(spawn_killable(&a));
	zcast_sub *s = pu_sub("/histkill", ZCAST_POLICY_FULL, NULL, 16, 10);
	take_expect(s, 16, 20);
	ZT_EVENTUALLY(pu_tstat("/histkill").slots_loaned == 0); /* the death watcher reclaimed it */
	zcast_topic_stat ts = pu_tstat("/histkill");
	CHECK_EQ(ts.publishers, 0);
	CHECK_EQ(ts.slots_loaned, 0); /* the dead publisher's loan came back */
	CHECK_EQ(ts.slots_published, 5); /* stay holds 19, 20: in the window */
	/* A new publisher continues the topic's sequence. */
	zcast_pub *p = pu_pub("/histkill", 128, 8, 5);
	CHECK_EQ(pu_publish(p, 21, 100), 0);
	take_expect(s, 21, 21);
	CHECK_EQ(pu_take(stay), 20);
	CHECK_EQ(pu_take(stay), 21);
	zcast_sub_close(s);
	zcast_pub_close(p);
	ts = pu_tstat("/histkill");
	CHECK_EQ(ts.slots_published, 5);
	CHECK_EQ(ts.slots_loaned, 0);
	zcast_sub_close(stay);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Without retain, a topic whose members all died is still there (nobody unlinked it): the next
 * opener finds them dead, runs cleanup and keeps the history. */
static void test_all_dead_opener_keeps_history(void)
{
	struct child_arg a = {"/histdead", -1, 0};
	kill_child(spawn_killable(&a));
	CHECK(zt_shm_count() >= 2); /* topic + pool */
	zcast_sub *s = pu_sub("/histdead", ZCAST_POLICY_FULL, NULL, 8, 5);
	take_expect(s, 16, 20);
	zcast_topic_stat ts = pu_tstat("/histdead");
	CHECK_EQ(ts.slots_loaned, 0);
	CHECK_EQ(ts.slots_published, 5);
	CHECK_EQ(ts.pools, 1);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

/* Without retain, the last member to leave takes the history with it. */
static void test_no_retain_history_ends_with_last_member(void)
{
	struct child_arg a = {"/histgone", -1, 0};
	CHECK_CHILD_OK(zt_fork(publish_and_exit, &a));
	CHECK_EQ(zt_shm_count(), 0);
	zcast_sub *s = pu_sub("/histgone", ZCAST_POLICY_FULL, NULL, 8, 5);
	CHECK_EQ(pu_take(s), 0);
	zcast_sub_close(s);
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_retain_keeps_history_until_removed(void)
{
	/* Publisher closes normally, then the topic has no member at all. */
	struct child_arg a = {"/retained", -1, 1};
	CHECK_CHILD_OK(zt_fork(publish_and_exit, &a));
	zcast_topic_stat ts = pu_tstat("/retained");
	CHECK_EQ(ts.retain, 1);
	CHECK_EQ(ts.publishers + ts.subscribers, 0);
	CHECK_EQ(ts.history_len, 5);
	CHECK_EQ(ts.slots_published, 5);
	CHECK_CHILD_OK(zt_fork(late_join_expects_16_20, &a));
	CHECK_CHILD_OK(zt_fork(late_join_expects_16_20, &a)); /* again: a join does not consume it */
	/* Publisher killed, no other member: the next opener repairs and keeps the history. */
	struct child_arg k = {"/retkill", -1, 1};
	kill_child(spawn_killable(&k));
	CHECK_CHILD_OK(zt_fork(late_join_expects_16_20, &k));
	ts = pu_tstat("/retkill");
	CHECK_EQ(ts.slots_loaned, 0);
	CHECK_EQ(ts.slots_published, 5);
	/* Removal: refused while a member is alive, then everything goes. */
	zcast_sub *s = pu_sub("/retained", ZCAST_POLICY_FULL, NULL, 8, 0);
	CHECK_EQ(zcast_topic_remove(NULL, "/retained"), ZCAST_EBUSY);
	zcast_sub_close(s);
	CHECK_EQ(zcast_topic_remove(NULL, "/retained"), 0);
	CHECK_EQ(zcast_topic_remove(NULL, "/retkill"), 0);
	CHECK_EQ(zt_shm_count(), 0);
	CHECK_EQ(zcast_topic_remove(NULL, "/retained"), ZCAST_ENOENT);
}

int main(void)
{
	zt_setup("history", 60);
	RUN(test_late_joiner_gets_last_n_then_live);
	RUN(test_depth_equal_to_capacity);
	RUN(test_history_across_publishers);
	RUN(test_join_during_traffic_is_seamless);
	RUN(test_history_survives_killed_publisher);
	RUN(test_all_dead_opener_keeps_history);
	RUN(test_no_retain_history_ends_with_last_member);
	RUN(test_retain_keeps_history_until_removed);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
