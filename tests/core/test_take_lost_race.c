/* Issue 22, item 1: a take that loses a race looks again. The subscriber (DROP_OLD, depth 1) is
 * held between checking its entry's slot and mapping that pool's payload (ZCAST_PAUSE_AT, test
 * builds); meanwhile publisher B's publish drops the entry, the slot goes back, publisher A has
 * closed, and a gc unlinks A's orphaned pool. The take must then return B's message (or
 * ZCAST_EAGAIN): before, it returned ZCAST_ENOMEM ("out of memory, or /dev/shm full"), the error the
 * chaos test saw under ASan. */
#include <stdbool.h>

#include "zt_hostile.h"
#include "zt_pause.h"

#define TOPIC "/take/race"

static int to_parent[2], to_child[2];
static struct zt_hold hold; /* the take stays at the point until the race is set up */

static int subscriber(void *arg)
{
	(void)arg;
	zt_hold_at(&hold, "take:before-payload");
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = ZCAST_POLICY_DROP_OLD;
	so.queue_depth = 1;
	zcast_sub *s = NULL;
	if (zcast_sub_open(TOPIC, &so, &s) != 0)
		return 2;
	zt_signal(to_parent[1]);
	zt_await(to_child[0]); /* A's message is queued */
	zcast_msg *m = NULL;
	int r = zcast_take(s, &m);
	printf("take after the lost race: %d (%s)\n", r, r ? zcast_last_error() : "a message");
	uint64_t seq = 0;
	if (r == 0 && (!zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, NULL) || seq != 10))
		return 3;
	zcast_msg_drop(m);
	zcast_sub_close(s);
	return r == 0 || r == ZCAST_EAGAIN ? 0 : 1;
}

int main(void)
{
	zt_setup("takerace", 60);
	CHECK_EQ(pipe(to_parent), 0);
	CHECK_EQ(pipe(to_child), 0);
	zt_hold_init(&hold);
	pid_t sub = zt_fork(subscriber, NULL);
	zt_await(to_parent[0]);
	zcast_pub *a = zt_open_pub(TOPIC, 64, 4);
	zt_publish(a, 1, 32);
	zcast_pub_close(a); /* orphaned: kept while its message is queued */
	zt_signal(to_child[1]);
	zt_hold_reached(&hold);
	zcast_pub *b = zt_open_pub(TOPIC, 64, 4);
	zt_publish(b, 10, 32); /* drops A's entry: its slot goes back */
	CHECK(zcast_topic_gc(NULL, TOPIC) >= 0); /* A's pool, orphaned and all free, is unlinked */
	CHECK_EQ(zt_pool_count(), 1);
	zt_hold_release(&hold);
	CHECK_CHILD_OK(sub);
	zcast_pub_close(b);
	printf("ok\n");
	return 0;
}
