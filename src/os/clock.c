/* CLOCK_MONOTONIC helpers: every deadline in zcast is absolute monotonic nanoseconds. */
#include "os_internal.h"

ZC_HOT int64_t zc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

ZC_HOT struct timespec zc_ts(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	return ts;
}

int64_t zc_after(int64_t t, int64_t ns)
{
	int64_t sum;
	return __builtin_add_overflow(t, ns, &sum) ? INT64_MAX : sum;
}
