/* The player's clock (zcast play): waiting for a message's time as closely as the machine allows.
 * Standalone (no zcast), so bench/play_floor.c measures the same wait doing nothing else. */
#ifndef ZCAST_TOOL_PLAY_CLOCK_H
#define ZCAST_TOOL_PLAY_CLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "play_spin.h"

/* Timer slack of 1 ns (the default 50 us is added to every sleep), and with `realtime` SCHED_FIFO
 * at priority 10 for the calling thread. Returns NULL, or why SCHED_FIFO was not granted. */
const char *play_clock_setup(bool realtime);
/* CLOCK_MONOTONIC in ns. */
int64_t play_clock_now(void);
/* Returns at CLOCK_MONOTONIC `at` (absolute, ns): sleeps (clock_nanosleep, TIMER_ABSTIME) until
 * spin->spin_ns before it, then spins on the clock, and tells `spin` how late the sleep woke
 * (play_spin_learn); early when *stop becomes set (looked at every 50 ms of sleep). Returns the
 * time it returned at. */
int64_t play_clock_wait(int64_t at, struct play_spin *spin, const volatile sig_atomic_t *stop);

#endif
