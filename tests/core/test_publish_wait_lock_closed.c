/* A zcast_publish_wait(-1) that keeps trying for a topic lock a live member holds past the lock's
 * own 2 s timeout (test publish_wait_lock_held) stops trying once its publisher is closed: a close
 * from another thread ends the wait, with ZCAST_ESTALE, while the lock is still held (at once, not
 * at the end of the try under way: test publish_wait_close_prompt). Were the close not seen by the
 * wait, it would last until the holder let go, which here comes only after the wait returned: the
 * watchdog fails the test. */
#include <sys/syscall.h>

#include "zt_lock_holder.h"

#define TOPIC "/lock/closed"

struct waiter {
	zcast_pub *p;
	zcast_msg *m;
	_Atomic pid_t tid;
	int r;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	w->r = zcast_publish_wait(w->p, w->m, -1);
	return NULL;
}

int main(void)
{
	zt_setup("lockclosed", 60);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, false);
	struct waiter w = {.p = p};
	CHECK_EQ(zcast_loan(p, 32, &w.m), 0);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, &size);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, wait_main, &w), 0);
	/* Asleep on the lock word, which says a locker waits: in its first try for the lock. */
	ZT_EVENTUALLY(atomic_load(&w.tid) && zt_futex_asleep(getpid(), atomic_load(&w.tid)) &&
		      (ZC_LOCK_LOW(atomic_load(&h->lock.word)) & ZC_LOCK_WAITERS));
	CHECK_EQ(zcast_pub_close(p), 0); /* the loan keeps the handle until it is dropped */
	CHECK_EQ(pthread_join(th, NULL), 0);
	printf("zcast_publish_wait(-1) behind a held lock, publisher closed: %d (%s)\n", w.r,
	       zcast_strerror(w.r));
	CHECK_EQ(w.r, ZCAST_ESTALE);
	CHECK(ZC_LOCK_LOW(atomic_load(&h->lock.word)) != 0); /* ended by the close, not a release */
	munmap(h, size);
	zt_lock_holder_release_after(&lh, 0);
	zt_lock_holder_end(&lh);
	zcast_msg_drop(w.m); /* the last reference: the publisher leaves */
	printf("ok\n");
	return 0;
}
