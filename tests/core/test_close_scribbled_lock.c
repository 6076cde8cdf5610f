/* A close waits for a slow live holder of the topic lock (close_lock_held), but not for ever: a
 * scribbled lock word naming a live member that does not hold the lock never moves, and here it
 * names this very process's subscriber. The publisher's close must return (after its 30 s
 * patience; the harness's watchdog ends a hang), leave its record to a later reclaim, and the topic
 * must work again once the word is repaired. */
#include "zt_hostile.h"

#define TOPIC "/close/scribbled"

int main(void)
{
	zt_setup("closescrib", 120);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	size_t hsize;
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, &hsize);
	atomic_store(&h->lock.word, h->max_pubs + 1u); /* owner: our subscriber's record */
	int64_t t0 = zt_now_ns();
	CHECK_EQ(zcast_pub_close(p), 0);
	printf("close returned after %.1f s with the word scribbled\n", (zt_now_ns() - t0) / 1e9);
	atomic_store(&h->lock.word, 0);
	zcast_pub *p2 = zt_open_pub(TOPIC, 64, 4);
	for (uint64_t i = 1; i <= 3; i++)
		zt_publish(p2, i, 32);
	CHECK_EQ(zt_drain(s), 3);
	zcast_pub_close(p2);
	zcast_sub_close(s);
	munmap(h, hsize);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
