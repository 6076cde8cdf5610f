/* A live publisher that holds the topic lock as long as the test wants: forked, it opens a
 * publisher and publishes held under the lock (ZCAST_PAUSE_AT=lock:held:hold:<fd>, test builds),
 * as one descheduled on a loaded machine can. Released, it closes and exits; or, with `stay`, it
 * stays (handle open, no close that could make others reclaim) until zt_lock_holder_end. */
#ifndef ZT_LOCK_HOLDER_H
#define ZT_LOCK_HOLDER_H

#include <pthread.h>

#include "zt_hostile.h"
#include "zt_pause.h"

struct zt_lock_holder {
	const char *topic;
	bool stay;
	struct zt_hold hold;
	pid_t pid;
	int release_after_ms;
	pthread_t releaser;
	bool joined;
};

static int zt_lock_holder_main(void *arg)
{
	struct zt_lock_holder *lh = arg;
	zcast_pub *p = zt_open_pub(lh->topic, 64, 4);
	zt_hold_at(&lh->hold, "lock:held");
	zt_publish(p, 1, 32); /* held holding the lock */
	unsetenv("ZCAST_PAUSE_AT");
	char c;
	if (lh->stay && read(lh->hold.held_end, &c, 1) != 1)
		return 1;
	zcast_pub_close(p);
	return 0;
}

/* Returns once the holder holds the lock of `topic`. */
static inline void zt_lock_holder_start(struct zt_lock_holder *lh, const char *topic, bool stay)
{
	*lh = (struct zt_lock_holder){.topic = topic, .stay = stay};
	zt_hold_init(&lh->hold);
	lh->pid = zt_fork(zt_lock_holder_main, lh);
	zt_hold_reached(&lh->hold);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(topic, &size);
	CHECK(ZC_LOCK_LOW(atomic_load(&h->lock.word)) != 0);
	munmap(h, size);
}

static void *zt_lock_holder_releaser(void *arg)
{
	struct zt_lock_holder *lh = arg;
	zt_sleep_ms(lh->release_after_ms);
	zt_hold_release(&lh->hold);
	return NULL;
}

/* Lets the holder go `ms` from now (from a thread: the caller may wait for the lock meanwhile).
 * Past the topic lock's own 2 s timeout, that is what the test shows. */
static inline void zt_lock_holder_release_after(struct zt_lock_holder *lh, int ms)
{
	lh->release_after_ms = ms;
	CHECK_EQ(pthread_create(&lh->releaser, NULL, zt_lock_holder_releaser, lh), 0);
}

/* Waits until the holder was let go (it may not have unlocked yet). */
static inline void zt_lock_holder_released(struct zt_lock_holder *lh)
{
	if (!lh->joined)
		CHECK_EQ(pthread_join(lh->releaser, NULL), 0);
	lh->joined = true;
}

/* Waits for the release and for the holder's clean exit. */
static inline void zt_lock_holder_end(struct zt_lock_holder *lh)
{
	zt_lock_holder_released(lh);
	if (lh->stay)
		zt_hold_release(&lh->hold);
	CHECK_CHILD_OK(lh->pid);
}

#endif
