/* A wait set whose only belled entry is one broadcast subscription sleeps on the topic word (so a
 * publish wakes S such processes with one FUTEX_WAKE), any other wait set on its doorbell; the
 * switch follows adds and removes, and no message is missed either way:
 *  - the subscriber record's `sleepers` count shows where a waiter sleeps (1: the topic word, the
 *    doorbell path leaves it 0), through an add of a second subscription and its removal;
 *  - fan-out: S processes, each waiting for one subscription in a wait set of its own, receive
 * every one of N messages, in order, while the publisher pauses often enough for them to sleep. */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "zt_hostile.h"
#include "zcast/waitset.h"

#define WAIT_NS 10000000000ll
#define FAN_S 6
#define FAN_N 300

struct waiter {
	zcast_waitset *ws;
	pthread_t th;
	_Atomic int tid;
	int n;
	zcast_ws_event ev[4];
};

static void *wait_once(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	w->n = zcast_waitset_wait(w->ws, WAIT_NS, w->ev, 4);
	return NULL;
}

static void start(struct waiter *w)
{
	atomic_store(&w->tid, 0);
	CHECK_EQ(pthread_create(&w->th, NULL, wait_once, w), 0);
	ZT_EVENTUALLY(atomic_load(&w->tid) != 0);
	ZT_EVENTUALLY(zt_futex_asleep(getpid(), atomic_load(&w->tid)));
}

/* Publishes one message to p, joins the waiter and checks it reported exactly `user`. */
static void expect_woken(struct waiter *w, zcast_pub *p, zcast_sub *s, void *user)
{
	zt_publish(p, 1, 64);
	CHECK_EQ(pthread_join(w->th, NULL), 0);
	CHECK_EQ(w->n, 1);
	CHECK(w->ev[0].user == user);
	CHECK_EQ(zcast_waitset_last_words(w->ws), 1);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_drop(m);
}

static void switches_with_entries(void)
{
	zcast_pub *pa = zt_open_pub("/solo/a", 64, 8), *pb = zt_open_pub("/solo/b", 64, 8);
	zcast_sub *sa, *sb;
	CHECK_EQ(zcast_sub_open("/solo/a", NULL, &sa), 0);
	CHECK_EQ(zcast_sub_open("/solo/b", NULL, &sb), 0);
	size_t ha_size;
	struct zc_topic_hdr *ha = zt_map_topic("/solo/a", &ha_size);
	struct zc_sub_rec *ra = zt_sub_rec(ha, zcast_sub_id(sa));
	CHECK(ra != NULL);
	struct waiter w = {0};
	CHECK_EQ(zcast_waitset_create(&w.ws), 0);
	int ida, idb;
	CHECK_EQ(zcast_waitset_add_sub(w.ws, sa, sa, &ida), 0);

	/* one subscription: asleep on the topic word, announced in its record, the doorbell's
	 * reference withdrawn from it (publishers ring nothing) */
	uint64_t ref = atomic_load(&ra->bell);
	CHECK(ref != 0);
	start(&w);
	ZT_EVENTUALLY(ZC_SLEEPERS(atomic_load(&ra->sleepers)) == 1);
	CHECK_EQ(atomic_load(&ra->bell), 0);
	expect_woken(&w, pa, sa, sa);
	/* a message while nobody waits, with nothing rung: the next wait reports it at once */
	zt_publish(pa, 1, 64);
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_wait(w.ws, 2000000000, ev, 2), 1);
	CHECK(ev[0].user == sa);
	CHECK_EQ(zt_drain(sa), 1);
	/* alone and quiet, a wait is zcast_wait's: its timeout ends it */
	CHECK_EQ(zcast_waitset_wait(w.ws, 1000000, ev, 2), ZCAST_ETIMEDOUT);
	CHECK_EQ(atomic_load(&ra->bell), 0);
	/* a huge timeout saturates (UBSan: no overflow) */
	zt_publish(pa, 1, 64);
	CHECK_EQ(zcast_waitset_wait(w.ws, INT64_MAX, ev, 2), 1);
	CHECK_EQ(zt_drain(sa), 1);
	/* disabled with a message queued: not reported; enabled again: reported at once */
	zt_publish(pa, 1, 64);
	CHECK_EQ(zcast_waitset_enable(w.ws, ida, 0), 0);
	CHECK_EQ(zcast_waitset_wait(w.ws, 1000000, ev, 2), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_enable(w.ws, ida, 1), 0);
	CHECK_EQ(zcast_waitset_wait(w.ws, 2000000000, ev, 2), 1);
	CHECK(ev[0].user == sa);
	/* a timer (not due for an hour) beside it, the message still queued: reported */
	int idt;
	CHECK_EQ(zcast_waitset_add_timer(w.ws, 3600000000000ll, &idt, &idt), 0);
	CHECK_EQ(zcast_waitset_wait(w.ws, 2000000000, ev, 2), 1);
	CHECK(ev[0].user == sa);
	CHECK_EQ(zt_drain(sa), 1);
	CHECK_EQ(zcast_waitset_wait(w.ws, 1000000, ev, 2), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_remove(w.ws, idt), 0);

	/* two: asleep on the doorbell, the record is not armed, the reference is back */
	CHECK_EQ(zcast_waitset_add_sub(w.ws, sb, sb, &idb), 0);
	CHECK_EQ(atomic_load(&ra->bell), ref);
	start(&w);
	CHECK_EQ(ZC_SLEEPERS(atomic_load(&ra->sleepers)), 0);
	expect_woken(&w, pb, sb, sb);
	start(&w);
	CHECK_EQ(ZC_SLEEPERS(atomic_load(&ra->sleepers)), 0);
	expect_woken(&w, pa, sa, sa);

	/* the second one disabled: alone again */
	CHECK_EQ(zcast_waitset_enable(w.ws, idb, 0), 0);
	start(&w);
	ZT_EVENTUALLY(ZC_SLEEPERS(atomic_load(&ra->sleepers)) == 1);
	expect_woken(&w, pa, sa, sa);
	CHECK_EQ(zcast_waitset_enable(w.ws, idb, 1), 0);

	/* removed: alone again, and a guard makes two */
	CHECK_EQ(zcast_waitset_remove(w.ws, idb), 0);
	start(&w);
	ZT_EVENTUALLY(ZC_SLEEPERS(atomic_load(&ra->sleepers)) == 1);
	expect_woken(&w, pa, sa, sa);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	int idg;
	CHECK_EQ(zcast_waitset_add_guard(w.ws, g, g, &idg), 0);
	start(&w);
	CHECK_EQ(ZC_SLEEPERS(atomic_load(&ra->sleepers)), 0);
	expect_woken(&w, pa, sa, sa);

	zcast_waitset_destroy(w.ws);
	zcast_guard_destroy(g);
	munmap(ha, ha_size);
	CHECK_EQ(zcast_sub_close(sa), 0);
	CHECK_EQ(zcast_sub_close(sb), 0);
	CHECK_EQ(zcast_pub_close(pa), 0);
	CHECK_EQ(zcast_pub_close(pb), 0);
}

struct fan_args {
	int ready_w;
};

/* One subscription in a wait set of its own: every message, in order, or the test fails. */
static int fan_child(void *arg)
{
	struct fan_args *a = arg;
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 4;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open("/solo/fan", &so, &s), 0);
	zcast_waitset *ws;
	int id;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	CHECK_EQ(zcast_waitset_add_sub(ws, s, s, &id), 0);
	zt_signal(a->ready_w);
	uint64_t want = 1;
	while (want <= FAN_N) {
		zcast_ws_event ev;
		int n = zcast_waitset_wait(ws, WAIT_NS, &ev, 1);
		if (n != 1) {
			fprintf(stderr, "FAIL: wait returned %d with message %llu due\n", n,
				(unsigned long long)want);
			return 1;
		}
		zcast_msg *m;
		while (zcast_take(s, &m) == 0) {
			uint64_t seq = 0;
			CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
			CHECK_EQ(seq, want);
			want++;
			zcast_msg_drop(m);
		}
	}
	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_sub_close(s), 0);
	return 0;
}

static void fan_out(void)
{
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	struct fan_args a = {fds[1]};
	pid_t kids[FAN_S];
	for (int i = 0; i < FAN_S; i++)
		kids[i] = zt_fork(fan_child, &a);
	for (int i = 0; i < FAN_S; i++)
		zt_await(fds[0]);
	close(fds[0]);
	close(fds[1]);
	/* opened after the forks: no library thread of ours exists while forking (sanitizers) */
	zcast_pub *p = zt_open_pub("/solo/fan", 64, 8);
	CHECK_EQ(zcast_pub_matched(p), FAN_S);
	for (uint64_t seq = 1; seq <= FAN_N; seq++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p, 64, WAIT_NS, &m), 0);
		zt_fill(zcast_msg_data(m), 64, seq, zcast_pub_id(p));
		CHECK_EQ(zcast_publish_wait(p, m, WAIT_NS), 0);
		if (seq % 8 == 0)
			zt_sleep_ms(1); /* the subscribers drain and go to sleep */
	}
	for (int i = 0; i < FAN_S; i++)
		CHECK_CHILD_OK(kids[i]);
	CHECK_EQ(zcast_pub_close(p), 0);
}

int main(void)
{
	zt_setup("waitset_solo", 120);
	RUN(fan_out); /* first: it forks */
	RUN(switches_with_entries);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
