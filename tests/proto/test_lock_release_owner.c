/* Issue 22, item 17: zc_lock_release clears the lock word only while it still names the caller's
 * acquisition. A holder paused under the lock (ZCAST_PAUSE_AT=lock:held, test builds) finds, when
 * it releases, that the word names another member (a locker that judged it dead took over, or a
 * scribble): it must leave that word alone. Before, it cleared it: a lock somebody else held was
 * freed, and two processes could be inside at once. */
#include "zt_hostile.h"
#include "zt_pause.h"

#define TOPIC "/lock/owner"

static int to_parent[2], to_child[2];
static struct zt_hold hold;

static int holder(void *arg)
{
	(void)arg;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	zt_hold_at(&hold, "lock:held");
	zt_publish(p, 1, 32); /* held holding the lock until the test forged the word */
	unsetenv("ZCAST_PAUSE_AT");
	zt_signal(to_parent[1]);
	zt_await(to_child[0]); /* the test gave the lock word back */
	zcast_pub_close(p);
	return 0;
}

int main(void)
{
	zt_setup("lockowner", 60);
	CHECK_EQ(pipe(to_parent), 0);
	CHECK_EQ(pipe(to_child), 0);
	zt_hold_init(&hold);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0);
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	pid_t pid = zt_fork(holder, NULL);
	zt_hold_reached(&hold);
	CHECK(ZC_LOCK_LOW(atomic_load(&h->lock.word)) != 0); /* the publisher holds the lock */
	/* Another member's acquisition: our subscriber's member index, a newer epoch. */
	struct zc_sub_rec *r = zt_sub_rec(h, zcast_sub_id(s));
	CHECK(r != NULL);
	uint32_t other = h->max_pubs + zt_sub_index(h, r) + 1;
	uint64_t was = atomic_load(&h->lock.word);
	uint64_t forged = ZC_LOCK_MAKE(ZC_LOCK_EPOCH(was) + 1, other);
	atomic_store(&h->lock.word, forged);
	zt_hold_release(&hold);
	zt_await(to_parent[0]); /* the holder released */
	uint64_t now = atomic_load(&h->lock.word);
	printf("lock word %016llx -> forged %016llx -> after the old holder's release %016llx\n",
	       (unsigned long long)was, (unsigned long long)forged, (unsigned long long)now);
	CHECK_EQ(now & ~(uint64_t)ZC_LOCK_WAITERS, forged);
	atomic_store(&h->lock.word, ZC_LOCK_MAKE(ZC_LOCK_EPOCH(now), 0));
	zt_signal(to_child[1]);
	CHECK_CHILD_OK(pid);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
