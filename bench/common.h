/* Shared helpers of the zcast benchmark driver: clock, message header, payload fill/consume,
 * shared control block (barrier, per-child results, sample buffers), child processes. */
#ifndef ZB_COMMON_H
#define ZB_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ZB_MAX_CHILDREN 40
#define ZB_FLAG_STOP 1u

static inline int64_t zb_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Every message starts with this header (the smallest payload, 64 B, holds it). */
typedef struct zb_hdr {
	uint64_t seq;
	int64_t stamp; /* CLOCK_MONOTONIC ns, taken by the sender before loan/fill/send */
	uint32_t flags;
	uint32_t size;
} zb_hdr;

enum zb_mode { ZB_TRANSPORT = 0, ZB_TOUCH = 1 };

/* Writes the header, and the last byte (transport) or every byte (touch) of a payload. */
void zb_fill(void *buf, size_t size, const zb_hdr *h, int mode);
/* Reads the header and the last byte (transport) or every byte (touch). Returns a checksum the
 * caller must consume (so the compiler cannot drop the reads). */
uint64_t zb_consume(const void *buf, size_t size, zb_hdr *h, int mode);
extern volatile uint64_t zb_sink;
/* Set by every recv(): duration of the non-blocking call that handed over the message (the
 * "take" after the wake-up), or -1 where the system cannot tell it from the wait (a blocking
 * read of uds / pipe / mq). Cases report it as receive_ latency. */
extern int64_t zb_take_ns;
/* Times the take after a wake-up into zb_take_ns: begin returns its start, 0 when not timed (no
 * sleep yet, or busy-poll, where two clock reads per attempt would slow the spin loop itself). */
static inline int64_t zb_take_begin(int woke) { return woke ? zb_now() : 0; }
static inline void zb_take_end(int64_t t0)
{
	if (t0)
		zb_take_ns = zb_now() - t0;
}

/* One sample row of the raw CSV. sub: -1 = publisher-side row, >=0 = subscriber index,
 * <= -2 = receive-call row of subscriber -2 - sub (cases waitset, fanout). */
typedef struct zb_sample {
	int64_t seq;
	int32_t sub;
	int64_t t_send;
	int64_t t_recv;
	int64_t lat;
} zb_sample;

/* Results one child reports to the driver. */
typedef struct zb_child_res {
	int64_t minflt;
	int64_t published, received;
	int64_t failed; /* publishes refused by a full queue (overload full_fail) */
	int64_t t_first, t_last;
	/* CPU time (utime + stime, getrusage RUSAGE_SELF) and wall time of this child's measured phase;
	 * set by cases that report cpu_pct (waitset), 0 otherwise. */
	int64_t cpu_ns, wall_ns;
	int status; /* 0 ok, else failure */
	atomic_int done; /* measurement finished, only teardown left */
	char err[160];
} zb_child_res;

/* Lives in MAP_SHARED memory created before fork. */
typedef struct zb_ctl {
	atomic_int arrived[4]; /* barrier generations */
	atomic_int abort;
	int nchildren;
	zb_child_res res[ZB_MAX_CHILDREN];
	atomic_long nsamples;
	long cap; /* capacity of samples[] */
	zb_sample samples[];
} zb_ctl;

zb_ctl *zb_ctl_create(long cap);
/* Appends a sample (any process). Returns 0, or -1 if full. */
int zb_ctl_add(zb_ctl *c, const zb_sample *s);
/* Waits until every child arrived at barrier `gen` (bounded). Returns 0 or -1. */
int zb_barrier(zb_ctl *c, int gen, int64_t timeout_ns);

/* Child bookkeeping. */
void zb_fail(zb_ctl *c, int idx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t zb_minflt(void);
/* utime + stime of this process (all threads) in ns. */
int64_t zb_cpu_ns(void);

/* Forks `n` children (in one new process group, dying with the driver); child i runs fn(i, arg)
 * and exits with its return value. Waits at most timeout_ns for all; on timeout or any failure
 * the whole group is killed. Once every child marked ctl->res[i].done, teardown gets 10 s more.
 * Returns 0 if all exited 0, 1 if only the teardown had to be killed, -1 on failure. */
int zb_run_children(int n, int (*fn)(int idx, void *arg), void *arg, int64_t timeout_ns, zb_ctl *ctl);

/* CSV of all samples in ctl (sorted by sub, seq as written). */
int zb_write_csv(const char *path, zb_ctl *c);

/* Parses "64", "4K", "4KiB", "1M", "8MiB". */
size_t zb_parse_size(const char *s);

#endif
