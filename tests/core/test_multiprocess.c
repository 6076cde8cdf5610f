/* Real processes (fork): start order, 1 publisher -> 8 subscribers and 4 publishers of different
 * slot capacities -> 1 subscriber, 100 000 messages each. Every message is checksummed, every
 * (publisher, sequence) is accounted for exactly once, and at take and again at release the holder
 * checks the slot's shared state, read raw: state PUBLISHED with the handle's generation, its
 * holder bit set, header and payload unchanged (test builds poison slots at loan). */
#include "zt_held.h"

#define N_MSGS 100000
#define TIMEOUT_NS 20000000000ll

struct sub_args {
	const char *topic;
	int n_pubs;	  /* distinct publishers expected */
	uint64_t per_pub; /* messages expected from each */
	int ready_fd;	  /* write one byte once subscribed */
};

/* Holds a few messages at a time and releases them later, re-checking each. */
struct held {
	zcast_msg *m;
	struct zt_expect x;
};

static void check_held(struct held *h)
{
	char why[200];
	if (!zt_held_ok(h->m, &h->x, why, sizeof why)) {
		fprintf(stderr, "held message: %s\n", why);
		zt_fail();
	}
}

static void release_checked(struct held *h)
{
	check_held(h);
	zcast_msg_drop(h->m);
}

static int subscriber(void *arg)
{
	struct sub_args *a = arg;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 64;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(a->topic, &o, &s), 0);
	if (a->ready_fd >= 0)
		CHECK_EQ(write(a->ready_fd, "r", 1), 1);
	int index = zt_sub_index(a->topic, zcast_sub_id(s));
	CHECK(index >= 0);
	uint64_t next[8] = {0}, total = 0, want = a->per_pub * (uint64_t)a->n_pubs;
	uint64_t last_topic_seq = 0;
	struct held ring[4] = {{0}};
	int hi = 0;
	while (total < want) {
		zcast_msg *m;
		int r = zcast_take(s, &m);
		if (r == ZCAST_EAGAIN) {
			CHECK_EQ(zcast_wait(s, TIMEOUT_NS), 0);
			continue;
		}
		CHECK_EQ(r, 0);
		uint64_t seq, pub;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &pub));
		CHECK(pub < (uint64_t)a->n_pubs);
		CHECK_EQ(seq, next[pub]); /* exactly once, in order, per publisher */
		next[pub]++;
		total++;
		struct held *h = &ring[hi++ % 4];
		if (h->m)
			release_checked(h);
		zcast_msg_info info;
		CHECK_EQ(zcast_msg_info_get(m, &info), 0);
		CHECK(info.sequence > last_topic_seq); /* per-topic sequence rises */
		last_topic_seq = info.sequence;
		h->m = m;
		h->x = (struct zt_expect){(uint32_t)index, info.sequence, seq};
		check_held(h);
	}
	for (int i = 0; i < 4; i++)
		if (ring[i].m)
			release_checked(&ring[i]);
	zcast_msg *extra;
	CHECK_EQ(zcast_take(s, &extra), ZCAST_EAGAIN);
	CHECK_EQ(zcast_sub_close(s), 0);
	return 0;
}

struct pub_args {
	const char *topic;
	uint64_t index, count;
	size_t slot_size;
	int wait_subs; /* wait until this many subscribers are present */
};

static int publisher(void *arg)
{
	struct pub_args *a = arg;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = a->slot_size;
	o.slot_count = 32;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open(a->topic, &o, &p), 0);
	for (uint64_t i = 0; i < a->count; i++) {
		zcast_msg *m;
		size_t n = 64 + (size_t)(i * 37) % (a->slot_size - 63);
		CHECK_EQ(zcast_loan_wait(p, n, TIMEOUT_NS, &m), 0);
		zt_fill(zcast_msg_data(m), n, i, a->index);
		CHECK_EQ(zcast_publish_wait(p, m, TIMEOUT_NS), 0);
	}
	CHECK_EQ(zcast_pub_close(p), 0);
	return 0;
}

static void wait_ready(int fd, int n)
{
	char c;
	for (int i = 0; i < n; i++)
		CHECK_EQ(read(fd, &c, 1), 1);
}

static void check_all_free_then_gone(const char *topic)
{
	(void)topic;
	CHECK_EQ(zt_shm_count(), 0);
}

static void test_subscriber_first(void)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct sub_args sa = {"/order/subfirst", 1, 1000, fds[1]};
	pid_t s = zt_fork(subscriber, &sa);
	wait_ready(fds[0], 1);
	struct pub_args pa = {"/order/subfirst", 0, 1000, 256, 0};
	pid_t p = zt_fork(publisher, &pa);
	CHECK_CHILD_OK(p);
	CHECK_CHILD_OK(s);
	close(fds[0]);
	close(fds[1]);
	check_all_free_then_gone(sa.topic);
}

static void test_publisher_first(void)
{
	/* The publisher opens first and keeps the topic; the subscriber joins later. */
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/order/pubfirst", &o, &p), 0);
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct sub_args sa = {"/order/pubfirst", 1, 1000, fds[1]};
	pid_t s = zt_fork(subscriber, &sa);
	wait_ready(fds[0], 1);
	for (uint64_t i = 0; i < 1000; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, 128, TIMEOUT_NS, &m), 0);
		zt_fill(zcast_msg_data(m), 128, i, 0);
		CHECK_EQ(zcast_publish_wait(p, m, TIMEOUT_NS), 0);
	}
	CHECK_CHILD_OK(s);
	zcast_topic_stat st;
	CHECK_EQ(zcast_topic_stat_get(NULL, "/order/pubfirst", &st), 0);
	CHECK_EQ(st.slots_free, st.slots_total); /* before the last member closes */
	CHECK_EQ(zcast_pub_close(p), 0);
	close(fds[0]);
	close(fds[1]);
	check_all_free_then_gone(sa.topic);
}

static void test_one_publisher_eight_subscribers(void)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct sub_args sa = {"/fanout", 1, N_MSGS, fds[1]};
	pid_t subs[8];
	for (int i = 0; i < 8; i++)
		subs[i] = zt_fork(subscriber, &sa);
	wait_ready(fds[0], 8);
	struct pub_args pa = {"/fanout", 0, N_MSGS, 1024, 0};
	pid_t p = zt_fork(publisher, &pa);
	CHECK_CHILD_OK(p);
	for (int i = 0; i < 8; i++)
		CHECK_CHILD_OK(subs[i]);
	close(fds[0]);
	close(fds[1]);
	check_all_free_then_gone(sa.topic);
}

static void test_four_publishers_one_subscriber(void)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct sub_args sa = {"/fanin", 4, N_MSGS, fds[1]};
	pid_t s = zt_fork(subscriber, &sa);
	wait_ready(fds[0], 1);
	size_t sizes[4] = {128, 1024, 4096, 65536};
	struct pub_args pa[4];
	pid_t p[4];
	for (int i = 0; i < 4; i++) {
		pa[i] = (struct pub_args){"/fanin", (uint64_t)i, N_MSGS, sizes[i], 0};
		p[i] = zt_fork(publisher, &pa[i]);
	}
	for (int i = 0; i < 4; i++)
		CHECK_CHILD_OK(p[i]);
	CHECK_CHILD_OK(s);
	close(fds[0]);
	close(fds[1]);
	check_all_free_then_gone(sa.topic);
}

int main(void)
{
	zt_setup("multiproc", 280);
	RUN(test_subscriber_first);
	RUN(test_publisher_first);
	RUN(test_one_publisher_eight_subscribers);
	RUN(test_four_publishers_one_subscriber);
	return 0;
}
