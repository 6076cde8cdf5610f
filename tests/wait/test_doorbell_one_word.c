/* A wait set of 1024 subscriptions (8 topics x 128 subscribers, each its own handle) sleeps on ONE
 * futex word, its doorbell, and wakes up reporting exactly the subscribers a publish reached. With
 * the doorbell turned off ($ZCAST_NO_DOORBELL=1, in a child) the same wait set sleeps on one word
 * per topic: the doorbell is what makes the difference. A guard rings the doorbell too (no word of
 * its own); without the doorbell it adds its own word. */
#include <pthread.h>
#include <sys/resource.h>

#include "zt_seg.h"
#include "zt_skip.h"
#include "zcast/waitset.h"

#define TOPICS 8
#define PER_TOPIC 128
#define SUBS (TOPICS * PER_TOPIC)
#define WAIT_NS 10000000000ll

struct bed {
	zcast_pub *pub[TOPICS];
	zcast_sub *sub[SUBS];
	zcast_waitset *ws;
	zcast_guard *guard;
};

static void topic_opts(zcast_topic_opts *t)
{
	t->max_subscribers = PER_TOPIC;
	t->max_publishers = 2;
	t->max_queue_depth = 4;
	t->history_capacity = 1;
}

static void open_all(struct bed *B)
{
	CHECK_EQ(zcast_waitset_create(&B->ws), 0);
	for (int t = 0; t < TOPICS; t++) {
		char name[32];
		snprintf(name, sizeof name, "/one/t%d", t);
		zcast_pub_opts po;
		zcast_pub_opts_init(&po);
		po.slot_size = 64;
		po.slot_count = 8;
		topic_opts(&po.topic);
		CHECK_EQ(zcast_pub_open(name, &po, &B->pub[t]), 0);
		for (int j = 0; j < PER_TOPIC; j++) {
			zcast_sub_opts so;
			zcast_sub_opts_init(&so);
			so.queue_depth = 4;
			topic_opts(&so.topic);
			int i = t * PER_TOPIC + j, id;
			CHECK_EQ(zcast_sub_open(name, &so, &B->sub[i]), 0);
			CHECK_EQ(zcast_waitset_add_sub(B->ws, B->sub[i], (void *)(intptr_t)i, &id),
				 0);
		}
	}
}

static void close_all(struct bed *B)
{
	zcast_waitset_destroy(B->ws);
	for (int i = 0; i < SUBS; i++)
		CHECK_EQ(zcast_sub_close(B->sub[i]), 0);
	for (int t = 0; t < TOPICS; t++)
		CHECK_EQ(zcast_pub_close(B->pub[t]), 0);
}

static void *publish_later(void *arg)
{
	zcast_pub *p = arg;
	zt_sleep_ms(
	    50); /* the wait below is asleep by then (if not, it finds the message at once) */
	zt_publish(p, 1, 64);
	return NULL;
}

/* One publish to topic t, while the wait sleeps: exactly its PER_TOPIC subscribers are reported. */
static void wake_on_topic(struct bed *B, int t)
{
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, publish_later, B->pub[t]), 0);
	static zcast_ws_event ev[SUBS];
	int n = zcast_waitset_wait(B->ws, WAIT_NS, ev, SUBS);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(n, PER_TOPIC);
	for (int k = 0; k < n; k++) {
		int i = (int)(intptr_t)ev[k].user;
		CHECK_EQ(ev[k].kind, ZCAST_WS_SUB);
		CHECK_EQ(i / PER_TOPIC, t);
		CHECK_EQ(zt_drain(B->sub[i]), 1);
	}
	CHECK_EQ(zcast_waitset_wait(B->ws, 0, ev, SUBS), ZCAST_ETIMEDOUT);
}

static void run(int expect_words, int guard_words)
{
	struct bed *B = calloc(1, sizeof *B);
	CHECK(B);
	open_all(B);
	zcast_ws_event ev[4];
	CHECK_EQ(zcast_waitset_last_words(B->ws), 0);
	CHECK_EQ(zcast_waitset_wait(B->ws, 1000000, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_last_words(B->ws), expect_words);
	wake_on_topic(B, 0);
	wake_on_topic(B, TOPICS - 1);
	CHECK_EQ(zcast_waitset_last_words(B->ws), expect_words);
	/* A guard rings the doorbell; without it, it is a word of its own. */
	int gid;
	CHECK_EQ(zcast_guard_create(&B->guard), 0);
	CHECK_EQ(zcast_waitset_add_guard(B->ws, B->guard, NULL, &gid), 0);
	CHECK_EQ(zcast_waitset_wait(B->ws, 1000000, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_last_words(B->ws), expect_words + guard_words);
	wake_on_topic(B, 3);
	CHECK_EQ(zcast_guard_trigger(B->guard), 0);
	CHECK_EQ(zcast_waitset_wait(B->ws, WAIT_NS, ev, 4), 1);
	CHECK_EQ(ev[0].kind, ZCAST_WS_GUARD);
	CHECK_EQ(ev[0].id, gid);
	CHECK_EQ(zcast_waitset_remove(B->ws, gid), 0);
	zcast_guard_destroy(B->guard);
	close_all(B);
	free(B);
}

static int no_doorbell(void *arg)
{
	(void)arg;
	setenv("ZCAST_NO_DOORBELL", "1", 1);
	run(TOPICS, 1); /* subscribers of one topic share its notify word */
	return 0;
}

int main(void)
{
	zt_setup("doorbell_one_word", 120);
	struct rlimit rl;
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < SUBS + 128) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < SUBS + 128) {
			zt_skip_part("everything", "RLIMIT_NOFILE %lu < %d, cannot be raised",
				     (unsigned long)rl.rlim_cur, SUBS + 128);
			return zt_status();
		}
	}
	run(1, 0);
	printf("ok 1024 subscriptions and a guard, one word\n");
	CHECK_CHILD_OK(zt_fork(no_doorbell, NULL));
	printf("ok without the doorbell: one word per topic\n");
	CHECK_EQ(zt_shm_count(), 0);
	return zt_status();
}
