/* The player's spin before a message's time (play_spin.h). */
#include "play_spin.h"

#define FULL 65536u /* play_spin.preempted's scale */

void play_spin_init(struct play_spin *s, int64_t fixed_ns, bool realtime)
{
	s->learn = fixed_ns < 0;
	s->realtime = realtime;
	s->spin_ns = s->learn ? PLAY_SPIN_MAX_NS : fixed_ns;
	s->preempted = s->backoff = 0;
}

void play_spin_learn(struct play_spin *s, bool slept, int64_t late_ns, bool preempted)
{
	if (!s->learn)
		return;
	if (s->backoff) {
		s->backoff--;
		return;
	}
	s->preempted = s->preempted - s->preempted / 32 + (preempted && !s->realtime ? FULL / 32 : 0);
	if (s->preempted > FULL / 8) {
		s->spin_ns = PLAY_SPIN_MIN_NS;
		s->preempted = 0;
		s->backoff = PLAY_SPIN_BACKOFF;
		return;
	}
	int64_t want = PLAY_SPIN_MIN_NS;
	if (slept && late_ns > PLAY_SPIN_MIN_NS - PLAY_SPIN_MARGIN_NS)
		want = late_ns >= PLAY_SPIN_MAX_NS - PLAY_SPIN_MARGIN_NS ? PLAY_SPIN_MAX_NS
									 : late_ns + PLAY_SPIN_MARGIN_NS;
	if (want > s->spin_ns)
		s->spin_ns = want;
	else /* rounded up: it reaches `want`, not one ns above it for ever */
		s->spin_ns -= (s->spin_ns - want + PLAY_SPIN_DECAY - 1) / PLAY_SPIN_DECAY;
}
