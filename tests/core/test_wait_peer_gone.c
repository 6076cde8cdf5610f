/* Issue 10, finding 3: a publisher-side wait with no timeout must end when the member it waits for
 * goes away, without anyone calling gc:
 *  - zcast_publish_wait(pub, msg, -1) blocked on a FULL subscriber's full queue returns 0 when that
 *    subscriber closes cleanly, and when it is killed with SIGKILL;
 *  - zcast_loan_wait(-1) blocked on a pool whose every slot is held returns a loan when the holder
 *    is killed with SIGKILL.
 * The peer acts only once the test's main thread sleeps in the kernel; a 10 s watchdog turns a
 * wait that never ends into a FAIL. */
#include "zt_hostile.h"

enum { CLOSE, KILL };

struct peer {
	const char *topic;
	int how;  /* CLOSE or KILL */
	int hold; /* take and hold this many messages first */
	int ready_w, done_r;
};

/* Until the parent's main thread sleeps on a futex (at most 5 s, then it acts anyway). */
static void await_parent_asleep(void)
{
	pid_t pp = getppid();
	for (int i = 0; i < 5000 && !zt_futex_asleep(pp, pp); i++)
		zt_sleep_ms(1);
	zt_sleep_ms(20); /* settled in the wait, not passing through */
}

static int peer_main(void *a_)
{
	struct peer *a = a_;
	alarm(30);
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = a->hold ? (uint32_t)a->hold : 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(a->topic, &o, &s), 0);
	zt_signal(a->ready_w);
	zt_await(a->done_r); /* the publisher filled the queue (or the pool) */
	zcast_msg *held[8];
	for (int i = 0; i < a->hold; i++)
		CHECK_EQ(zcast_take(s, &held[i]), 0);
	zt_signal(a->ready_w);
	await_parent_asleep();
	if (a->how == KILL)
		raise(SIGKILL);
	CHECK_EQ(zcast_sub_close(s), 0);
	zt_await(a->done_r); /* stays alive: only the close may end the wait */
	return 0;
}

static pid_t start_peer(struct peer *a, const char *topic, int how, int hold, int *ready_r,
			int *go_w)
{
	int r[2], d[2];
	CHECK_EQ(pipe(r), 0);
	CHECK_EQ(pipe(d), 0);
	*a = (struct peer){topic, how, hold, r[1], d[0]};
	pid_t pid = zt_fork(peer_main, a);
	*ready_r = r[0];
	*go_w = d[1];
	zt_await(*ready_r);
	return pid;
}

static zcast_pub *pub_of(const char *topic, uint32_t slots)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = slots;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

static void end_peer(pid_t pid, int how, int go_w)
{
	if (how == KILL) {
		int st = zt_wait(pid);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	} else {
		zt_signal(go_w);
		CHECK_CHILD_OK(pid);
	}
}

static void publish_wait_case(int how)
{
	const char *topic = how == KILL ? "/pw/killed" : "/pw/closed";
	struct peer a;
	int ready_r, go_w;
	pid_t pid = start_peer(&a, topic, how, 0, &ready_r, &go_w);
	zcast_pub *p = pub_of(topic, 4);
	zt_publish(p, 1, 64); /* the depth-1 queue is full now */
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), 0);
	zt_fill(zcast_msg_data(m), 64, 2, zcast_pub_id(p));
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
	zt_signal(go_w);
	zt_await(ready_r);
	fprintf(stderr,
		"waiting in zcast_publish_wait(-1) for a full subscriber that %s (10 s watchdog)\n",
		how == KILL ? "is killed" : "closes");
	alarm(10);
	int r = zcast_publish_wait(p, m, -1);
	alarm(0);
	CHECK_EQ(r, 0);
	end_peer(pid, how, go_w);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void loan_wait_case(void)
{
	const char *topic = "/lw/killed";
	struct peer a;
	int ready_r, go_w;
	pid_t pid = start_peer(&a, topic, KILL, 2, &ready_r, &go_w);
	zcast_pub *p = pub_of(topic, 2);
	zt_publish(p, 1, 64);
	zt_publish(p, 2, 64);
	zt_signal(go_w);
	zt_await(ready_r); /* the peer holds both slots */
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 64, &m), ZCAST_ENOSLOT);
	fprintf(
	    stderr,
	    "waiting in zcast_loan_wait(-1) for slots held by a killed process (10 s watchdog)\n");
	alarm(10);
	int r = zcast_loan_wait(p, 64, -1, &m);
	alarm(0);
	CHECK_EQ(r, 0);
	zcast_msg_drop(m);
	end_peer(pid, KILL, go_w);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

static void publish_wait_close(void)
{
	publish_wait_case(CLOSE);
}

static void publish_wait_kill(void)
{
	publish_wait_case(KILL);
}

int main(void)
{
	zt_setup("peergone", 120);
	static const struct zt_case cases[] = {ZT_CASE(publish_wait_close),
					       ZT_CASE(publish_wait_kill), ZT_CASE(loan_wait_case)};
	return zt_run_cases(cases, 3, 30);
}
