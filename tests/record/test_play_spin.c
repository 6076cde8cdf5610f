/* zcast play's spin before a message's time (tools/play_spin.h): fixed stays fixed; auto rises at
 * once to hide a late wake-up, bounded (it starts at its bound); falls slowly while wake-ups are on time, so a rare late one
 * keeps it up; falls when the waits are too short to sleep, so a long spin does not last for ever;
 * never leaves [PLAY_SPIN_MIN_NS, PLAY_SPIN_MAX_NS]; stops spinning for a while when spins keep
 * being preempted, not when one in sixteen is. And play_clock_wait never returns before its
 * time, whatever the spin, and returns early on a stop. */
#include "harness.h"
#include "play_clock.h"
#include "play_spin.h"

static void fixed_never_learns(void)
{
	struct play_spin s;
	play_spin_init(&s, 50000, false);
	CHECK_EQ(s.spin_ns, 50000);
	play_spin_learn(&s, true, 3000000, false);
	play_spin_learn(&s, false, 0, false);
	for (int i = 0; i < 5000; i++)
		play_spin_learn(&s, true, 1000, false);
	CHECK_EQ(s.spin_ns, 50000);
	play_spin_init(&s, 0, false);
	play_spin_learn(&s, true, 1000000, false);
	CHECK_EQ(s.spin_ns, 0);
}

static void auto_rises_at_once_and_is_bounded(void)
{
	struct play_spin s;
	play_spin_init(&s, -1, false);
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS); /* the worst until the wake-ups show otherwise */
	s.spin_ns = PLAY_SPIN_MIN_NS;
	play_spin_learn(&s, true, 0, false); /* on time: stays at the floor */
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MIN_NS);
	play_spin_learn(&s, true, -5000, false); /* a clock that went back a little: no harm */
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MIN_NS);
	play_spin_learn(&s, true, 1000000, false); /* a tick late: spins that plus the margin next time */
	CHECK_EQ(s.spin_ns, 1000000 + PLAY_SPIN_MARGIN_NS);
	play_spin_learn(&s, true, 500000, false); /* less late: no jump down */
	CHECK(s.spin_ns < 1000000 + PLAY_SPIN_MARGIN_NS && s.spin_ns > 1000000);
	play_spin_learn(&s, true, 50000000, false); /* a 50 ms stall: bounded */
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS);
	play_spin_learn(&s, true, PLAY_SPIN_MAX_NS - PLAY_SPIN_MARGIN_NS / 2, false);
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS);
	play_spin_learn(&s, true, INT64_MAX, false); /* no overflow */
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS);
}

static void auto_falls_slowly_while_on_time(void)
{
	struct play_spin s;
	play_spin_init(&s, -1, false);
	s.spin_ns = PLAY_SPIN_MIN_NS;
	play_spin_learn(&s, true, 1000000, false);
	int64_t before = s.spin_ns;
	for (int i = 0; i < 100; i++) { /* one late wake-up in a hundred keeps most of the spin */
		play_spin_learn(&s, true, 2000, false);
		CHECK(s.spin_ns < before);
		before = s.spin_ns;
	}
	CHECK(s.spin_ns > 900000);
	for (int i = 0; i < 50000; i++)
		play_spin_learn(&s, true, 2000, false);
	CHECK_EQ(s.spin_ns, 2000 + PLAY_SPIN_MARGIN_NS); /* reaches what the wake-ups need, exactly */
	for (int i = 0; i < 50000; i++)
		play_spin_learn(&s, true, 0, false);
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MIN_NS);
}

static void auto_falls_when_it_cannot_sleep(void)
{
	struct play_spin s;
	play_spin_init(&s, -1, false);
	play_spin_learn(&s, true, PLAY_SPIN_MAX_NS, false);
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS);
	int64_t before = s.spin_ns;
	for (int i = 0; i < 1000; i++) { /* messages closer than the spin: no sleep, nothing learnt */
		play_spin_learn(&s, false, 0, false);
		CHECK(s.spin_ns <= before && s.spin_ns >= PLAY_SPIN_MIN_NS);
		before = s.spin_ns;
	}
	CHECK(s.spin_ns < PLAY_SPIN_MAX_NS / 2);
	for (int i = 0; i < 50000; i++)
		play_spin_learn(&s, false, 0, false);
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MIN_NS);
}

static void auto_backs_off_when_spins_are_preempted(void)
{
	struct play_spin s;
	play_spin_init(&s, -1, false);
	s.spin_ns = PLAY_SPIN_MIN_NS;
	for (int i = 0; i < 10000; i++) /* one spin in sixteen preempted: spinning still pays */
		play_spin_learn(&s, true, 1000000, i % 16 == 0);
	CHECK_EQ(s.spin_ns, 1000000 + PLAY_SPIN_MARGIN_NS);
	int i = 0;
	while (s.spin_ns != PLAY_SPIN_MIN_NS) { /* a busy machine: every spin loses the core */
		play_spin_learn(&s, true, 1000000, true);
		CHECK(++i <= 8);
	}
	for (i = 0; i < PLAY_SPIN_BACKOFF; i++) { /* backing off: late wake-ups change nothing */
		play_spin_learn(&s, true, 1000000, i % 2 == 0);
		CHECK_EQ(s.spin_ns, PLAY_SPIN_MIN_NS);
	}
	play_spin_learn(&s, true, 700000, false); /* then it learns afresh */
	CHECK_EQ(s.spin_ns, 700000 + PLAY_SPIN_MARGIN_NS);
	play_spin_init(&s, -1, true); /* at SCHED_FIFO a lost core is not another thread's: no back-off */
	s.spin_ns = PLAY_SPIN_MIN_NS;
	for (i = 0; i < 100; i++)
		play_spin_learn(&s, true, 1000000, true);
	CHECK_EQ(s.spin_ns, 1000000 + PLAY_SPIN_MARGIN_NS);
	play_spin_init(&s, 300000, false); /* a fixed spin is what the user asked for, preempted or not */
	for (i = 0; i < 100; i++)
		play_spin_learn(&s, true, 0, true);
	CHECK_EQ(s.spin_ns, 300000);
}

static volatile sig_atomic_t stop_flag;

static void wait_never_early(void)
{
	int64_t spins[] = {0, 50000, -1};
	for (size_t k = 0; k < sizeof spins / sizeof *spins; k++) {
		struct play_spin s;
		play_spin_init(&s, spins[k], false);
		int64_t t = play_clock_now();
		for (int i = 0; i < 200; i++) {
			t += 100000 + 37000 * (i % 5); /* 100..248 us apart */
			int64_t back = play_clock_wait(t, &s, &stop_flag);
			CHECK(back >= t);
			CHECK(play_clock_now() >= t);
		}
		CHECK(s.spin_ns >= 0 && s.spin_ns <= PLAY_SPIN_MAX_NS);
		if (spins[k] >= 0)
			CHECK_EQ(s.spin_ns, spins[k]);
	}
}

static void wait_stops_early(void)
{
	struct play_spin s;
	play_spin_init(&s, -1, false);
	stop_flag = 1;
	int64_t t = play_clock_now() + 3600 * (int64_t)1000000000;
	CHECK(play_clock_wait(t, &s, &stop_flag) < t); /* an hour away: returns at once */
	CHECK_EQ(s.spin_ns, PLAY_SPIN_MAX_NS);	       /* and learns nothing from it */
	stop_flag = 0;
}

int main(void)
{
	zt_setup("play_spin", 60);
	play_clock_setup(false);
	RUN(fixed_never_learns);
	RUN(auto_rises_at_once_and_is_bounded);
	RUN(auto_falls_slowly_while_on_time);
	RUN(auto_falls_when_it_cannot_sleep);
	RUN(auto_backs_off_when_spins_are_preempted);
	RUN(wait_never_early);
	RUN(wait_stops_early);
	return 0;
}
