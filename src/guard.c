/* Guards: user triggers that wake wait sets (docs/WAITSETS.md). Process-private futex words, with
 * the same announce handshake as subscribers so that a trigger makes a syscall only when a wait set
 * sleeps on the guard. */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wait_internal.h"

void zc_futex_wake_private(_Atomic uint32_t *w, int n)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n, NULL, NULL, 0);
}

int zc_futex_wait_private(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns)
{
	struct timespec ts, *tp = NULL;
	if (abs_deadline_ns >= 0) {
		ts = zc_ts(abs_deadline_ns);
		tp = &ts;
	}
	long r = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, tp,
			 NULL, FUTEX_BITSET_MATCH_ANY);
	if (r == 0)
		return 0;
	return errno == ETIMEDOUT ? ZCAST_ETIMEDOUT : ZCAST_EAGAIN;
}

int zcast_guard_create(zcast_guard **out)
{
	if (!out)
		return zc_err(ZCAST_EINVAL, "out is NULL");
	*out = calloc(1, sizeof **out);
	return *out ? 0 : zc_err(ZCAST_ENOMEM, "out of memory");
}

void zcast_guard_destroy(zcast_guard *g)
{
	free(g);
}

int zcast_guard_trigger(zcast_guard *g)
{
	if (!g)
		return ZCAST_EINVAL; /* no zc_err: async-signal-safe path */
	/* pending before the bump, the bump before the waiter check: a wait set that announced itself
	 * after our check re-checks `pending` and sees it (all seq_cst). */
	atomic_store_explicit(&g->pending, 1, memory_order_seq_cst);
	atomic_fetch_add_explicit(&g->word, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&g->waiters, memory_order_seq_cst))
		zc_futex_wake_private(&g->word, INT32_MAX);
	return 0;
}
