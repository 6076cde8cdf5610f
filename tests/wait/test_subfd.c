/* Pollable descriptors: epoll_wait on two zcast subscriber descriptors and a pipe together, fed by a
 * publisher process (every message exactly once, in order) and by pipe writes; an idle, drained
 * subscriber's descriptor is not readable; a descriptor survives many arm/drain cycles; closing the
 * subscriber releases the descriptor. */
#include <poll.h>
#include <sys/epoll.h>

#include "harness.h"
#include "zcast/waitset.h"

#define N_MSGS 3000
#define WAIT_MS 20000

struct pub_args {
	int ready[2]; /* parent -> child: subscribed */
	int pipe_w;   /* child writes a byte every 100 messages */
};

static int publisher(void *arg)
{
	struct pub_args *a = arg;
	char c;
	CHECK_EQ(read(a->ready[0], &c, 1), 1);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	o.slot_count = 16;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/fd/t", &o, &p), 0);
	for (uint64_t i = 0; i < N_MSGS; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, 256, 10000000000ll, &m), 0);
		zt_fill(zcast_msg_data(m), 256, i, 0);
		CHECK_EQ(zcast_publish_wait(p, m, 10000000000ll), 0);
		if (i % 100 == 99)
			CHECK_EQ(write(a->pipe_w, "p", 1), 1);
		if (i % 500 == 0)
			zt_sleep_ms(2); /* let the subscriber fall asleep now and then */
	}
	CHECK_EQ(zcast_pub_close(p), 0);
	return 0;
}

static int readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_epoll_with_pipe(void)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 8;
	zcast_sub *s[2];
	int fd[2];
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_sub_open("/fd/t", &so, &s[i]), 0);
		CHECK_EQ(zcast_sub_fd(s[i], &fd[i]), 0);
		int again;
		CHECK_EQ(zcast_sub_fd(s[i], &again), 0);
		CHECK_EQ(again, fd[i]);
	}
	CHECK(!readable(fd[0]) && !readable(fd[1]));
	int pp[2];
	CHECK_EQ(pipe(pp), 0);
	int ep = epoll_create1(0);
	CHECK(ep >= 0);
	struct epoll_event e = {.events = EPOLLIN};
	e.data.u32 = 0;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd[0], &e), 0);
	e.data.u32 = 1;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd[1], &e), 0);
	e.data.u32 = 2;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, pp[0], &e), 0);

	struct pub_args a;
	CHECK_EQ(pipe(a.ready), 0);
	a.pipe_w = pp[1];
	pid_t pid = zt_fork(publisher, &a);
	CHECK_EQ(write(a.ready[1], "g", 1), 1);

	uint64_t next[2] = {0, 0};
	int pipe_bytes = 0;
	while (next[0] < N_MSGS || next[1] < N_MSGS || pipe_bytes < N_MSGS / 100) {
		struct epoll_event ev[4];
		int n = epoll_wait(ep, ev, 4, WAIT_MS);
		CHECK(n > 0); /* bounded: nothing for 20 s means a lost wake-up */
		for (int i = 0; i < n; i++) {
			uint32_t k = ev[i].data.u32;
			if (k == 2) {
				char buf[64];
				ssize_t r = read(pp[0], buf, sizeof buf);
				CHECK(r > 0);
				pipe_bytes += (int)r;
				continue;
			}
			/* The contract: take until EAGAIN. */
			zcast_msg *m;
			int r;
			while ((r = zcast_take(s[k], &m)) == 0) {
				uint64_t seq;
				CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
				CHECK_EQ(seq, next[k]);
				next[k]++;
				zcast_msg_drop(m);
			}
			CHECK_EQ(r, ZCAST_EAGAIN);
		}
	}
	CHECK_CHILD_OK(pid);
	CHECK_EQ(next[0], N_MSGS);
	CHECK_EQ(next[1], N_MSGS);
	/* Drained and idle: an epoll that reports one of them now would be a spurious readiness that
	 * never clears. Allow one stale report each (written before our last EAGAIN re-armed). */
	for (int round = 0; round < 3; round++) {
		struct epoll_event ev[4];
		int n = epoll_wait(ep, ev, 4, 0);
		for (int i = 0; i < n; i++) {
			zcast_msg *m;
			CHECK_EQ(zcast_take(s[ev[i].data.u32], &m), ZCAST_EAGAIN);
		}
	}
	CHECK(!readable(fd[0]) && !readable(fd[1]));
	for (int i = 0; i < 2; i++)
		CHECK_EQ(zcast_sub_close(s[i]), 0);
	close(ep);
	close(pp[0]), close(pp[1]), close(a.ready[0]), close(a.ready[1]);
}

/* Same process, publish then poll, many times: each cycle arms, signals and drains. */
static void test_cycles(void)
{
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/fd/c", NULL, &p), 0);
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/fd/c", NULL, &s), 0);
	int fd;
	CHECK_EQ(zcast_sub_fd(s, &fd), 0);
	for (int i = 0; i < 2000; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, (uint64_t)i, 0);
		CHECK_EQ(zcast_publish(p, m), 0);
		struct pollfd pf = {fd, POLLIN, 0};
		CHECK_EQ(poll(&pf, 1, WAIT_MS), 1);
		uint64_t seq;
		CHECK_EQ(zcast_take(s, &m), 0);
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		CHECK_EQ(seq, (uint64_t)i);
		zcast_msg_drop(m);
		CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	}
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

int main(void)
{
	zt_setup("subfd", 120);
	RUN(test_epoll_with_pipe);
	RUN(test_cycles);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
