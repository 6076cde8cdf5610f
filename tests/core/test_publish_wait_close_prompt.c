/* A close ends a zcast_publish_wait that waits for a topic lock another process holds at once, in
 * the middle of the lock's 2 s try, with ZCAST_ESTALE, while the lock is still held. Before, the
 * waiter noticed the close only when its try timed out, and before that it waited until the
 * holder let go (no close was asked about between tries).
 *
 * Told apart by the order of events, not by time: the test process holds itself at the point a
 * wait reaches when it finds itself called off only after a try timed out
 * (ZCAST_PAUSE_AT=lock:stopped-after-try:hold, src/proto/topic_lock.c). The test then waits for
 * whichever comes first: the waiter's return (pass) or its arrival at that point (fail). The
 * holder never lets go before the waiter returned, so the wait cannot end by getting the lock. */
#include <poll.h>
#include <sys/syscall.h>

#include "zt_lock_holder.h"

#define TOPIC "/lock/prompt"

struct waiter {
	zcast_pub *p;
	zcast_msg *m;
	_Atomic pid_t tid;
	int r;
	int done[2]; /* a byte when zcast_publish_wait returned */
};

/* Asleep in a wait: on a futex, or, where futex_waitv is refused (the _nowaitv run), in the
 * fallback's short sleeps between checks of its two words. */
static bool asleep(pid_t tid)
{
	return zt_futex_asleep(getpid(), tid) || zt_wchan_has(getpid(), tid, "nanosleep");
}

static void *wait_main(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	w->r = zcast_publish_wait(w->p, w->m, -1);
	char c = 1;
	CHECK_EQ(write(w->done[1], &c, 1), 1);
	return NULL;
}

int main(void)
{
	zt_setup("lockprompt", 60);
	struct zt_hold late;
	zt_hold_init(&late);
	zt_hold_own(&late, "lock:stopped-after-try"); /* before the library starts a thread */
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, false);
	struct waiter w = {.p = p};
	CHECK_EQ(pipe(w.done), 0);
	CHECK_EQ(zcast_loan(p, 32, &w.m), 0);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, &size);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, wait_main, &w), 0);
	/* Asleep on the lock word, which says a locker waits: inside a try for the lock. */
	ZT_EVENTUALLY(atomic_load(&w.tid) && asleep(atomic_load(&w.tid)) &&
		      (ZC_LOCK_LOW(atomic_load(&h->lock.word)) & ZC_LOCK_WAITERS));
	CHECK_EQ(zcast_pub_close(p), 0); /* the loan keeps the handle until it is dropped */
	struct pollfd pf[2] = {{.fd = w.done[0], .events = POLLIN},
			       {.fd = late.test_end, .events = POLLIN}};
	CHECK(poll(pf, 2, -1) >= 1);
	if (pf[1].revents) {
		fprintf(stderr,
			"FAIL: the closed publisher's wait went on to the end of its lock try\n");
		zt_hold_release(&late);
		CHECK(!pf[1].revents);
	}
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
