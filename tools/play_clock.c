/* The player's clock (play_clock.h). A sleeping thread is woken by the timer, and then has to be
 * scheduled: the first costs the timer slack (50 us by default, set to 1 ns here), the second
 * whatever the scheduler makes it wait (on a loaded machine, up to the time slices of everyone
 * else on the core; SCHED_FIFO, where permitted, runs it first; on a VM, the host's own timer may
 * deliver the wake-up a tick late). The last stretch is spun on the clock (play_spin.h) so the
 * wake-up's own latency, when shorter, is not paid at the deadline. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "play_clock.h"

const char *play_clock_setup(bool realtime)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (!realtime)
		return NULL;
	struct sched_param sp = {.sched_priority = 10};
	return sched_setscheduler(0, SCHED_FIFO, &sp) == 0 ? NULL : strerror(errno);
}

int64_t play_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t play_clock_wait(int64_t at, struct play_spin *spin, const volatile sig_atomic_t *stop)
{
	int64_t now = play_clock_now(), wake = at - spin->spin_ns;
	bool slept = now < wake;
	while (now < wake && !*stop) {
		int64_t to = wake - now > 50000000 ? now + 50000000 : wake;
		struct timespec ts = {to / 1000000000, to % 1000000000};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = play_clock_now();
	}
	int64_t woke = now, gap = 0; /* the longest the spin lost the core */
	while (now < at && !*stop) {
		int64_t t = play_clock_now();
		if (t - now > gap)
			gap = t - now;
		now = t;
	}
	if (!*stop) /* the last sleep was to `wake` */
		play_spin_learn(spin, slept, woke - wake, gap > PLAY_SPIN_GAP_NS);
	return now;
}
