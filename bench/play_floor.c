/* The floor of zcast play's timing (bench/record.sh, part 2): the player's own wait
 * (tools/play_clock.c) at a fixed rate doing nothing else, so a replay's interval error can be
 * read against what the scheduler allows at that moment. --plain is a bare clock_nanosleep loop
 * as any process has it (default timer slack, no spin, SCHED_OTHER).
 * Usage: zcast-play-floor HZ SECONDS [--plain | [--spin-us US|auto] [--realtime]]
 * Prints: n=<intervals> p50_us=<> p99_us=<> max_us=<> (|actual - planned| interval) cpu=<% of
 * one core, its user + system time over the run's wall time> spin_us=<the spin at the end>. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "play_clock.h"

static volatile sig_atomic_t never;

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s HZ SECONDS [--plain | [--spin-us US|auto] [--realtime]]\n",
			argv[0]);
		return 2;
	}
	double hz = atof(argv[1]), secs = atof(argv[2]);
	bool plain = false, realtime = false;
	int64_t spin = -1; /* auto, as zcast play */
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--plain"))
			plain = true;
		else if (!strcmp(argv[i], "--realtime"))
			realtime = true;
		else if (!strcmp(argv[i], "--spin-us") && i + 1 < argc)
			spin = strcmp(argv[++i], "auto") ? (int64_t)(atof(argv[i]) * 1e3) : -1;
	const char *why = plain ? NULL : play_clock_setup(realtime);
	if (why)
		fprintf(stderr, "play_floor: no SCHED_FIFO (%s)\n", why);
	int64_t period = (int64_t)(1e9 / hz);
	size_t n = (size_t)(hz * secs);
	int64_t *at = calloc(n + 1, sizeof *at);
	if (!at || n < 2)
		return 1;
	struct play_spin ps;
	play_spin_init(&ps, plain ? 0 : spin, realtime && !why);
	int64_t t0 = play_clock_now() + period;
	for (size_t k = 0; k <= n; k++)
		at[k] = play_clock_wait(t0 + (int64_t)k * period, &ps, &never);
	int64_t at_end = at[n];
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	for (size_t k = 0; k < n; k++) { /* interval errors */
		int64_t e = at[k + 1] - at[k] - period;
		at[k] = e < 0 ? -e : e;
	}
	qsort(at, n, sizeof *at, by_value);
	printf("n=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f cpu=%.0f%% spin_us=%.0f\n", n,
	       at[n / 2] / 1e3, at[(size_t)(0.99 * (double)n)] / 1e3, at[n - 1] / 1e3,
	       100 * cpu / ((double)(at_end - t0) / 1e9), ps.spin_ns / 1e3);
	free(at);
	return 0;
}
