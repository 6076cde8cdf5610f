/* bell.pml -- the doorbell of one wait set, rung by ringers that share no lock.
 *
 * model/zcast.pml models the doorbell of a wait set beside one topic: its ringers are the
 * publishers of that topic, serialised by the topic lock, so a ringer's claim of the `woken`
 * word and its bump of the doorbell word happen with no other ringer in between. A real wait set
 * is rung by publishers of many topics (and by guards, which take no lock at all): ringer A can
 * claim the wake, ringer B can look at `woken` before A has bumped the word, and A can be killed
 * after its claim. This model has NR such ringers (each the publisher of its own topic, with its
 * own subscription in the wait set) and one owner, and checks that no message of a live ringer
 * is left queued while the owner sleeps for good.
 *
 * `woken` is epoch << 2 | state, state FREE (0), CLAIMED (1), DELIVERED (2); the epoch counts
 * the owner's sleeps (only the owner advances it). C code (src/doorbell.h zc_bell_set and the
 * claim, src/doorbell.c zc_bell_push / zc_bell_wake_pending, src/guard.c ring_links;
 * src/waitset.c harvest, collect_hot, arm_bell, disarm):
 *   ringer: push (tail store); fetch_or its ready bit; read `sleeping`; if set: w = woken;
 *           DELIVERED: skip (this sleep's claimer has bumped and woken);
 *           FREE and CAS(woken: w -> epoch(w)|CLAIMED) succeeds: the claimer: bump `word`
 *             (under its lock), FUTEX_WAKE (after its unlock), CAS(woken: epoch(w)|CLAIMED ->
 *             epoch(w)|DELIVERED);
 *           otherwise (CLAIMED by a ringer that may be dead; a failed CAS that did not return
 *             DELIVERED): assist: bump and FUTEX_WAKE without a claim.
 *   owner:  take the ready set (exchange: bits -> hot); check each hot entry: ready -> take its
 *           messages, stay hot; not ready -> leave hot. Nothing taken: v = word; epoch++;
 *           woken = epoch << 2 | FREE (one store); sleeping = 1; re-check the ready set (set:
 *           sleeping = 0, start over); futex_wait(word, v); sleeping = 0.
 * One Promela step is one atomic access (a load, a store, a CAS, a fetch_or, one futex call);
 * memory is sequentially consistent, as the seq_cst accesses of the C code. The owner's take of
 * the ready set is one step (one exchange of the word holding all bits); a take of an entry's
 * messages is one step (a later push stays queued and the entry stays hot).
 *
 * Two exact reductions keep the state space small. The futex word is only ever compared with the
 * value the owner read before its sleep, so the model keeps one bit, `moved` (the word changed
 * since that read: a bump sets it, the owner's read clears it; exact unless the 32-bit C word
 * wraps, 2^32 bumps, within one sleep). The epoch is only ever compared for equality, so the model renames
 * it: see FREE_WAKE (COUNTER: the C counter itself).
 *
 * Options: NR ringers (2), NMSG messages each (2), NMSG0 messages of ringer 0 (NMSG); DIE:
 * ringer 0 may be killed at any point after a successful claim (before its bump, between bump
 * and FUTEX_WAKE, before its DELIVERED CAS); its own queued messages are then its topic's
 * repair's business (in C: its subscriber record may no longer name this doorbell, so that
 * repair may ring nothing here) and are not checked. COUNTER: the owner's epoch is a counter,
 * as in C.
 * Mutants (must be rejected):
 *   MUT_CLEAR_FIRST  the owner resets `woken` before it reads the word
 *   MUT_NO_CLEAR     the owner never resets `woken`
 *   MUT_NO_RECHECK   the owner does not look at the ready set after announcing its sleep
 *   MUT_TWO_STATE    (with DIE) the protocol before epochs: a ringer that finds the wake
 *                    claimed (or delivered) skips, whoever claimed it
 *   MUT_NO_EPOCH     (with DIE) the three states without epoch: a late DELIVERED CAS of a
 *                    claimer of an earlier sleep can mark a newer claim delivered
 */

#ifndef NR
#define NR 2
#endif
#ifndef NMSG
#define NMSG 2
#endif
#ifndef NMSG0
#define NMSG0 NMSG /* ringer 0's messages */
#endif

#define FREE      0
#define CLAIMED   1
#define DELIVERED 2
#ifndef EPOCHS
#define EPOCHS    64 /* epoch values a byte holds beside the 2 state bits */
#endif

#define STATE(w)  ((w) & 3)
#define EBITS(w)  ((w) & 252) /* epoch << 2 */

byte q[NR];     /* messages queued for ringer r's subscription */
bit  bits[NR];  /* the doorbell's ready set */
bit  moved;     /* the doorbell's futex word changed since the owner read it (below) */
bit  sleeping;  /* the owner announced its sleep */
byte woken;     /* epoch << 2 | FREE / CLAIMED / DELIVERED */
bit  asleep;    /* kernel: the owner is in the word's wait queue */
byte done;      /* ringers finished (or killed) */
bit  died;      /* ringer 0 was killed (DIE) */

/* The value of `woken` ringer r loaded, while it may still compare it (a ghost array, so that
 * the owner can see which epochs are in use); NONE (epoch 63, never chosen) otherwise. */
#define NONE 255
byte held[NR];
#define w held[r]

/* The owner's store woken = epoch << 2 | FREE of a new sleep (one step; the search for a free
 * epoch reads ghost state only). The epoch is only ever compared for equality, by the CAS of a
 * ringer that loaded `woken` earlier; a C counter gives a value no ringer can hold, and so does
 * any value no ringer holds now: every such CAS fails the same way. By default the model takes
 * the smallest epoch no ringer holds (at most NR are held, so it is <= NR), so that runs that
 * differ only in how many sleeps came before are one state. COUNTER: the C counter (epoch++);
 * the assert shows it never wraps here (NR 2, NMSG 2: at most 13 sleeps, `-DEPOCHS=14` passes
 * and 13 fails). MUT_NO_EPOCH: no epoch at all. */
#if defined(MUT_NO_EPOCH)
#define FREE_WAKE woken = FREE
#elif defined(COUNTER)
#define FREE_WAKE \
	d_step { assert(epoch < EPOCHS - 1); epoch++; woken = epoch << 2 | FREE }
#else
#define FREE_WAKE \
	d_step { \
		epoch = 0; \
		r = 0; \
		do \
		:: r < NR && EBITS(held[r]) == epoch << 2 -> epoch++; r = 0 \
		:: r < NR && EBITS(held[r]) != epoch << 2 -> r++ \
		:: else -> break \
		od; \
		r = 0; \
		woken = epoch << 2 | FREE \
	}
#endif

/* DIE: ringer 0 may be killed here (it stops for good). */
#ifdef DIE
#define MAY_DIE if :: r == 0 -> goto killed :: true -> skip fi
#else
#define MAY_DIE skip
#endif

/* A ringer that did not claim the wake, having seen `woken` == x: DELIVERED -> skip; otherwise
 * (CLAIMED by another ringer, alive or dead; FREE of a newer sleep after a failed CAS) -> assist.
 * MUT_TWO_STATE: skip whatever it saw. It no longer compares `woken`: w = NONE (ghost). */
#ifdef MUT_TWO_STATE
#define NO_CLAIM(x) w = NONE
#else
#define NO_CLAIM(x) if :: STATE(x) != DELIVERED -> assist = 1 :: else -> skip fi; w = NONE
#endif

proctype Ringer(byte r)
{
	byte n = 0;
	bit claim, assist;
	do
	:: n < (r == 0 -> NMSG0 : NMSG) ->
		q[r]++;
		bits[r] = 1;
		if
		:: sleeping ->
			/* w = load(woken) (and what the ringer makes of it, local) */
			d_step { w = woken; if :: STATE(w) != FREE -> NO_CLAIM(w) :: else -> skip fi };
			if
			:: w != NONE ->
				/* CAS(woken: w -> epoch(w)|CLAIMED); a failure returns the current value */
				d_step {
					if
					:: woken == w -> woken = EBITS(w) | CLAIMED; claim = 1
					:: else -> NO_CLAIM(woken)
					fi
				}
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: claim ->
			MAY_DIE;
			moved = 1;	/* the bump (word++), under its topic lock */
			MAY_DIE;
			asleep = 0;	/* FUTEX_WAKE, after the unlock */
			MAY_DIE;
			/* CAS(woken: epoch(w)|CLAIMED -> epoch(w)|DELIVERED) */
			d_step {
#ifndef MUT_TWO_STATE
				if
				:: woken == (EBITS(w) | CLAIMED) -> woken = EBITS(w) | DELIVERED
				:: else -> skip
				fi;
#endif
				w = NONE
			}
		:: assist ->
			moved = 1;	/* the bump (word++), under its topic lock */
			asleep = 0	/* FUTEX_WAKE, after the unlock */
		:: else -> skip
		fi;
		d_step { claim = 0; assist = 0; n++ }
	:: else -> break
	od;
	goto finished;
killed:
	died = 1;
	w = NONE;
finished:
	done++
}

active proctype Owner()
{
	bit hot[NR];
	byte r, epoch;
	bit took;
	do
	:: /* collect: the ready set into hot, then the hot entries */
		d_step {
			r = 0;
			do
			:: r < NR -> if :: bits[r] -> hot[r] = 1; bits[r] = 0 :: else -> skip fi; r++
			:: else -> break
			od;
			r = 0
		};
		took = 0;
		do
		:: r < NR ->
			if
			:: hot[r] && q[r] > 0 -> q[r] = 0; took = 1 /* reported, taken, stays hot */
			:: hot[r] && q[r] == 0 -> hot[r] = 0
			:: else -> skip
			fi;
			r++
		:: else -> break
		od;
		if
		:: took -> skip
		:: else ->
			/* arm: read the word, a new epoch with a free wake, announce, re-check */
#ifdef MUT_CLEAR_FIRST
			FREE_WAKE;
			moved = 0; /* v = word */
#else
			moved = 0; /* v = word */
#ifndef MUT_NO_CLEAR
			FREE_WAKE;
#endif
#endif
			sleeping = 1;
			r = 0;
#ifndef MUT_NO_RECHECK
			do
			:: r < NR && !bits[r] -> r++
			:: r < NR && bits[r] -> break
			:: else -> break
			od;
#else
			r = NR;
#endif
			if
			:: r < NR -> sleeping = 0 /* a bit is set: do not sleep */
			:: else ->
				d_step { if :: !moved -> asleep = 1 :: else -> skip fi }; /* futex_wait(word, v) */
end:				(!asleep) -> sleeping = 0
			fi
		fi
	od
}

/* Runs once every ringer is done (or killed) and the owner is in the futex queue: nobody can
 * wake it any more, so no live ringer's message may be queued. A killed ringer's messages are
 * its topic's repair's business (in C it rings the doorbell its subscriber record names, which
 * may no longer be this one). If the owner could end anywhere else, this process blocks and SPIN
 * reports an invalid end state. */
active proctype Check()
{
	byte r;
	(done == NR && asleep) ->
	r = 0;
	do
	:: r < NR -> assert(q[r] == 0 || (r == 0 && died)); r++ /* no lost wake-up */
	:: else -> break
	od
}

init
{
	byte r = 0;
	atomic {
		do
		:: r < NR -> held[r] = NONE; run Ringer(r); r++
		:: else -> break
		od
	}
}
