/* Sleeping on many futex words at once (docs/WAITSETS.md, "futex_waitv and its limits").
 *
 * futex_waitv (Linux >= 5.16) sleeps on up to 128 words, shared and private mixed, in one syscall.
 * Beyond 128 words the caller's own waitv takes 127 words plus a private `fired` word, and helper
 * thread c (persistent, one per extra chunk of 127 words) sleeps on chunk c plus the private `round`
 * word; when one of its words changes it bumps `fired`, waking the caller. The caller ends the round
 * by bumping `round`, which releases the helpers. Helpers cost nothing to publishers: the words are
 * the same ones, armed the same way.
 *
 * Where the kernel, valgrind or a seccomp filter refuses futex_waitv (ENOSYS / EPERM), one word is
 * still an exact FUTEX_WAIT; several words fall back to checking them with a bounded backoff
 * (20 us doubling to 1 ms): correct, but it adds up to 1 ms latency and wakes the CPU while idle. */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os_internal.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

#define POLL_MIN_NS 20000
#define POLL_MAX_NS 1000000

struct zc_mw_helper {
	pthread_t th;
	struct zc_mwait *mw;
	uint32_t chunk;
};

static _Atomic int waitv_state; /* 0 unknown, 1 usable, 2 refused */

static long sys_waitv(struct futex_waitv *v, uint32_t n, int64_t abs_deadline_ns)
{
	struct timespec ts, *tp = NULL;
	if (abs_deadline_ns >= 0) {
		ts = zc_ts(abs_deadline_ns);
		tp = &ts;
	}
	return syscall(SYS_futex_waitv, v, n, 0, tp, CLOCK_MONOTONIC);
}

bool zc_waitv_available(void)
{
	int s = atomic_load_explicit(&waitv_state, memory_order_relaxed);
	if (s)
		return s == 1;
	const char *env = getenv("ZCAST_NO_FUTEX_WAITV");
	if (env && env[0] == '1') {
		s = 2;
	} else {
		/* A value mismatch answers EAGAIN at once when the syscall exists and is allowed. */
		_Atomic uint32_t probe = 1;
		struct futex_waitv v = {.val = 0, .uaddr = (uintptr_t)&probe,
					.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG};
		long r = sys_waitv(&v, 1, -1);
		s = (r < 0 && (errno == ENOSYS || errno == EPERM)) ? 2 : 1;
	}
	atomic_store_explicit(&waitv_state, s, memory_order_relaxed);
	return s == 1;
}

static void fill(struct futex_waitv *v, const struct zc_wword *w)
{
	v->val = w->val;
	v->uaddr = (uintptr_t)w->word;
	v->flags = FUTEX_32 | (w->is_private ? FUTEX_PRIVATE_FLAG : 0);
	v->__reserved = 0;
}

/* Maps a futex_waitv result to 0 (re-check), ZCAST_ETIMEDOUT or an error. */
static int classify(long r)
{
	if (r >= 0 || errno == EAGAIN || errno == EINTR)
		return 0;
	if (errno == ETIMEDOUT)
		return ZCAST_ETIMEDOUT;
	if (errno == ENOSYS || errno == EPERM) {
		/* Refused after the probe (a seccomp filter installed later): fall back from now on. */
		atomic_store(&waitv_state, 2);
		return 0;
	}
	return zc_errno(ZCAST_ESYS, "futex_waitv");
}

ZC_HOT static int poll_words(const struct zc_wword *w, uint32_t n, int64_t deadline)
{
	if (n == 1) {
		int r = w[0].is_private ? zc_futex_wait_private(w[0].word, w[0].val, deadline)
					: zc_futex_wait(w[0].word, w[0].val, deadline);
		return r == ZCAST_ETIMEDOUT ? r : 0;
	}
	int64_t step = POLL_MIN_NS;
	for (;;) {
		for (uint32_t i = 0; i < n; i++)
			if (atomic_load_explicit(w[i].word, memory_order_seq_cst) != w[i].val)
				return 0;
		int64_t now = zc_now_ns();
		if (deadline >= 0 && now >= deadline)
			return ZCAST_ETIMEDOUT;
		int64_t s = step;
		if (deadline >= 0 && deadline - now < s)
			s = deadline - now;
		struct timespec ts = zc_ts(s);
		nanosleep(&ts, NULL);
		step = step * 2 > POLL_MAX_NS ? POLL_MAX_NS : step * 2;
	}
}

static void *helper_main(void *arg)
{
	struct zc_mw_helper *hp = arg;
	struct zc_mwait *mw = hp->mw;
	struct futex_waitv v[ZC_WAITV_MAX];
	for (;;) {
		pthread_mutex_lock(&mw->mu);
		/* SYNC: mw-round: the round and its words read under mu; partner zc_mwait_wait's words then
		 * round bump under mu (the futex compare on `round` catches a bump after we unlock). */
		uint32_t r = atomic_load(&mw->round), n = 0;
		if (atomic_load(&mw->quit)) {
			pthread_mutex_unlock(&mw->mu);
			return NULL;
		}
		if (r & 1u)
			for (uint32_t i = hp->chunk * ZC_CHUNK; i < mw->n_words && n < ZC_CHUNK; i++)
				fill(&v[n++], &mw->words[i]);
		pthread_mutex_unlock(&mw->mu);
		if (n == 0) { /* idle, or this round has no words for us */
			zc_futex_wait_private(&mw->round, r, -1);
			continue;
		}
		/* The round word in the same waitv: the end of the round releases us at once. */
		struct zc_wword rw = {&mw->round, r, 1};
		fill(&v[n++], &rw);
		sys_waitv(v, n, -1);
		if (atomic_load(&mw->round) == r) {
			/* One of our words changed (or a signal): the caller re-checks everything. */
			/* SYNC: mw-fired; partner zc_mwait_wait's read of `fired` before the round starts. */
			atomic_fetch_add(&mw->fired, 1);
			zc_futex_wake_private(&mw->fired, 1);
			zc_futex_wait_private(&mw->round, r, -1); /* until this round ends */
		}
	}
}

void zc_mwait_init(struct zc_mwait *mw)
{
	memset(mw, 0, sizeof *mw);
	pthread_mutex_init(&mw->mu, NULL);
}

void zc_mwait_fini(struct zc_mwait *mw)
{
	atomic_store(&mw->quit, 1);
	pthread_mutex_lock(&mw->mu);
	atomic_fetch_add(&mw->round, 2); /* keeps the parity; changes the value every helper waits on */
	pthread_mutex_unlock(&mw->mu);
	zc_futex_wake_private(&mw->round, INT32_MAX);
	for (uint32_t i = 0; i < mw->n_helpers; i++) {
		pthread_join(mw->helpers[i]->th, NULL);
		free(mw->helpers[i]);
	}
	free(mw->helpers);
	free(mw->words);
	pthread_mutex_destroy(&mw->mu);
}

/* Starts helpers for chunks 1 .. chunks-1. Returns false if a thread could not be started. */
static bool ensure_helpers(struct zc_mwait *mw, uint32_t chunks)
{
	while (mw->n_helpers + 1 < chunks) {
		if (mw->n_helpers == mw->cap_helpers) {
			uint32_t cap = mw->cap_helpers ? mw->cap_helpers * 2 : 8;
			struct zc_mw_helper **nh = realloc(mw->helpers, cap * sizeof *nh);
			if (!nh)
				return false;
			mw->helpers = nh;
			mw->cap_helpers = cap;
		}
		struct zc_mw_helper *hp = calloc(1, sizeof *hp);
		if (!hp)
			return false;
		hp->mw = mw;
		hp->chunk = mw->n_helpers + 1;
		if (zc_thread_start(helper_main, hp, &hp->th, false) != 0) {
			free(hp);
			return false;
		}
		mw->helpers[mw->n_helpers++] = hp;
	}
	return true;
}

ZC_HOT int zc_wait_words(const struct zc_wword *w, uint32_t n, int64_t deadline)
{
	/* One word (a doorbell, or a lone subscription's topic word) is a plain FUTEX_WAIT: cheaper
	 * to set up and to wake than futex_waitv (a waitv sleeper pins its pages per call). */
	if (n == 1 || !zc_waitv_available())
		return poll_words(w, n, deadline);
	struct futex_waitv v[ZC_WAITV_MAX];
	for (uint32_t i = 0; i < n; i++)
		fill(&v[i], &w[i]);
	return classify(sys_waitv(v, n, deadline));
}

ZC_HOT int zc_mwait_wait(struct zc_mwait *mw, const struct zc_wword *w, uint32_t n,
			 int64_t deadline)
{
	if (n == 0) { /* nothing but a deadline (timers): sleep on a word nobody bumps */
		uint32_t v = atomic_load(&mw->fired);
		return zc_futex_wait_private(&mw->fired, v, deadline) == ZCAST_ETIMEDOUT ? ZCAST_ETIMEDOUT
											: 0;
	}
	if (n <= ZC_WAITV_MAX || !zc_waitv_available())
		return zc_wait_words(w, n, deadline);
	struct futex_waitv v[ZC_WAITV_MAX];
	uint32_t chunks = (n + ZC_CHUNK - 1) / ZC_CHUNK;
	if (!ensure_helpers(mw, chunks))
		return poll_words(w, n, deadline); /* no threads: still correct, with the backoff */
	pthread_mutex_lock(&mw->mu);
	if (mw->cap_words < n) {
		struct zc_wword *nw = realloc(mw->words, n * sizeof *nw);
		if (!nw) {
			pthread_mutex_unlock(&mw->mu);
			return poll_words(w, n, deadline);
		}
		mw->words = nw;
		mw->cap_words = n;
	}
	memcpy(mw->words, w, n * sizeof *w);
	mw->n_words = n;
	/* SYNC: mw-fired: `fired` read before the round starts, so a helper's bump in it changes the
	 * word; partner the helper's fetch_add on `fired`. SYNC: mw-round; partner the helper's read. */
	uint32_t f0 = atomic_load(&mw->fired);
	atomic_fetch_add(&mw->round, 1); /* odd: a round is on */
	pthread_mutex_unlock(&mw->mu);
	zc_futex_wake_private(&mw->round, INT32_MAX);
	for (uint32_t i = 0; i < ZC_CHUNK; i++)
		fill(&v[i], &w[i]);
	struct zc_wword fw = {&mw->fired, f0, 1};
	fill(&v[ZC_CHUNK], &fw);
	int r = classify(sys_waitv(v, ZC_WAITV_MAX, deadline));
	atomic_fetch_add(&mw->round, 1); /* even: the round is over, helpers go idle */
	zc_futex_wake_private(&mw->round, INT32_MAX);
	return r;
}
