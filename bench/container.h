/* Case `container` (case_container.c): one loop per container process, two backends that move the
 * messages (container_zcast.c: one zcast wait set; container_uds.c: one Unix stream socket per
 * subscription, epoll). */
#ifndef ZB_CONTAINER_H
#define ZB_CONTAINER_H

#include "bench.h"
#include "container_plan.h"

/* Shared between the containers (MAP_SHARED before fork). */
typedef struct ct_shared {
	_Atomic int64_t start; /* the common start of every container's schedule */
	int64_t
	    run_delay[ZB_MAX_CHILDREN]; /* ns each container waited on a run queue while measured */
} ct_shared;

/* What every child inherits from setup. */
typedef struct ct_run {
	cp_plan plan;
	ct_shared *sh;
	int64_t warm_ns, meas_ns, drain_ns;
	int *sock;    /* uds: per subscription i, sock[2i] = publisher's end, sock[2i + 1] =
			 subscriber's */
	int sock_opt; /* uds: the socket buffer option that took (SO_SNDBUFFORCE or SO_SNDBUF) */
} ct_run;
extern ct_run ct;

/* A backend; the caller is one container process (child idx). */
typedef struct ct_ops {
	/* Opens the container's publishers and subscriptions (before the start barrier). */
	int (*open)(zb_bench *b, int idx, void **ctx);
	/* Sends message *h of topic `topic` (the container publishes it). Returns 0, 1 if the
	 * message was dropped for at least one subscriber (counted as lost), -1 on error. */
	int (*publish)(void *ctx, int topic, const zb_hdr *h);
	/* Waits up to timeout_ns and takes every ready message, calling ct_received for each. 0 or
	 * -1. */
	int (*wait)(void *ctx, int64_t timeout_ns);
	void (*close)(void *ctx);
} ct_ops;
extern const ct_ops ct_zcast_ops, ct_uds_ops;

/* A message of `size` bytes arrived (t_recv: the receive call returned); records it if it was sent
 * in the measured phase. */
void ct_received(const zb_hdr *h, int64_t t_recv);
/* The zcast topic name of plan topic t. */
void ct_topic_name(char *buf, size_t n, int t);
/* Reports a backend failure of this container into ctl (zb_fail with the child's index). */
void ct_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
