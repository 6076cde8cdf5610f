/* One transport ("system") = a channel with one writer and n readers. Every system of the
 * benchmark (zcast, floor, iceoryx, uds, mq, pipe) implements this table in its sys_*.c file. */
#ifndef ZB_TRANSPORT_H
#define ZB_TRANSPORT_H

#include "common.h"

typedef struct zb_chan_params {
	char name[32];      /* channel name: "ping", "pong", "data" */
	const char *run_id; /* unique per run, e.g. "zb12345" */
	size_t max_size;    /* largest message of the run */
	int nreaders;
	int depth;          /* queue depth / ring slots */
	int spin;           /* receivers busy-poll instead of sleeping */
	int drop_old;       /* latest wins: a full queue drops its oldest message (no backpressure) */
	int64_t spin_ns;    /* event mode, zcast only: spin this long before sleeping (sub spin_ns) */
	int fail_full;      /* the writer publishes with try_send; send must still wait (end of stream) */
	int wake;           /* enum zb_wake: who wakes sleeping readers (systems without a choice: ALL only) */
} zb_chan_params;

/* Wake strategies of event mode (--wake). ALL: the writer wakes every sleeper in its send call.
 * CHAIN: the writer wakes one; every woken reader wakes the next before it consumes. TREE: as
 * CHAIN with fan-in 2 (writer and every woken reader wake two). THREAD: the writer hands the
 * wake-all to a helper thread of its own process and returns. */
enum zb_wake { ZB_WAKE_ALL = 0, ZB_WAKE_CHAIN, ZB_WAKE_TREE, ZB_WAKE_THREAD };
extern const char *const zb_wake_names[]; /* indexed by enum zb_wake */

typedef struct zb_chan zb_chan; /* per-process endpoint, defined by each system */

typedef struct zb_system {
	const char *name;
	/* Driver, before fork: creates what children inherit (fds, shared memory). *shared is
	 * passed back to open/cleanup. Returns 0, or <0 with a reason in why (system skipped). */
	int (*prepare)(zb_chan_params *p, void **shared, char *why, size_t whylen);
	/* Child: reader >= 0 opens reader number `reader`; reader == -1 opens the writer. */
	int (*open)(const zb_chan_params *p, void *shared, int reader, zb_chan **out);
	/* Child, after every endpoint opened: waits until the channel is connected. May be NULL. */
	int (*ready)(zb_chan *c, int64_t deadline);
	/* Writer: sends one message of `size` bytes starting with *h (fills per mode). Blocks (or
	 * spins) while the channel is full, up to deadline. */
	int (*send)(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline);
	/* Writer, never waits: sends the message if every reader's queue has room for it whole.
	 * Returns 0 sent, 1 full (nothing sent, the message is discarded), -1 error. NULL: the
	 * system's publisher can only wait for room or drop the oldest (no fail-on-full publish). */
	int (*try_send)(zb_chan *c, const zb_hdr *h, size_t size, int mode);
	/* Reader: receives one message (blocks or spins per params), consumes it per mode. */
	int (*recv)(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline);
	void (*close)(zb_chan *c);
	/* Driver, after the children exited. */
	void (*cleanup)(zb_chan_params *p, void *shared);
} zb_system;

/* iceoryx peers (sys_iceoryx.c): 0 if RouDi runs, else -1 with the reason in why. */
int zb_iox_roudi_check(char *why, size_t n);

extern const zb_system zb_sys_floor, zb_sys_zcast, zb_sys_iceoryx, zb_sys_uds, zb_sys_mq,
	zb_sys_pipe;

#endif
