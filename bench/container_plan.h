/* The workload of case `container`: which topics exist, their message size and rate, which
 * container (process) publishes each and which containers subscribe. Generated deterministically
 * from a seed before fork, so every container process and both systems (zcast, uds) see the same
 * plan. */
#ifndef ZB_CONTAINER_PLAN_H
#define ZB_CONTAINER_PLAN_H

#include <stdint.h>
#include <stdio.h>

#define CP_MAX_SUBS_PER_TOPIC 35 /* the busiest topic of the Autoware-like graph */

typedef struct cp_topic {
	uint32_t size; /* every message of the topic has this size (a power of two) */
	int rate_hz;   /* publish rate */
	int pub;       /* publishing container */
	int nsubs;     /* subscriptions, cp_plan.subs[first_sub .. first_sub + nsubs) */
	int first_sub;
	int64_t phase_ns; /* first publish at start + phase_ns (0 <= phase < period) */
} cp_topic;

typedef struct cp_sub {
	int topic;
	int container;
} cp_sub;

typedef struct cp_plan {
	int ntopics, ncont, nsubs;
	cp_topic *topics;
	cp_sub *subs;
	uint32_t max_size;
} cp_plan;

/* Fills *p: ntopics topics over ncont containers, every container with at least min_subs
 * subscriptions. Returns 0, or -1 with a reason in why (bad parameters, out of memory). */
int cp_generate(cp_plan *p, int ntopics, int ncont, int min_subs, uint64_t seed, char *why,
		size_t whylen);
void cp_free(cp_plan *p);
/* Prints the plan's shape (subscribers per topic, subscriptions per container, load per size
 * class). */
void cp_describe(const cp_plan *p, FILE *f);
/* Deliveries (message x subscription) per second of the whole plan. */
double cp_deliveries_per_s(const cp_plan *p);
/* Size class of a message size, as used in the CSV (sub = log2(size)) and report.py:
 * 0 small (<= 1 KiB), 1 medium (<= 64 KiB), 2 large. */
int cp_class(uint32_t size);
extern const char *const cp_class_names[3];

#endif
