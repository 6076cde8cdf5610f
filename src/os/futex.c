/* Futex wait/wake: process-shared on words in shared memory (never FUTEX_PRIVATE_FLAG there), and
 * private on process-local words (guards, helper handshakes, local mutexes). */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os_internal.h"

/* `flags`: 0 (shared) or FUTEX_PRIVATE_FLAG. */
static int futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns, int flags)
{
	struct timespec ts, *tp = NULL;
	if (abs_deadline_ns >= 0) {
		ts = zc_ts(abs_deadline_ns);
		tp = &ts;
	}
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline: no drift across retries. */
	long r = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_BITSET | flags, val, tp, NULL,
			 FUTEX_BITSET_MATCH_ANY);
	if (r == 0)
		return 0;
	if (errno == ETIMEDOUT)
		return ZCAST_ETIMEDOUT;
	return ZCAST_EAGAIN; /* value changed or interrupted: the caller re-checks */
}

ZC_HOT int zc_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns)
{
	return futex_wait(w, val, abs_deadline_ns, 0);
}

ZC_HOT void zc_futex_wake(_Atomic uint32_t *w, int n)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, n, NULL, NULL, 0);
}

int zc_futex_wait_private(_Atomic uint32_t *w, uint32_t val, int64_t abs_deadline_ns)
{
	return futex_wait(w, val, abs_deadline_ns, FUTEX_PRIVATE_FLAG);
}

ZC_HOT void zc_futex_wake_private(_Atomic uint32_t *w, int n)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n, NULL, NULL, 0);
}
