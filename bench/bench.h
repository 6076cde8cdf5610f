/* A benchmark configuration and the case runners (case_*.c). */
#ifndef ZB_BENCH_H
#define ZB_BENCH_H

#include "transport.h"

typedef struct zb_bench {
	const zb_system *sys;
	const char *name; /* case name in the results, e.g. ack_64B_event */
	size_t size;
	int mode;         /* ZB_TRANSPORT / ZB_TOUCH */
	int spin;
	long samples, warmup;
	double cap_s;     /* stop measuring after this many seconds (recorded in the meta) */
	int subs;         /* fan-out subscribers */
	double rate_hz;   /* fan-out publish rate */
	int drop_old;     /* overload: DROP_OLD policy instead of FULL */
	int64_t spin_ns;  /* zcast receivers spin this long in zcast_wait before sleeping */
	int fail_full;    /* overload: FULL, but a publish into a full queue fails at once (counted) */
	int64_t work_ns;  /* overload: consumer busy work per message */
	int64_t sleep_ns; /* overload: consumer sleeps this long after each message (LibXR's scene) */
	int depth;        /* overload: queue depth (0: the case's default) */
	int pin;          /* child i runs on the (i mod n)-th allowed CPU */
	int pairs;        /* ping-pong: independent pairs (topics_T<n>: n pairs, 2n topics) */
	int topics;       /* waitset: topics per subscriber wait set (waitset_T<n>) */
	int busy;         /* waitset: only the first `busy` topics carry messages (0: all) */
	int members;      /* join: members of the topic at the measured join (join_M<n>) */
	int containers;   /* container: container processes (0: 16) */
	int clients;      /* service: client processes calling one server (0: 1) */
	long seed;        /* container: seed of the generated topic graph */
	int wake;         /* enum zb_wake (transport.h), copied into every channel */
	int rows_per_msg; /* sample rows per message (0: subs + 1); set by a case's setup */
	const char *skip; /* set by a case's setup: this system is skipped, with this reason */
	int nch;
	zb_chan_params ch[ZB_MAX_CHILDREN];
	void *shared[ZB_MAX_CHILDREN];
	zb_ctl *ctl;
	int64_t op_timeout_ns;
	/* filled by the case runner, written to the meta json */
	long published, received, messages; /* messages = every message moved (for minflt/msg) */
	long failed;      /* overload full_fail: publish attempts that found the queue full */
	double msgs_per_s;
	long bytes_copied; /* service: bytes of a request copied between client and server (-1: unknown) */
	int capped;
} zb_bench;

typedef struct zb_case {
	const char *name;
	/* Fills b->ch / b->nch / ctl capacity needs; returns the number of child processes. */
	int (*setup)(zb_bench *b);
	int (*child)(int idx, void *bench);
	/* Driver, after the children: derives published/received/msgs_per_s from ctl. */
	void (*finish)(zb_bench *b);
} zb_case;

extern const zb_case zb_case_pingpong, zb_case_continuous, zb_case_fanout,
	zb_case_overload, zb_case_waitset, zb_case_join, zb_case_join_collide, zb_case_container,
	zb_case_service;

/* Helpers for case runners (main.c). */
void zb_chan_init(zb_chan_params *p, const char *name, const zb_bench *b, int nreaders, int depth);
/* Opens channel i of b as writer (reader == -1) or reader n. Reports failure into ctl. */
zb_chan *zb_open(zb_bench *b, int idx, int ch, int reader);
/* Both barriers + ready() of the given endpoints. */
int zb_start(zb_bench *b, int idx, zb_chan **eps, int neps);
/* Closes the endpoints in child order (child i after child i-1, bounded): tearing down many
 * members at the same instant made iceoryx's RouDi lose track of applications. */
void zb_close_in_turn(zb_bench *b, int idx, zb_chan **eps, int neps);
/* Writer: sends the end-of-stream message. Returns 0 or 1 (failure). */
int zb_send_stop(zb_bench *b, zb_chan *c);
/* Reader: receives one message into *h; on failure reports it into ctl and returns 1. */
int zb_recv_or_fail(zb_bench *b, int idx, zb_chan *c, zb_hdr *h);
/* Absolute deadline for one operation. */
static inline int64_t zb_deadline(const zb_bench *b) { return zb_now() + b->op_timeout_ns; }

#endif
