/* zcast_pub_last_mark after a publisher died inside its publish: the mark is the newest marked
 * message that a subscriber's queue or the history got, whether the repair found it still queued
 * or already taken and released (its slot free again). A child publishes messages 1..3 marked
 * 1..3 and is killed (ZCAST_CRASH_AT) inside its third publish; the parent, without a death
 * watcher (so the repair is the next locker's: zcast_pub_last_mark's own), first takes everything
 * queued, then asks for the mark. Before the mark existed a relay could not tell the cases apart
 * (zcast-bridge delivered message 3 again after a kill at publish:after-push). */
#include "zt_hostile.h"

static char topic[32]; /* a new one for each crash */

static int publisher_main(void *arg)
{
	const int *history = arg;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 8;
	o.history_depth = (uint32_t)*history;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	for (uint32_t i = 1; i <= 3; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 64, &m), 0);
		zt_fill(zcast_msg_data(m), 64, i, zcast_pub_id(p));
		CHECK_EQ(zcast_msg_set_mark(m, i), 0);
		CHECK_EQ(zcast_publish(p, m), 0);
	}
	zcast_pub_close(p);
	return 0;
}

/* The newest message a subscriber holds queued (0: none), everything taken and released. */
static uint64_t newest(zcast_sub *s)
{
	uint64_t last = 0, seq;
	zcast_msg *m;
	while (zcast_take(s, &m) == 0) {
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL));
		last = seq;
		zcast_msg_drop(m);
	}
	return last;
}

/* Kills the publisher at `point` (its n-th hit) with `subs` subscribers and a history of `history`;
 * checks each subscriber's newest message and the topic's last mark. */
static void crash_at(const char *point, int nth, int subs, int history, uint64_t want_newest[2],
		     uint32_t want_mark)
{
	static int n_topics;
	snprintf(topic, sizeof topic, "/mark%d", ++n_topics);
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1);
	zcast_sub *s[2] = {NULL, NULL};
	for (int k = 0; k < subs; k++)
		CHECK_EQ(zcast_sub_open(topic, NULL, &s[k]), 0);
	char at[80];
	snprintf(at, sizeof at, "%s:%d", point, nth);
	setenv("ZCAST_CRASH_AT", at, 1);
	pid_t pub = zt_fork(publisher_main, &history);
	unsetenv("ZCAST_CRASH_AT");
	int st = zt_wait_bounded(pub, 20000, "publisher with a crash point");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (int k = 0; k < subs; k++) {
		uint64_t got = newest(s[k]);
		if (got != want_newest[k]) {
			fprintf(stderr, "FAIL: %s: subscriber %d's newest is %llu, not %llu\n", at, k,
				(unsigned long long)got, (unsigned long long)want_newest[k]);
			zt_fail();
		}
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	uint32_t mark = 99;
	CHECK_EQ(zcast_pub_last_mark(p, &mark), 0);
	printf("%s, %d subscriber(s), history %d: last mark %u\n", at, subs, history, mark);
	if (mark != want_mark) {
		fprintf(stderr, "FAIL: %s: last mark %u, want %u\n", at, mark, want_mark);
		zt_fail();
	}
	CHECK_EQ(zcast_pub_close(p), 0);
	for (int k = 0; k < subs; k++)
		CHECK_EQ(zcast_sub_close(s[k]), 0);
}

static void before_visible(void) /* the third publish reaches nobody: mark 2 */
{
	static const char *const points[] = {"publish:after-intent", "publish:after-bits",
					     "publish:after-state"};
	for (int i = 0; i < 3; i++)
		crash_at(points[i], 3, 1, 0, (uint64_t[2]){2, 0}, 2);
}

static void queued_then_taken(void) /* queued, taken and released before the repair: mark 3 */
{
	crash_at("publish:after-push", 3, 1, 0, (uint64_t[2]){3, 0}, 3);
}

static void after_unlock(void)
{
	crash_at("publish:before-wake", 3, 1, 0, (uint64_t[2]){3, 0}, 3);
}

/* Two subscribers, killed after the first push of the third publish (5th push): the first keeps
 * it, the second never gets it; the mark says it reached somebody. */
static void between_pushes(void)
{
	crash_at("publish:after-push", 5, 2, 0, (uint64_t[2]){3, 2}, 3);
}

static void history_only(void) /* no subscriber: the history holds it, or not */
{
	crash_at("publish:after-history", 3, 0, 1, (uint64_t[2]){0, 0}, 3);
	crash_at("publish:after-state", 3, 0, 1, (uint64_t[2]){0, 0}, 2);
}

int main(void)
{
	zt_setup("pubmark", 120);
	static const struct zt_case cases[] = {ZT_CASE(before_visible), ZT_CASE(queued_then_taken),
					       ZT_CASE(after_unlock), ZT_CASE(between_pushes),
					       ZT_CASE(history_only)};
	return zt_run_cases(cases, 5, 60);
}
