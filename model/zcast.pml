/*
 * zcast.pml -- SPIN model of the zcast slot / ring / reclaim / wake-up protocol
 * (docs/MODEL.md explains the mapping to the C code; docs/ARCHITECTURE.md).
 *
 * Processes: one publisher (two with -DNPUBR=2), subscriber 0 (FULL, member from the
 * start), subscriber 1 (DROP_OLD, joins at any moment and takes history), a killer
 * that crashes at most one member at any step, and a final checker that runs cleanup
 * for the dead and checks the end state.
 *
 * Holder bitmap: two words per slot, so the multi-word case is covered:
 *   word 0 (w0): bit SBIT = subscriber 0, bit HBIT = history retention
 *   word 1 (w1): bit SBIT = subscriber 1
 *
 * Configuration (all via -D):
 *   NSLOT  slots per pool          (default 3)
 *   D      ring depth, 1..3        (default 1)
 *   HISTD  history depth, 0..2     (default 1)
 *   JOINH  history the late joiner asks for (default 1, <= D)
 *   NPUB   publish attempts per publisher (default 3; NPUB*NPUBR <= 7)
 *   NPUBR  publishers, 1 or 2      (default 1; each has its own pool)
 *   NOCRASH       no member crashes
 *   PUBCRASH      the killer may also crash publisher 0 (outside its topic-lock
 *                 critical section; see MODEL.md)
 *   GC_ANY        the publisher may run dead-member cleanup at any publish
 * Mutants (each must make SPIN report an error):
 *   MUT_A  holder bit set after the descriptor is visible in the ring
 *   MUT_B  release reads the non-history word before the history word
 *   MUT_C  no re-check of the ring after announcing sleep
 *   MUT_D  notify value read after the re-check
 *   MUT_E  cleanup does not free PUBLISHED slots whose bitmap is already empty
 * Finding (with HISTD=0):
 *   BUG_ZERO_TARGETS  a publish with no target and no history goes PUBLISHED with
 *                     an empty bitmap, which nobody frees (leak until a gc pass)
 *
 * Atomicity: every d_step / single statement is one atomic instruction of the C
 * code (a load, a store, a CAS, a fetch_and/fetch_or) plus ghost bookkeeping.
 * Memory is sequentially consistent (the C code uses seq_cst on these words).
 */

#ifndef NSLOT
#define NSLOT 3
#endif
#ifndef D
#define D 1
#endif
#ifndef HISTD
#define HISTD 1
#endif
#ifndef JOINH
#define JOINH 1
#endif
#ifndef NPUB
#define NPUB 3
#endif
#ifndef NPUBR
#define NPUBR 1
#endif

#define NSUB   2
#define NS     (NSLOT * NPUBR)     /* all slots of all pools */
#define NSEQ   (NPUB * NPUBR)      /* descriptors are numbered 1..NSEQ (ghost) */

#define FREE      0
#define LOANED    1
#define PUBLISHED 2

#define SBIT 1                     /* a subscriber's bit in its word */
#define HBIT 2                     /* the history bit, in word 0 */

#define WHO_HIST 2                 /* drop_ref(): who = 0, 1 (subscribers) or history */

/* lock owner ids */
#define L_SUB0  1
#define L_SUB1  2
#define L_PUB0  3                  /* publisher p has id L_PUB0 + p */
#define L_FINAL 5

/* ---------------------------------------------------------------- shared state */
byte st[NS];                 /* slot state word: (st, gen) */
byte gen[NS];
byte w0[NS];                 /* holder bitmap word 0: sub0 + history */
byte w1[NS];                 /* holder bitmap word 1: sub1 */

byte ring[NSUB * D];         /* descriptor rings (entries are descriptor numbers) */
byte hpos[NSUB];             /* ring head word = (hpos, hdc): one CAS word */
byte hdc[NSUB];              /*   hdc: drop count, changed only by the producer */
byte tl[NSUB];               /* ring tail: written only by the topic-lock holder */
bit  sleeping[NSUB];         /* "I am about to sleep / asleep" announcement */
byte notify;                 /* topic futex word */

bit  member[NSUB];           /* current publish targets (changed under the lock) */
bit  dead[NSUB];             /* OFD liveness lock released by the kernel */
bit  cleaned[NSUB];
bit  pkill[NPUBR];           /* PUBCRASH: publisher told to crash (it does so
                                as soon as it holds no topic lock) */
bit  pdead[NPUBR];           /* publisher crashed */
bit  pcleaned[NPUBR];
byte lock;                   /* topic lock: 0 free, else owner id (robust) */

byte hist[3];                /* history index, oldest first (HISTD <= 2) */
byte hcnt;

/* ---------------------------------------------------------------- ghost state */
byte dslot[NSEQ + 1];        /* descriptor -> (slot, gen): what the real */
byte dgen[NSEQ + 1];         /*   64-bit descriptor carries */
byte sseq[NS];               /* descriptor currently published in a slot */
byte held[NSUB];             /* descriptor taken and not yet released */
byte deliv[NSUB];            /* bit q: descriptor q was taken */
byte dropm[NSUB];            /* bit q: descriptor q was dropped (DROP_OLD) */
byte targ[NSUB];             /* bit q: descriptor q was pushed to this ring */
bit  in_wait[NSUB];          /* blocked in futex_wait(notify, wait_v) */
byte wait_v[NSUB];
byte pubs_done;
bit  kill_done;

#define BIT(q) (1 << (q))

/* descriptor q queued in ring i (between head and tail); supports D <= 3 */
#define INRING(i, q) \
   ((hpos[i]     < tl[i] && ring[(i) * D + (hpos[i])     % D] == (q)) || \
    (hpos[i] + 1 < tl[i] && ring[(i) * D + (hpos[i] + 1) % D] == (q)) || \
    (hpos[i] + 2 < tl[i] && ring[(i) * D + (hpos[i] + 2) % D] == (q)))
#define INHIST(q) ((hcnt > 0 && hist[0] == (q)) || (hcnt > 1 && hist[1] == (q)) || \
                   (hcnt > 2 && hist[2] == (q)))
/* someone may still read descriptor q's slot */
#define REFD(q) (held[0] == (q) || held[1] == (q) || INRING(0, q) || INRING(1, q) || INHIST(q))

#define RINGFULL(i) (tl[i] - hpos[i] >= D)

/* -------------------------------------------------------------- slot words */

/* Free CAS (PUBLISHED, g) -> (FREE, g+1): exactly one of concurrent freers wins.
 * INVARIANT no-premature-reclaim: the bitmap is all zero and nobody holds, queues
 * or keeps the descriptor as history when its slot is freed. */
inline cas_free(s, g)
{
	d_step {
		if
		:: st[s] == PUBLISHED && gen[s] == g ->
			assert(w0[s] == 0 && w1[s] == 0);
			assert(!REFD(sseq[s]));
			st[s] = FREE;
			gen[s]++;
			sseq[s] = 0
		:: else -> skip
		fi;
		r0 = 0; r1 = 0		/* locals of the caller, reset (state space) */
	}
}

/* Drop one reference: clear a holder bit (seq_cst fetch_and), then scan the
 * bitmap, the word holding the history bit FIRST (INVARIANT history-word-first:
 * while the history bit is set a late joiner may still add a bit to another word;
 * once it reads clear nothing can be added anywhere), and free on all-zero.
 * own: the caller is subscriber `who` releasing the message it took. */
inline drop_ref(who, s, g, own)
{
	d_step {
		/* INVARIANT holder-bit-covers-holding: the slot is still this
		 * publish and the bit we drop is set */
		assert(st[s] == PUBLISHED && gen[s] == g);
		if
		:: who == 0 -> assert(w0[s] & SBIT); w0[s] = w0[s] & ~SBIT
		:: who == 1 -> assert(w1[s] & SBIT); w1[s] = w1[s] & ~SBIT
		:: who == WHO_HIST -> assert(w0[s] & HBIT); w0[s] = w0[s] & ~HBIT
		fi;
		if
		:: own -> held[who] = 0
		:: else -> skip
		fi
	};
	/* r0 := "all words read zero", history word first */
#ifndef MUT_B
	r0 = w0[s];
	d_step { r0 = (r0 == 0 && w1[s] == 0) };
#else
	r0 = w1[s];
	d_step { r0 = (r0 == 0 && w0[s] == 0) };
#endif
	if
	:: r0 -> cas_free(s, g)
	:: else -> r0 = 0
	fi
}

/* Producer side of a ring (lock holder only): write the entry at the tail and
 * advance the tail (one step: the entry is invisible until the tail moves). */
inline push(i, q)
{
	d_step {
		assert(tl[i] - hpos[i] < D);
		ring[(i) * D + tl[i] % D] = q;
		tl[i]++;
		assert((targ[i] & BIT(q)) == 0);
		targ[i] = targ[i] | BIT(q)
	}
}

/* ------------------------------------------------------------- topic lock */

/* Robust mutex: a dead owner's lock is taken over (EOWNERDEAD); the taker then
 * must repair (here: run cleanup for the dead owner). */
#define OWNER_DEAD(o) ((o == L_SUB0 && dead[0]) || (o == L_SUB1 && dead[1]) || \
                       (o == L_PUB0 && pdead[0]))
inline acquire(me)
{
	atomic {
		(lock == 0 || OWNER_DEAD(lock)) ->
		prev = lock;
		lock = me
	}
}
inline unlock()
{
	lock = 0
}

/* Dead-member cleanup, under the topic lock: discard the ring and the record,
 * clear the dead member's bit in every slot, then free every PUBLISHED slot whose
 * bitmap is all zero (INVARIANT no-leak: a releaser may have died between its last
 * clear and its CAS). Bits cannot be added while we hold the lock, so reading both
 * words in one step is exact here. */
inline cleanup_sub(j)
{
	d_step { member[j] = 0; hpos[j] = tl[j]; held[j] = 0; sleeping[j] = 0; cleaned[j] = 1 };
	x = 0;
	do
	:: x < NS ->
#ifndef MUT_E
		d_step {
			if
			:: j == 0 -> w0[x] = w0[x] & ~SBIT
			:: else -> w1[x] = w1[x] & ~SBIT
			fi
		};
#else
		/* mutant: only a slot whose last bit we cleared ourselves is freed */
		d_step {
			if
			:: j == 0 && (w0[x] & SBIT) -> w0[x] = w0[x] & ~SBIT; r0 = 1
			:: j == 1 && (w1[x] & SBIT) -> w1[x] = w1[x] & ~SBIT; r0 = 1
			:: else -> skip
			fi;
			if
			:: r0 && w0[x] == 0 && w1[x] == 0 && st[x] == PUBLISHED -> r1 = gen[x]
			:: else -> r0 = 0
			fi
		};
		if
		:: r0 -> cas_free(x, r1)
		:: else -> skip
		fi;
#endif
		x++
	:: else -> break
	od;
#ifndef MUT_E
	x = 0;
	do
	:: x < NS ->
		d_step {
			if
			:: st[x] == PUBLISHED && w0[x] == 0 && w1[x] == 0 -> r0 = 1; r1 = gen[x]
			:: else -> skip
			fi
		};
		if
		:: r0 -> cas_free(x, r1)
		:: else -> skip
		fi;
		x++
	:: else -> break
	od;
#endif
	x = 0
}

/* Dead publisher: its LOANED slots go back to the pool. (Crashes inside the
 * publish critical section are not modelled, see MODEL.md.) */
inline cleanup_pub(p)
{
	x = p * NSLOT;
	do
	:: x < (p + 1) * NSLOT ->
		d_step {
			if
			:: st[x] == LOANED -> assert(w0[x] == 0 && w1[x] == 0); st[x] = FREE
			:: else -> skip
			fi
		};
		x++
	:: else -> break
	od;
	pcleaned[p] = 1;
	x = 0
}

/* After acquire(): a dead owner's critical section must be repaired (here: its
 * cleanup runs now). */
inline repair()
{
	if
	:: prev == L_SUB0 -> cleanup_sub(0)
	:: prev == L_SUB1 -> cleanup_sub(1)
	:: prev == L_PUB0 -> cleanup_pub(0)
	:: else -> skip
	fi;
	prev = 0
}

/* Liveness probe + cleanup of every dead member noticed (at join, and when a
 * publish meets a full ring). With -DGC_ANY the publisher may also do it at any
 * publish (more interleavings of cleanup with lock-free releases). */
inline gc()
{
	if :: dead[0] && !cleaned[0] -> cleanup_sub(0) :: else -> skip fi;
	if :: dead[1] && !cleaned[1] -> cleanup_sub(1) :: else -> skip fi;
	if :: pdead[0] && !pcleaned[0] -> cleanup_pub(0) :: else -> skip fi
}

/* ------------------------------------------------------------- publisher */

proctype Publisher(byte p)
{
	byte k, s, q, tm, h, dc, e, x, r0, r1, prev;
	bit wake, ok;

	k = 1;
#ifdef PUBCRASH
	{
#endif
	do
	:: k > NPUB -> break
	:: else ->
		/* loan: CAS (FREE, g) -> (LOANED, g), no lock; own pool only */
		d_step {
			s = p * NSLOT;
			do
			:: s < (p + 1) * NSLOT && st[s] != FREE -> s++
			:: else -> break
			od;
			if
			:: s < (p + 1) * NSLOT ->
				assert(w0[s] == 0 && w1[s] == 0);
				st[s] = LOANED
			:: else -> s = 255	/* ZCAST_ENOSLOT: this attempt is lost */
			fi
		};
		if
		:: s == 255 -> skip
		:: else ->
			acquire(L_PUB0 + p);	/* --- publish: under the topic lock --- */
			repair();
#ifdef GC_ANY
			if :: true -> gc() :: true -> skip fi;
#endif
			if
			:: (member[0] && RINGFULL(0)) || (member[1] && RINGFULL(1)) -> gc()
			:: else -> skip
			fi;
			/* decide targets first: a full FULL ring fails the publish
			 * before anything changes; the loan stays with us */
			if
			:: member[0] && RINGFULL(0) ->
				unlock();
				d_step { assert(w0[s] == 0 && w1[s] == 0 && st[s] == LOANED); st[s] = FREE }
			:: else ->
				d_step {
					q = p * NPUB + k;
					tm = member[0] + 2 * member[1];
					dslot[q] = s; dgen[q] = gen[s]; sseq[s] = q;
					/* INVARIANT bit-before-visible: every target's
					 * holder bit (and the history bit) is set before
					 * any ring can show the descriptor */
#ifndef MUT_A
					if :: tm & 1 -> w0[s] = w0[s] | SBIT :: else -> skip fi;
					if :: tm & 2 -> w1[s] = w1[s] | SBIT :: else -> skip fi;
#endif
					if :: HISTD > 0 -> w0[s] = w0[s] | HBIT :: else -> skip fi;
					/* then LOANED -> PUBLISHED: the slot was ours alone, so
					 * one step (a stale releaser's CAS fails on the gen) */
#ifndef BUG_ZERO_TARGETS
					if :: tm != 0 || HISTD > 0 -> st[s] = PUBLISHED :: else -> skip fi
#else
					st[s] = PUBLISHED	/* finding: leaks, see MODEL.md */
#endif
				};
				if
#ifndef BUG_ZERO_TARGETS
				:: tm == 0 && HISTD == 0 ->
					/* nobody to hold it: a PUBLISHED slot with an empty
					 * bitmap would leak; give it back at once */
					d_step { st[s] = FREE; sseq[s] = 0 }
#endif
				:: else ->
					/* target 0: FULL; room was checked above and only
					 * the consumer moves the head (room only grows) */
					if
					:: tm & 1 ->
						push(0, q);
#ifdef MUT_A
						w0[s] = w0[s] | SBIT;
#endif
						wake = wake | sleeping[0]
					:: else -> skip
					fi;
					/* target 1: DROP_OLD */
					if
					:: tm & 2 ->
						do
						:: d_step { h = hpos[1]; dc = hdc[1]; e = ring[1 * D + h % D] };
							if
							:: tl[1] - h < D -> break
							:: else ->
								/* drop the oldest: CAS head (h,dc) -> (h+1,dc+1) */
								d_step {
									if
									:: hpos[1] == h && hdc[1] == dc ->
										hpos[1] = h + 1; hdc[1] = dc + 1; ok = 1;
										/* INVARIANT once-only: taken or dropped, never both */
										assert(((deliv[1] | dropm[1]) & BIT(e)) == 0);
										dropm[1] = dropm[1] | BIT(e)
									:: else -> ok = 0	/* consumer popped it: re-check */
									fi
								};
								if
								:: ok -> drop_ref(1, dslot[e], dgen[e], 0)
								:: else -> skip
								fi;
								d_step { ok = 0; h = 0; dc = 0; e = 0 }
							fi
						od;
						h = 0;
						d_step { dc = 0; e = 0 };
						push(1, q);
#ifdef MUT_A
						w1[s] = w1[s] | SBIT;
#endif
						wake = wake | sleeping[1]
					:: else -> skip
					fi
				fi;
				/* history: append, evict the oldest beyond the depth */
				if
				:: HISTD > 0 ->
					d_step {
						hist[hcnt] = q; hcnt++;
						if
						:: hcnt > HISTD ->
							e = hist[0];
							hist[0] = hist[1]; hist[1] = hist[2]; hist[2] = 0;
							hcnt--
						:: else -> e = 0
						fi
					};
					if
					:: e != 0 ->
						drop_ref(WHO_HIST, dslot[e], dgen[e], 0);
						e = 0
					:: else -> skip
					fi
				:: else -> skip
				fi;
				/* one wake for the topic, only if a target announced sleep */
				if
				:: wake -> notify++
				:: else -> skip
				fi;
				d_step { wake = 0; tm = 0; q = 0 };
				unlock()
			fi
		fi;
		d_step { s = 0; k++ }
	od;
	pubs_done++
#ifdef PUBCRASH
	} unless {
		/* PUBCRASH: crash at any step outside the topic-lock critical
		 * section (a crash inside it needs the intent-record recovery of
		 * the topic lock, not modelled) */
		atomic { pkill[p] && lock != L_PUB0 + p -> pdead[p] = 1; pubs_done++ }
	}
#endif
}

/* ------------------------------------------------------------- subscriber */

proctype Sub(byte i)
{
	byte h, dc, e, v, x, r0, r1, prev;
	bit ok;

	{
		if
		:: i == 1 ->
			/* late join with history, under the topic lock: holder bit on
			 * each of the last JOINH history slots (their history bit is set,
			 * so they cannot be freed meanwhile), then the descriptor */
			acquire(L_SUB1);
			repair();
			gc();
			x = (hcnt > JOINH -> hcnt - JOINH : 0);
			do
			:: x < hcnt ->
				e = hist[x];
				d_step {
					assert(w0[dslot[e]] & HBIT);
					w1[dslot[e]] = w1[dslot[e]] | SBIT
				};
				push(1, e);
				x++
			:: else -> break
			od;
			member[1] = 1;
			d_step { x = 0; e = 0 };
			unlock()
		:: else -> skip
		fi;

		do
		:: /* take: read the head word, the tail, the entry (one snapshot: a
		    * stale read only makes the CAS below fail), then CAS the head */
			d_step {
				h = hpos[i]; dc = hdc[i];
				if
				:: h != tl[i] -> e = ring[i * D + h % D]
				:: else -> e = 0; h = 0; dc = 0
				fi
			};
			if
			:: e != 0 ->
				d_step {
					if
					:: hpos[i] == h && hdc[i] == dc ->
						hpos[i] = h + 1;
						held[i] = e;
						/* INVARIANT once-only delivery */
						assert(((deliv[i] | dropm[i]) & BIT(e)) == 0);
						deliv[i] = deliv[i] | BIT(e)
					:: else -> e = 0
					fi;
					h = 0; dc = 0
				};
				if
				:: e != 0 ->
					/* use the payload, then release (last local ref):
					 * drop_ref asserts the slot is still this publish */
					drop_ref(i, dslot[e], dgen[e], 1);
					e = 0
				:: else -> skip
				fi
			:: else ->
				/* empty: read notify, announce, re-check, then sleep on the
				 * value read first (INVARIANT no-lost-wakeup) */
#ifndef MUT_D
				v = notify;
#endif
				sleeping[i] = 1;
#ifndef MUT_C
				h = hpos[i];
				if
				:: h != tl[i] ->
					d_step { sleeping[i] = 0; h = 0; v = 0 }
				:: else ->
#endif
					h = 0;
#ifdef MUT_D
					v = notify;
#endif
					/* futex_wait(notify, v): returns at once if notify != v */
					d_step {
						if
						:: notify == v -> in_wait[i] = 1; wait_v[i] = v
						:: else -> skip
						fi
					};
					if
					:: in_wait[i] ->
endw:						(notify != v) -> d_step { in_wait[i] = 0; wait_v[i] = 0 }
					:: else -> skip
					fi;
					d_step { sleeping[i] = 0; v = 0 }
#ifndef MUT_C
				fi
#endif
			fi
		od
	} unless { dead[i] }
}

/* ------------------------------------------------------------- crashes */

proctype Killer()
{
	if
	:: dead[0] = 1
	:: dead[1] = 1
#ifdef PUBCRASH
	:: pkill[0] = 1
#endif
	:: skip
	fi;
	kill_done = 1
}

/* ------------------------------------------------------------- end state */

#define QUIET(i) (dead[i] || (in_wait[i] && notify == wait_v[i]))

proctype Final()
{
	byte x, q, r0, r1, prev;

	/* every live subscriber is blocked in futex_wait, publishers are done */
	(pubs_done == NPUBR && kill_done && QUIET(0) && QUIET(1));

	/* INVARIANT no-lost-wakeup: nobody sleeps on a non-empty ring */
	assert(dead[0] || hpos[0] == tl[0]);
	assert(dead[1] || hpos[1] == tl[1]);

	/* a survivor runs cleanup for the dead */
	acquire(L_FINAL);
	prev = 0;
	gc();

	d_step {
		/* INVARIANT exactly-once: every descriptor pushed to a live
		 * subscriber was taken or dropped (never both, never neither) */
		x = 0;
		do
		:: x < NSUB ->
			assert(dead[x] || (deliv[x] & dropm[x]) == 0);
			assert(dead[x] || targ[x] == (deliv[x] | dropm[x]));
			assert(dead[x] || held[x] == 0);
			x++
		:: else -> break
		od;
		/* INVARIANT no-leak: every slot is FREE with an empty bitmap, or
		 * PUBLISHED, referenced, with exactly the bits of its references */
		x = 0;
		do
		:: x < NS ->
			q = sseq[x];
			assert(st[x] != LOANED);
			assert(st[x] != FREE || (w0[x] == 0 && w1[x] == 0));
			assert(st[x] != PUBLISHED || REFD(q));
			assert(st[x] != PUBLISHED ||
			       (((w0[x] & HBIT) != 0) == INHIST(q) &&
			        ((w0[x] & SBIT) != 0) == (member[0] && (held[0] == q || INRING(0, q))) &&
			        ((w1[x] & SBIT) != 0) == (member[1] && (held[1] == q || INRING(1, q)))));
			x++
		:: else -> break
		od
	};
end_final:
	skip
}

init {
	atomic {
		member[0] = 1;
		run Sub(0);
		run Sub(1);
		run Publisher(0);
#if NPUBR > 1
		run Publisher(1);
#endif
#ifndef NOCRASH
		run Killer();
#else
		kill_done = 1;
#endif
		run Final()
	}
}
