/* How long zcast play spins before a message's time (play_clock_wait). A sleeping thread wakes
 * late by whatever the timer and the scheduler add; spinning the last stretch hides that, at the
 * price of a core for as long as it spins. Fixed, or learnt (auto): the spin follows how late the
 * recent sleeps woke, so a machine whose wake-ups are sometimes a host tick late (a VM) spins that
 * long, and one whose wake-ups are prompt spins little. Spinning pays only while the core is ours:
 * when spins keep being preempted (a busy machine takes the core from a thread that uses it all),
 * auto stops spinning for a while and sleeps to the time instead. Pure arithmetic: no clock here. */
#ifndef ZCAST_TOOL_PLAY_SPIN_H
#define ZCAST_TOOL_PLAY_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#define PLAY_SPIN_MIN_NS 20000	 /* auto never spins less: the clock read and the publish */
#define PLAY_SPIN_MAX_NS 2000000 /* nor more: two ticks of a 1 kHz host; beyond, give it fixed */
#define PLAY_SPIN_MARGIN_NS 20000 /* spun beyond the latest lateness that raised the spin */
#define PLAY_SPIN_DECAY 1024	  /* the spin falls by 1/DECAY of its excess per on-time wait */
#define PLAY_SPIN_GAP_NS 500000  /* a spin that lost the core this long was preempted */
#define PLAY_SPIN_BACKOFF 1024	  /* waits without spinning once spins keep being preempted */

struct play_spin {
	bool learn;	    /* auto: the spin follows the wake-ups */
	int64_t spin_ns;    /* what the next wait spins */
	uint32_t preempted; /* recent spins preempted, a moving average in 1/65536 */
	uint32_t backoff;   /* waits left at PLAY_SPIN_MIN_NS (the core is contended) */
	bool realtime;	    /* SCHED_FIFO: never backs off */
};

/* fixed_ns >= 0: always that; < 0: auto, starting at PLAY_SPIN_MAX_NS (until the wake-ups show
 * otherwise: starting low, the first late wake-up of a replay, which learning only follows, would
 * be its worst interval — at 30 Hz a five-second replay has about one). `realtime`: the thread runs
 * at SCHED_FIFO, where no thread of the normal class takes its core, so a lost core is an
 * interrupt or the host's, which spinning less would not give back: auto does not back off. */
void play_spin_init(struct play_spin *s, int64_t fixed_ns, bool realtime);
/* After a wait: `slept` says whether it slept at all (its sleep ended `late_ns` after the time it
 * asked for); `preempted`, whether its spin lost the core (PLAY_SPIN_GAP_NS between two clock
 * reads: someone else's time slice on a busy machine, where an interrupt or the host takes tens
 * of µs). A late wake-up raises the spin at once to what would have hidden it (bounded by
 * PLAY_SPIN_MAX_NS); on-time ones let it fall slowly, so one rare late wake-up in a hundred keeps
 * it up; a wait too short to sleep teaches nothing, and lets it fall too, so a spin longer than
 * the interval between messages does not last for ever. When more than one spin in eight is
 * preempted (a moving average over about 32), auto spins PLAY_SPIN_MIN_NS for the next
 * PLAY_SPIN_BACKOFF waits and then learns afresh. */
void play_spin_learn(struct play_spin *s, bool slept, int64_t late_ns, bool preempted);

#endif
