/* bell.pml -- the doorbell of one wait set, rung by ringers that share no lock.
 *
 * model/zcast.pml models the doorbell of a wait set beside one topic: its ringers are the
 * publishers of that topic, serialised by the topic lock, so a ringer's claim of the `woken`
 * flag and its bump of the doorbell word happen with no other ringer in between. A real wait set
 * is rung by publishers of many topics (and by guards, which take no lock at all): ringer A can
 * claim the flag, ringer B can find it set and skip its wake, all before A has bumped the word.
 * This model has NR such ringers (each the publisher of its own topic, with its own subscription
 * in the wait set) and one owner, and checks that no message is left queued while the owner
 * sleeps for good.
 *
 * C code (src/doorbell.h zc_bell_set / zc_bell_claim_wake / zc_bell_bump, src/doorbell.c
 * zc_bell_push and zc_bell_wake_pending, src/guard.c ring_links; src/waitset.c harvest,
 * collect_hot, arm_bell, disarm):
 *   ringer: push (tail store); fetch_or its ready bit; read `sleeping`; if set: read `woken`,
 *           if clear exchange it to 1, and if that returned 0 bump `word` (under its lock) and,
 *           after its unlock, FUTEX_WAKE the word.
 *   owner:  take the ready set (exchange: bits -> hot); check each hot entry: ready -> take its
 *           messages, stay hot; not ready -> leave hot. Nothing taken: v = word; woken = 0;
 *           sleeping = 1; re-check the ready set (set: sleeping = 0, start over);
 *           futex_wait(word, v); sleeping = 0.
 * One Promela step is one atomic access (a load, a store, an exchange, a fetch_or, one futex
 * call); memory is sequentially consistent, as the seq_cst accesses of the C code. The owner's
 * take of the ready set is one step (one exchange of the word holding all bits); a take of an
 * entry's messages is one step (a later push stays queued and the entry stays hot).
 *
 * Options: NR ringers (2), NMSG messages each (2). Mutants (must be rejected):
 *   MUT_CLEAR_FIRST  the owner clears `woken` before it reads the word
 *   MUT_NO_CLEAR     the owner never clears `woken`
 *   MUT_NO_RECHECK   the owner does not look at the ready set after announcing its sleep
 */

#ifndef NR
#define NR 2
#endif
#ifndef NMSG
#define NMSG 2
#endif

byte q[NR];     /* messages queued for ringer r's subscription */
bit  bits[NR];  /* the doorbell's ready set */
byte word;      /* the doorbell's futex word */
bit  sleeping;  /* the owner announced its sleep */
bit  woken;     /* a ringer claimed the wake of this sleep */
bit  asleep;    /* kernel: the owner is in the word's wait queue */
byte done;      /* ringers finished */

proctype Ringer(byte r)
{
	byte n = 0;
	bit ring;
	do
	:: n < NMSG ->
		q[r]++;
		bits[r] = 1;
		ring = 0;
		if
		:: sleeping ->
			if
			:: woken -> skip /* the relaxed load: another ringer's wake is on its way */
			:: else -> d_step { if :: !woken -> woken = 1; ring = 1 :: else -> skip fi }
			fi
		:: else -> skip
		fi;
		if
		:: ring ->
			word++;		/* under its topic lock */
			asleep = 0	/* FUTEX_WAKE, after the unlock */
		:: else -> skip
		fi;
		n++
	:: else -> break
	od;
	done++
}

active proctype Owner()
{
	bit hot[NR];
	byte r, v;
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
			/* arm: read the word, clear woken, announce, re-check the ready set */
#ifdef MUT_CLEAR_FIRST
			woken = 0;
			v = word;
#else
			v = word;
#ifndef MUT_NO_CLEAR
			woken = 0;
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
				d_step { if :: word == v -> asleep = 1 :: else -> skip fi };
end:				(!asleep) -> sleeping = 0
			fi
		fi
	od
}

/* Runs once every ringer is done and the owner is in the futex queue: nobody can wake it any
 * more, so nothing may be queued. If the owner could end anywhere else, this process blocks and
 * SPIN reports an invalid end state. */
active proctype Check()
{
	byte r;
	(done == NR && asleep) ->
	r = 0;
	do
	:: r < NR -> assert(q[r] == 0); r++ /* no lost wake-up */
	:: else -> break
	od
}

init
{
	byte r = 0;
	atomic {
		do
		:: r < NR -> run Ringer(r); r++
		:: else -> break
		od
	}
}
