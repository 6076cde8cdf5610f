/* Issue 10, finding 2: crash recovery must read the intent's `drop_sub` once. A publisher is killed
 * at the crash point publish:after-drop-cas (it holds the topic lock and its intent names the ring
 * it was dropping from); a second subscriber holds the dropped message, so its slot stays PUBLISHED
 * and recovery really clears a holder bit. The test keeps the dead holder's intent and a child runs
 * the next locker (zcast_topic_gc) again and again, restoring that intent and a lock word before
 * each call, while a scribbler thread flips `intent.drop_sub` between the real ring and indexes far
 * outside the subscriber records. Required: the recovering process never crashes.
 *
 * The restored lock word names no member at all (an index past the records): the lock treats it
 * like a dead owner at once, where a dead member's word costs a 2 ms probe per round; the race
 * needs tens of thousands of rounds. */
#include "zt_hostile.h"

#define TOPIC "/hostile/dropsub"
#define ROUNDS ZT_SCRIBBLE_ROUNDS(50000)

static int publisher_main(void *arg)
{
	(void)arg;
	setenv("ZCAST_CRASH_AT", "publish:after-drop-cas", 1);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	zt_publish(p, 1, 64); /* fills the depth-1 ring */
	zt_publish(p, 2, 64); /* drops the first: dies after the drop CAS */
	return 0;
}

static struct zc_topic_hdr *h;
static struct zc_intent saved_intent;
static uint32_t bogus_lock, real_sub;
static atomic_int stop;

static void *scribbler(void *arg)
{
	(void)arg;
	volatile uint32_t *ds = &h->intent.drop_sub.v;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		*ds = real_sub;
		*ds = 0x100000;
		*ds = real_sub;
		*ds = 0x7ffffff0;
	}
	return NULL;
}

static int locker_main(void *arg)
{
	(void)arg;
	int recovered = 0;
	for (int i = 0; i < ROUNDS; i++) {
		memcpy(&h->intent, &saved_intent, sizeof saved_intent);
		atomic_store(&h->lock.word, bogus_lock);
		int r = zcast_topic_gc(NULL, TOPIC);
		CHECK(r >= 0 || (r < 0 && r >= ZCAST_EBUSY));
		recovered += h->intent.op == ZC_OP_NONE;
	}
	printf("%d of %d rounds ran the recovery\n", recovered, ROUNDS);
	CHECK(recovered > 0);
	return 0;
}

int main(void)
{
	zt_setup("hdropsub", 280);
	/* No death watcher here: it would repair the dead publisher's intent (a 2 ms lock probe after
	 * the exit) before this test could save it, whenever the test is slow to get there. */
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = ZCAST_POLICY_DROP_OLD;
	so.queue_depth = 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	so.policy = ZCAST_POLICY_FULL;
	so.queue_depth = 4;
	zcast_sub *keeper = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &keeper), 0);
	h = zt_map_topic(TOPIC, NULL);

	pid_t pub = zt_fork(publisher_main, NULL);
	int st = zt_wait_bounded(pub, 20000, "publisher with a crash point");
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		fprintf(stderr,
			"FAIL: the publisher did not die at publish:after-drop-cas (status 0x%x)\n",
			st);
		zt_fail();
	}
	memcpy(&saved_intent, &h->intent, sizeof saved_intent);
	CHECK(atomic_load(&h->lock.word) != 0); /* the dead publisher holds the lock */
	bogus_lock = h->n_members + 7;
	real_sub = saved_intent.drop_sub.v;
	CHECK(real_sub < h->max_subs);
	zcast_msg *kept;
	CHECK_EQ(zcast_take(keeper, &kept), 0); /* message 1, the one being dropped from the ring */

	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, scribbler, NULL), 0);
	pid_t locker = zt_fork(locker_main, NULL);
	st = zt_wait_bounded(locker, 250000, "recovery under a drop_sub scribbler");
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "FAIL: the recovering process was killed by signal %d (%s)\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		zt_fail();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The topic works after the last recovery. */
	h->intent.drop_sub.v = ZC_NO_SUB;
	CHECK(zcast_topic_gc(NULL, TOPIC) >= 0);
	zcast_msg *m;
	while (zcast_take(s, &m) == 0)
		zcast_msg_drop(m);
	zcast_msg_drop(kept);
	zcast_sub_close(keeper);
	zcast_sub_close(s);
	printf("ok %d recoveries under the scribbler\n", ROUNDS);
	return 0;
}
