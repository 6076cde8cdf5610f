/* Tests of a process out of file descriptors: the soft limit lowered to ZT_NO_FDS and every
 * descriptor left below it taken (dup), then all given back. */
#ifndef ZT_FDS_H
#define ZT_FDS_H

#include "harness.h"

#include <sys/resource.h>

#define ZT_NO_FDS 64

struct zt_no_fds {
	struct rlimit old;
	int fds[ZT_NO_FDS];
	int n;
};

static inline void zt_fds_exhaust(struct zt_no_fds *x)
{
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &x->old), 0);
	struct rlimit low = x->old;
	low.rlim_cur = ZT_NO_FDS;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
	x->n = 0;
	while (x->n < ZT_NO_FDS && (x->fds[x->n] = dup(0)) >= 0)
		x->n++;
	CHECK_EQ(dup(0), -1); /* no descriptor left */
}

static inline void zt_fds_restore(struct zt_no_fds *x)
{
	for (int i = 0; i < x->n; i++)
		close(x->fds[i]);
	x->n = 0;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &x->old), 0);
}

#endif
