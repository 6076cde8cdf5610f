/* The "room again" event. In one process: a publish refused by a FULL queue, or a loan refused by
 * an empty pool, asks for room; the callback runs once when a take made queue room or a drop freed
 * a slot, and not before. Then two containers — two processes, each one executor thread — publish
 * FULL to each other with both queues full from the start: with room callbacks instead of
 * zcast_publish_wait neither blocks, and every message arrives, in order. */
#include <signal.h>
#include <sys/mman.h>

#include "harness.h"
#include "zcast/executor.h"

static zcast_sub *open_full_sub(const char *topic, uint32_t depth)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = depth;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static int room_calls;
static void on_room(zcast_pub *pub, void *ctx)
{
	CHECK(pub == ctx);
	room_calls++;
}

static zcast_msg *take_checked(zcast_sub *s)
{
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_info info;
	CHECK_EQ(zcast_msg_info_get(m, &info), 0);
	CHECK_EQ(zcast_msg_sequence(m), info.sequence); /* the inline accessors agree */
	CHECK_EQ(zcast_msg_time_ns(m), info.publish_time_ns);
	return m;
}

static void one_process(void)
{
	zcast_pub *p = zt_open_pub("/room/one", 64, 4);
	zcast_sub *s = open_full_sub("/room/one", 2);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_want_room(ex, p), ZCAST_ENOENT);
	CHECK_EQ(zcast_executor_add_room(ex, p, on_room, p), 0);
	CHECK_EQ(zcast_executor_add_room(ex, p, on_room, p), ZCAST_EBUSY);
	zcast_msg *m;
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_loan(p, 8, &m), 0);
		CHECK_EQ(zcast_publish(p, m), 0);
	}
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN); /* queue full: the loan stays ours */

	/* Not asked for: nothing runs although the entry exists. Asked for: not before room. */
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_executor_want_room(ex, p), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	CHECK_EQ(room_calls, 0);
	zcast_msg *h1 = take_checked(s); /* queue room (the slot stays held) */
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 1);
	CHECK_EQ(room_calls, 1);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT); /* once per want_room */
	CHECK_EQ(room_calls, 1);

	/* Pool empty: 1 held + 2 queued + 1 loaned = 4 slots. Queue room alone is not room. */
	zcast_msg *h2 = take_checked(s);
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_loan(p, 8, &m), ZCAST_ENOSLOT);
	CHECK_EQ(zcast_executor_want_room(ex, p), 0);
	zcast_msg *h3 = take_checked(s); /* queue room, but every slot still in use */
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	CHECK_EQ(room_calls, 1);
	zcast_msg_drop(h1); /* a slot is free again */
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 1);
	CHECK_EQ(room_calls, 2);
	zcast_msg_drop(h2);
	zcast_msg_drop(h3);

	/* The wait set entry underneath, level-triggered. */
	zcast_waitset *ws;
	int id;
	zcast_ws_event ev[4];
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	CHECK_EQ(zcast_waitset_add_pub_room(ws, p, p, &id), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_PUB_ROOM);
	CHECK(ev[0].user == p);
	zcast_waitset_destroy(ws);

	CHECK_EQ(zcast_executor_remove_room(ex, p), 0);
	CHECK_EQ(zcast_executor_remove_room(ex, p), ZCAST_ENOENT);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_sub_close(s), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

/* A BALANCE_RR group refuses only when every member is full; one member's take is room. */
static void rr_group(void)
{
	zcast_pub *p = zt_open_pub("/room/rr", 64, 8);
	zcast_sub *m[2];
	for (int i = 0; i < 2; i++) {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.policy = ZCAST_POLICY_BALANCE_RR;
		o.group = "g";
		o.queue_depth = 1;
		CHECK_EQ(zcast_sub_open("/room/rr", &o, &m[i]), 0);
	}
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_room(ex, p, on_room, p), 0);
	zcast_msg *l;
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_loan(p, 8, &l), 0);
		CHECK_EQ(zcast_publish(p, l), 0);
	}
	CHECK_EQ(zcast_loan(p, 8, &l), 0);
	CHECK_EQ(zcast_publish(p, l), ZCAST_EAGAIN);
	int before = room_calls;
	CHECK_EQ(zcast_executor_want_room(ex, p), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	zcast_msg *h = take_checked(m[1]);
	CHECK_EQ(zcast_executor_spin_once(ex, -1), 1);
	CHECK_EQ(room_calls, before + 1);
	CHECK_EQ(zcast_publish(p, l), 0);
	zcast_msg_drop(h);
	zcast_executor_destroy(ex);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(zcast_sub_close(m[i]), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

/* The FULL subscriber that refuses us is killed: its queue goes with it (the death watcher reclaims
 * it and wakes room waiters), so room comes back without anyone taking. */
static int full_sub_child(void *arg)
{
	int *fd = arg;
	zcast_sub *s = open_full_sub("/room/dead", 1);
	char c = 1;
	CHECK_EQ(write(fd[1], &c, 1), 1);
	for (;;)
		pause();
	(void)s;
	return 0;
}

static void refusing_subscriber_dies(void)
{
	zcast_pub *p = zt_open_pub("/room/dead", 64, 4);
	int fd[2];
	CHECK_EQ(pipe(fd), 0);
	pid_t pid = zt_fork(full_sub_child, fd);
	char c;
	CHECK_EQ(read(fd[0], &c, 1), 1);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_room(ex, p, on_room, p), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN);
	int before = room_calls;
	CHECK_EQ(zcast_executor_want_room(ex, p), 0);
	CHECK_EQ(zcast_executor_spin_once(ex, 0), ZCAST_ETIMEDOUT);
	kill(pid, SIGKILL);
	zt_wait(pid);
	while (room_calls == before) /* the watchdog bounds it */
		CHECK(zcast_executor_spin_once(ex, -1) >= 0);
	CHECK_EQ(zcast_publish(p, m), 0);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_pub_close(p), 0);
}

/* ---- two containers ---- */

#define N_MSGS 3000
#define DEPTH 4

struct shared {
	_Atomic int subscribed, filled;
};

struct container {
	int me;
	struct shared *sh;
	zcast_executor *ex;
	zcast_pub *pub;
	zcast_sub *sub;
	zcast_msg *loan; /* refused and kept for the next try */
	uint64_t sent, received;
	int refusals, rooms;
};

static void check_done(struct container *c)
{
	if (c->sent == N_MSGS && c->received == N_MSGS)
		zcast_executor_stop(c->ex);
}

/* Sends until done or refused; a refusal asks for room instead of blocking. */
static void pump(struct container *c)
{
	while (c->sent < N_MSGS) {
		if (!c->loan) {
			int r = zcast_loan(c->pub, 8, &c->loan);
			if (r == ZCAST_ENOSLOT) {
				c->refusals++;
				CHECK_EQ(zcast_executor_want_room(c->ex, c->pub), 0);
				return;
			}
			CHECK_EQ(r, 0);
			memcpy(zcast_msg_data(c->loan), &c->sent, 8);
		}
		int r = zcast_publish(c->pub, c->loan);
		if (r == ZCAST_EAGAIN) {
			c->refusals++;
			CHECK_EQ(zcast_executor_want_room(c->ex, c->pub), 0);
			return;
		}
		CHECK_EQ(r, 0);
		c->loan = NULL;
		c->sent++;
	}
}

static void on_room2(zcast_pub *pub, void *ctx)
{
	struct container *c = ctx;
	CHECK(pub == c->pub);
	c->rooms++;
	pump(c);
	check_done(c);
}

static void on_msg(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	struct container *c = ctx;
	uint64_t v;
	memcpy(&v, zcast_msg_data(m), 8);
	CHECK_EQ(v, c->received); /* FULL: nothing lost, in order */
	c->received++;
	pump(c); /* replying from a callback: the pattern that deadlocks with publish_wait */
	check_done(c);
}

static int container_main(void *arg)
{
	struct container *c = arg;
	char in[32], out[32];
	snprintf(in, sizeof in, "/room/in%d", c->me);
	snprintf(out, sizeof out, "/room/in%d", 1 - c->me);
	c->sub = open_full_sub(in, DEPTH);
	c->pub = zt_open_pub(out, 64, 8);
	atomic_fetch_add(&c->sh->subscribed, 1);
	while (atomic_load(&c->sh->subscribed) < 2 || zcast_pub_matched(c->pub) < 1)
		zt_sleep_ms(1);
	/* Fill the peer's queue before anyone takes: both start in the state where a blocking
	 * publish in a single thread would wait forever. */
	for (;;) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(c->pub, 8, &m), 0);
		memcpy(zcast_msg_data(m), &c->sent, 8);
		if (zcast_publish(c->pub, m) != 0) {
			c->loan = m;
			break;
		}
		c->sent++;
	}
	CHECK_EQ(c->sent, DEPTH);
	atomic_fetch_add(&c->sh->filled, 1);
	while (atomic_load(&c->sh->filled) < 2)
		zt_sleep_ms(1);
	CHECK_EQ(zcast_executor_create(NULL, &c->ex), 0);
	CHECK_EQ(zcast_executor_add_sub(c->ex, c->sub, on_msg, c, 0), 0);
	CHECK_EQ(zcast_executor_add_room(c->ex, c->pub, on_room2, c), 0);
	pump(c);
	int r = zcast_executor_spin_until(c->ex, zt_now_ns() + 100000000000ll);
	printf("container %d: sent %llu received %llu, %d refusals, %d room calls (spin %d)\n",
	       c->me, (unsigned long long)c->sent, (unsigned long long)c->received, c->refusals,
	       c->rooms, r);
	CHECK_EQ(r, 0); /* stopped because done, not at the deadline */
	CHECK_EQ(c->sent, N_MSGS);
	CHECK_EQ(c->received, N_MSGS);
	CHECK(c->rooms > 0);
	zcast_executor_destroy(c->ex);
	CHECK_EQ(zcast_pub_close(c->pub), 0);
	CHECK_EQ(zcast_sub_close(c->sub), 0);
	return 0;
}

static void two_containers(void)
{
	struct shared *sh =
	    mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	struct container a = {.me = 0, .sh = sh}, b = {.me = 1, .sh = sh};
	pid_t pa = zt_fork(container_main, &a), pb = zt_fork(container_main, &b);
	CHECK_CHILD_OK(pa);
	CHECK_CHILD_OK(pb);
	munmap(sh, sizeof *sh);
}

int main(void)
{
	zt_setup("exec_room", 200);
	RUN(one_process);
	RUN(rr_group);
	RUN(refusing_subscriber_dies);
	RUN(two_containers);
	return 0;
}
