/* The doorbell's ready set never loses an event. Burst: three publisher processes and a publisher
 * thread publish to 16 topics at once (FULL queues of 4, so they block and wake each other), while
 * two subscriber processes each wait for 64 subscriptions (4 per topic) in one wait set, and take
 * fewer events per call than are ready (5; 1 in the second process), and disable and re-enable
 * subscriptions (leaving and rejoining the doorbell; every 7th round, every 3rd in the second
 * process, where a disabled subscription often holds the only message in flight of the drip
 * phase). Drip: then one message at a time goes to a random topic and must be taken by all 8 of
 * its subscriptions before the next: each one is the only event in flight, so a single lost bit or
 * wake-up leaves a subscriber asleep and fails the test (no blocking wait has a timeout that could
 * hide a lost wake-up as a slow one). Every subscription checks that it got every message of every
 * publisher, in order. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "zt_seg.h"
#include "zcast/waitset.h"

#define TOPICS 16
#define PER_TOPIC 4 /* subscriptions per topic and subscriber process */
#define SUBS (TOPICS * PER_TOPIC)
#define PUB_PROCS 3
#define PUBS (PUB_PROCS + 1) /* + a thread in the first subscriber process */
#define PER_PUB_TOPIC 150    /* messages of each publisher to each topic */
#define DRIPS_PER_TOPIC 25
#define DRIPPER PUBS	       /* publisher number of the drip phase */
#define STALL_NS 20000000000ll /* no event for this long = a lost wake-up */

static _Atomic uint64_t *drips_taken; /* shared with the children */

static void topic_opts(zcast_topic_opts *t)
{
	t->max_subscribers = 2 * PER_TOPIC;
	t->max_publishers = PUBS;
	t->max_queue_depth = 4;
	t->history_capacity = 1;
}

static void topic_name(char *buf, size_t n, int t)
{
	snprintf(buf, n, "/bell/t%d", t);
}

/* Publisher number `who` sends PER_PUB_TOPIC messages to every topic, in a shuffled order. */
static int publisher(void *arg)
{
	int who = (int)(intptr_t)arg;
	zcast_pub *p[TOPICS];
	for (int t = 0; t < TOPICS; t++) {
		char name[32];
		topic_name(name, sizeof name, t);
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = 64;
		o.slot_count = 2 * 2 * PER_TOPIC * 4 + 4;
		topic_opts(&o.topic);
		CHECK_EQ(zcast_pub_open(name, &o, &p[t]), 0);
	}
	uint64_t seq[TOPICS] = {0};
	unsigned rnd = 7u + (unsigned)who * 7919u;
	for (int left = TOPICS * PER_PUB_TOPIC; left > 0;) {
		rnd = rnd * 1103515245u + 12345u;
		int t = (int)((rnd >> 8) % TOPICS);
		if (seq[t] == PER_PUB_TOPIC)
			continue;
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p[t], 64, STALL_NS, &m), 0);
		zt_fill(zcast_msg_data(m), 64, seq[t]++, (uint64_t)who);
		CHECK_EQ(zcast_publish_wait(p[t], m, STALL_NS), 0);
		left--;
	}
	for (int t = 0; t < TOPICS; t++)
		CHECK_EQ(zcast_pub_close(p[t]), 0);
	return 0;
}

static void *publisher_thread(void *arg)
{
	publisher(arg);
	return NULL;
}

struct sub_state {
	zcast_sub *s;
	uint64_t next[PUBS + 1]; /* next sequence expected from each publisher */
	uint64_t got;
};

/* Takes everything queued for one subscription, checking order and content. */
static void take_all(struct sub_state *st)
{
	zcast_msg *m;
	int r;
	while ((r = zcast_take(st->s, &m)) == 0) {
		uint64_t seq, who;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &who));
		CHECK(who <= DRIPPER);
		CHECK_EQ(seq, st->next[who]);
		st->next[who]++;
		st->got++;
		if (who == DRIPPER)
			atomic_fetch_add(drips_taken, 1);
		zcast_msg_drop(m);
	}
	CHECK_EQ(r, ZCAST_EAGAIN);
}

struct subscriber_args {
	int ready_w; /* signalled once every subscription is attached */
	int go_r;    /* read before waiting (the publishers are started) */
	bool with_thread;
	int max_events;	   /* per wait: 1 .. 5 */
	int disable_every; /* rounds between two disables */
};

static int subscriber(void *arg)
{
	struct subscriber_args *a = arg;
	static struct sub_state st[SUBS];
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int ids[SUBS];
	for (int i = 0; i < SUBS; i++) {
		char name[32];
		topic_name(name, sizeof name, i / PER_TOPIC);
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.queue_depth = 4;
		topic_opts(&o.topic);
		CHECK_EQ(zcast_sub_open(name, &o, &st[i].s), 0);
		CHECK_EQ(zcast_waitset_add_sub(ws, st[i].s, &st[i], &ids[i]), 0);
	}
	zt_signal(a->ready_w);
	zt_await(a->go_r);
	pthread_t th;
	if (a->with_thread)
		CHECK_EQ(pthread_create(&th, NULL, publisher_thread, (void *)(intptr_t)PUB_PROCS),
			 0);
	const uint64_t want = (uint64_t)PUBS * PER_PUB_TOPIC + DRIPS_PER_TOPIC;
	int complete = 0, disabled = -1, rounds = 0;
	zcast_ws_event ev[5]; /* fewer than are often ready: the rest must stay ready */
	CHECK(a->max_events >= 1 && a->max_events <= 5);
	while (complete < SUBS) {
		/* While a subscription is disabled the wait only polls: in the drip phase its message
		 * can be the only one in flight, and a disabled entry never ends a wait. */
		int n = zcast_waitset_wait(ws, disabled >= 0 ? 0 : STALL_NS, ev, a->max_events);
		if (n == ZCAST_ETIMEDOUT && disabled >= 0) {
			CHECK_EQ(zcast_waitset_enable(ws, ids[disabled], 1), 0);
			disabled = -1;
			continue;
		}
		CHECK(n > 0); /* a timeout here is a lost event */
		for (int k = 0; k < n; k++) {
			struct sub_state *s = ev[k].user;
			CHECK_EQ(ev[k].kind, ZCAST_WS_SUB);
			bool was = s->got == want;
			take_all(s);
			CHECK(s->got <= want);
			complete += !was && s->got == want;
		}
		/* Leave and rejoin the doorbell: what arrives meanwhile is found on re-enable. */
		if (disabled >= 0) {
			CHECK_EQ(zcast_waitset_enable(ws, ids[disabled], 1), 0);
			disabled = -1;
		} else if (++rounds % a->disable_every == 0) {
			disabled = rounds % SUBS;
			if (st[disabled].got < want)
				CHECK_EQ(zcast_waitset_enable(ws, ids[disabled], 0), 0);
			else
				disabled = -1;
		}
	}
	if (a->with_thread)
		CHECK_EQ(pthread_join(th, NULL), 0);
	for (int i = 0; i < SUBS; i++)
		for (int p = 0; p < PUBS; p++)
			CHECK_EQ(st[i].next[p], PER_PUB_TOPIC);
	for (int i = 0; i < SUBS; i++)
		CHECK_EQ(st[i].next[DRIPPER], DRIPS_PER_TOPIC);
	zcast_waitset_destroy(ws);
	for (int i = 0; i < SUBS; i++)
		CHECK_EQ(zcast_sub_close(st[i].s), 0);
	return 0;
}

/* One message at a time, each taken by all of its topic's subscriptions before the next. */
static void drip(void)
{
	zcast_pub *p[TOPICS];
	for (int t = 0; t < TOPICS; t++) {
		char name[32];
		topic_name(name, sizeof name, t);
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = 64;
		o.slot_count = 4;
		topic_opts(&o.topic);
		CHECK_EQ(zcast_pub_open(name, &o, &p[t]), 0);
	}
	uint64_t seq[TOPICS] = {0};
	unsigned rnd = 4242u;
	for (int i = 0; i < TOPICS * DRIPS_PER_TOPIC;) {
		rnd = rnd * 1103515245u + 12345u;
		int t = (int)((rnd >> 8) % TOPICS);
		if (seq[t] == DRIPS_PER_TOPIC)
			continue;
		zcast_msg *m;
		CHECK_EQ(zcast_loan_wait(p[t], 64, STALL_NS, &m), 0);
		zt_fill(zcast_msg_data(m), 64, seq[t]++, DRIPPER);
		CHECK_EQ(zcast_publish_wait(p[t], m, STALL_NS), 0);
		i++;
		uint64_t want = (uint64_t)i * 2 * PER_TOPIC;
		int64_t until = zt_now_ns() + STALL_NS;
		while (atomic_load(drips_taken) < want && zt_now_ns() < until)
			sched_yield();
		CHECK_EQ(atomic_load(drips_taken), want); /* else a subscriber slept through it */
	}
	for (int t = 0; t < TOPICS; t++)
		CHECK_EQ(zcast_pub_close(p[t]), 0);
}

int main(void)
{
	zt_setup("doorbell_stress", 280);
	drips_taken = mmap(NULL, sizeof *drips_taken, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(drips_taken != MAP_FAILED);
	int ready[2], go[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(go), 0);
	struct subscriber_args a1 = {ready[1], go[0], true, 5, 7};
	struct subscriber_args a2 = {ready[1], go[0], false, 1, 3};
	pid_t s1 = zt_fork(subscriber, &a1), s2 = zt_fork(subscriber, &a2);
	zt_await(ready[0]);
	zt_await(ready[0]);
	pid_t pubs[PUB_PROCS];
	for (int i = 0; i < PUB_PROCS; i++)
		pubs[i] = zt_fork(publisher, (void *)(intptr_t)i);
	zt_signal(go[1]);
	zt_signal(go[1]);
	for (int i = 0; i < PUB_PROCS; i++)
		CHECK_CHILD_OK(pubs[i]);
	drip();
	CHECK_CHILD_OK(s1);
	CHECK_CHILD_OK(s2);
	printf("ok %d publishers x %d topics -> 2 x %d subscriptions, nothing lost\n", PUBS, TOPICS,
	       SUBS);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
