/*
 * zcast.pml -- SPIN model of the zcast slot / ring / reclaim / wake-up protocol
 * (docs/MODEL.md explains the mapping to the C code).
 *
 * Processes: one publisher (two with -DNPUBR=2), subscriber 0 (FULL, member from the
 * start), subscriber 1 (DROP_OLD, joins at any moment and takes history), a killer
 * that crashes at most one member at any step and then acts as the death watcher
 * (owed wake, reclaim of the dead), and a final checker that runs once everybody is
 * done or blocked, checks that no blocked member waits for something that is there,
 * runs cleanup for the dead and checks the end state.
 *
 * Futexes are modelled as the kernel does them: futex_wait(word, v) atomically
 * compares the word with v and, if equal, puts the caller in the word's wait queue
 * (asleep[] / pword[]); only a later futex_wake(word) takes it out. A changed word
 * alone wakes nobody. Spurious wake-ups are not modelled (they only add wake-ups).
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
 *   NSUBS  subscribers that run, 1 or 2 (default 2; 1: only subscriber 0)
 *   NOCRASH       no member crashes
 *   PUBCRASH      the killer may also crash publisher 0 (outside its topic-lock
 *                 critical section, or inside it once its publish is complete
 *                 and its wake is marked owed; see MODEL.md)
 *   GC_ANY        the publisher may run dead-member cleanup at any publish
 *   BELL          subscribers wait in wait sets with a doorbell (one each): the publisher
 *                 sets the subscriber's ready bit after the push and wakes the doorbell
 *                 word only if its owner announced sleep; the owner looks at its ring only
 *                 when the bit was set (or the entry was ready last time), announces on the
 *                 doorbell, re-checks the bit and sleeps on the word's value read first;
 *                 an owed wake (and the death watcher's) rings every doorbell
 *   WAITS         every loan may be zcast_loan_wait(-1) (sleep on the pool's `freed`
 *                 word) and every publish zcast_publish_wait(-1) (sleep on the
 *                 topic's `space` word while the FULL ring is full), chosen per attempt
 * Mutants (each must make SPIN report an error):
 *   MUT_A  holder bit set after the descriptor is visible in the ring
 *   MUT_B  release reads the non-history word before the history word
 *   MUT_C  no re-check of the ring after announcing sleep (BELL: of the ready bit)
 *   MUT_BELL_ORDER  (BELL) the publisher reads the owner's sleep flag before it sets the bit
 *   MUT_BELL_OWED   (BELL) an owed wake rings no doorbell (only the topic word)
 *   MUT_D  notify value read after the re-check
 *   MUT_E  cleanup does not free PUBLISHED slots whose bitmap is already empty
 *   MUT_NO_OWED      nobody performs an owed wake (next locker, death watcher)
 *   MUT_STORE_CLEAR  wake_owed is cleared by a plain store, not CAS(token -> 0)
 *   MUT_RECLAIM_NOWAKE  reclaim of a dead subscriber wakes no publisher-side waiter
 *   MUT_SPACE_ORDER  (WAITS) a publish_wait clears space_wk before it reads `space`
 *   MUT_SPACE_RECLAIM  (WAITS) reclaim's wake of `space` skips it when space_wk is set
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
#ifndef NSUBS
#define NSUBS 2                    /* 1: subscriber 1 never joins */
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
#define L_WATCH 6                  /* the death watcher (a survivor's thread) */

/* what a sleeping publisher waits on (pword[]) */
#define W_SPACE 1                  /* topic `space` word (publish_wait) */
#define W_FREED 2                  /* its pool's `freed` word (loan_wait) */

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
bit  woken[NSUB];            /* a publisher found sleeping[i] and bumps/wakes notify (or
                                owes it): later publishers skip their wake. In C the lock
                                holders' mark of the announce epoch they woke: a new
                                announce (after reading notify) is a new epoch, unmarked,
                                so here it clears the bit in the same step */
byte notify;                 /* topic futex word: subscribers sleep on it */
byte wake_owed;              /* 0, or the token of the lock hold whose wake of
                                `notify` may not have happened yet */
byte space;                  /* topic futex word: publish_wait sleeps on it */
byte space_w;                /* space_waiters: announced publish_wait sleepers */
bit  space_wk;               /* space_woken: a taker bumps/wakes `space` for the announced
                                waiters; later takers skip; cleared by a waiter after it
                                reads `space`, before it announces */
byte freed[NPUBR];           /* pool futex word: loan_wait sleeps on it */
byte freed_w[NPUBR];         /* the pool's announced loan_wait sleepers */
bit  asleep[NSUB];           /* kernel: subscriber i is in notify's wait queue (BELL: in
                                its doorbell word's) */
#ifdef BELL
bit  bellbit[NSUB];          /* subscriber i's bit in its wait set's doorbell (ready set) */
byte bellword[NSUB];         /* that doorbell's futex word */
bit  bellsleep[NSUB];        /* its owner announced sleep */
bit  bellwk[NSUB];           /* a publisher claimed the wake of that doorbell (woken):
                                other publishers skip theirs; cleared by the owner after
                                it reads the word, before it announces */
bit  hot[NSUB];              /* owner-local: check the ring (bit taken, or ready last time) */
#endif
byte pword[NPUBR];           /* kernel: publisher p is in the wait queue of
                                W_SPACE / W_FREED (0: not asleep) */
bit  pcsafe[NPUBR];          /* PUBCRASH: publisher p holds the lock at a point
                                where its publish is complete (it may crash) */

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
bit  pend[NPUBR];            /* publisher finished or crashed */
bit  kill_done;              /* killer + death watcher finished */

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

/* -------------------------------------------------------------- futexes */

/* futex_wake(word, INT_MAX): only callers already in the word's wait queue wake up.
 * (A dead process's queue entry is irrelevant; cleanup drops it.) */
inline wake_notify()
{
	d_step { asleep[0] = 0; asleep[1] = 0 }
}
inline wake_space()
{
	d_step {
		if :: pword[0] == W_SPACE -> pword[0] = 0 :: else -> skip fi;
#if NPUBR > 1
		if :: pword[1] == W_SPACE -> pword[1] = 0 :: else -> skip fi;
#endif
		skip
	}
}
inline wake_freed(pp)
{
	d_step { if :: pword[pp] == W_FREED -> pword[pp] = 0 :: else -> skip fi }
}

/* CAS(wake_owed: tok -> 0): clears only the mark it was given; a newer lock hold's
 * mark survives (INVARIANT owed-wake-token). */
inline clear_owed(tok)
{
#ifndef MUT_STORE_CLEAR
	d_step { if :: wake_owed == tok -> wake_owed = 0 :: else -> skip fi }
#else
	wake_owed = 0		/* mutant: may erase a later lock hold's mark */
#endif
}

/* Ring subscriber j's doorbell from outside a publish (zc_bell_ring_ref): set the bit,
 * then bump and wake the word if the owner announced sleep. */
inline ring_bell(j)
{
#ifdef BELL
	bellbit[j] = 1;
	if
	:: bellsleep[j] -> bellword[j]++; d_step { asleep[j] = 0 }
	:: else -> skip
	fi
#else
	skip
#endif
}

/* The wake owed by a publisher that died: the death watcher's reclaim of a dead publisher
 * bumps notify, wakes its sleepers and rings every doorbell whatever wake_owed says (a
 * later publisher's mark may have replaced the dead one's), then clears the mark it read.
 * In C a locker also pays a mark it finds a second time (stale, repair.c); the model
 * leaves lockers out: fewer wakes only make the check stricter.
 * Uses the caller's r0, which is 0 here. */
inline wake_after_pub_death()
{
#ifndef MUT_NO_OWED
	r0 = wake_owed;
	notify++;
	wake_notify();
#if defined(BELL) && !defined(MUT_BELL_OWED)
	ring_bell(0);
	ring_bell(1);
#endif
	if
	:: r0 != 0 -> clear_owed(r0); r0 = 0
	:: else -> skip
	fi
#else
	skip			/* mutant: the owed wake is never performed */
#endif
}

/* -------------------------------------------------------------- slot words */

/* Free CAS (PUBLISHED, g) -> (FREE, g+1): exactly one of concurrent freers wins.
 * INVARIANT no-premature-reclaim: the bitmap is all zero and nobody holds, queues
 * or keeps the descriptor as history when its slot is freed. r1 := "I freed it". */
inline cas_free(s, g)
{
	d_step {
		if
		:: st[s] == PUBLISHED && gen[s] == g ->
			assert(w0[s] == 0 && w1[s] == 0);
			assert(!REFD(sseq[s]));
			st[s] = FREE;
			gen[s]++;
			sseq[s] = 0;
			r1 = 1
		:: else -> r1 = 0
		fi;
		r0 = 0			/* local of the caller, reset (state space) */
	}
}

/* Drop one reference: clear a holder bit (seq_cst fetch_and), then scan the
 * bitmap, the word holding the history bit FIRST (INVARIANT history-word-first:
 * while the history bit is set a late joiner may still add a bit to another word;
 * once it reads clear nothing can be added anywhere), and free on all-zero; a free
 * wakes the pool's loan_wait sleepers if any announced themselves.
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
	fi;
#ifdef WAITS
	/* freed: if a loaner announced itself, bump the pool's word and wake it
	 * (a crash before that is a death: the watcher's reclaim wakes) */
	if
	:: r1 && freed_w[(s) / NSLOT] > 0 ->
		freed[(s) / NSLOT]++;
		d_step { wake_freed((s) / NSLOT); r1 = 0 }
	:: else -> r1 = 0
	fi
#else
	r1 = 0
#endif
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
 * words in one step is exact here. Then wake the publisher-side sleepers: queue
 * room, membership and free slots changed (INVARIANT reclaim-wakes). */
inline cleanup_sub(j)
{
	d_step {
		member[j] = 0; hpos[j] = tl[j]; held[j] = 0; sleeping[j] = 0; asleep[j] = 0;
		cleaned[j] = 1
	};
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
#if defined(WAITS) && !defined(MUT_RECLAIM_NOWAKE)
	/* bump `space` and every `freed`, and wake their sleepers: one step. Only
	 * survivors reclaim and at most one member dies, so no crash can split it;
	 * a waiter that would enqueue between a bump and its wake sees the changed
	 * word and returns at once, the same outcome as being woken. */
#ifdef MUT_SPACE_RECLAIM
	if
	:: space_wk -> skip
	:: else ->
#endif
	d_step {
		space++;
		freed[0]++;
#if NPUBR > 1
		freed[1]++;
#endif
		wake_space();
		wake_freed(0);
#if NPUBR > 1
		wake_freed(1);
#endif
		skip
	};
#ifdef MUT_SPACE_RECLAIM
	fi;
#endif
#endif
	x = 0;
	r1 = 0
}

/* Dead publisher: its LOANED slots go back to the pool (nobody else waits on that
 * pool). Crashes inside the publish critical section are only modelled once the
 * publish is complete (see MODEL.md). */
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

/* After acquire(): repair a dead owner's critical section (here: its cleanup runs
 * now). An owed wake is left to its publisher, or to the death watcher if it died. */
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

/* loan: CAS (FREE, g) -> (LOANED, g) on the first FREE slot of the own pool, no
 * lock; none: s = 255 (ZCAST_ENOSLOT) */
inline try_loan()
{
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
		:: else -> s = 255
		fi
	}
}

proctype Publisher(byte p)
{
	byte k, s, q, tm, h, dc, e, x, r0, r1, prev, v;
	bit wake, ok, lw, pw, ph;
	byte bw;	/* BELL: targets whose doorbell owner was seen asleep (bit i) */

	k = 1;
#ifdef PUBCRASH
	{
#endif
	do
	:: k > NPUB -> break
	:: else ->
#ifdef WAITS
		/* zcast_loan (fail at once) or zcast_loan_wait(-1) */
		if :: lw = 0 :: lw = 1 fi;
#endif
		/* loan: read `freed`, try; loan_wait: announce, re-try, sleep on the
		 * value read first (same order as the subscriber's sleep) */
		do
		:: v = freed[p];
			try_loan();
			if
			:: s != 255 || !lw -> break
			:: else ->
				freed_w[p]++;
				try_loan();
				if
				:: s != 255 -> freed_w[p]--; break
				:: else ->
					/* futex_wait(freed, v) */
					d_step { if :: freed[p] == v -> pword[p] = W_FREED :: else -> skip fi };
endl:					(pword[p] == 0) -> freed_w[p]--
				fi
			fi
		od;
		v = 0;		/* (lw is chosen again at the next attempt) */
		if
		:: s == 255 -> skip	/* ZCAST_ENOSLOT: this attempt is lost */
		:: else ->
#ifdef WAITS
			/* zcast_publish (fail on a full FULL ring) or publish_wait(-1) */
			if :: pw = 0 :: pw = 1 fi;
#endif
			do
			:: acquire(L_PUB0 + p);	/* --- publish: under the topic lock --- */
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
					if
					:: !pw ->
						d_step { assert(w0[s] == 0 && w1[s] == 0 && st[s] == LOANED); st[s] = FREE };
						break
					:: pw && !ph ->
						/* read `space`, clear space_wk, announce, re-try */
#ifdef MUT_SPACE_ORDER
						space_wk = 0;
#endif
						v = space;
#ifndef MUT_SPACE_ORDER
						space_wk = 0;
#endif
						space_w++;
						ph = 1
					:: pw && ph ->
						/* futex_wait(space, v), then re-try */
						d_step { if :: space == v -> pword[p] = W_SPACE :: else -> skip fi };
endsp:						(pword[p] == 0) -> space_w--;
						d_step { ph = 0; v = 0 }
					fi
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
							/* a sleeper nobody has woken yet: ours is the wake */
							if
							:: sleeping[0] ->
								if
								:: !woken[0] -> woken[0] = 1; wake = 1
								:: else -> skip
								fi
							:: else -> skip
							fi;
#ifdef BELL
#ifndef MUT_BELL_ORDER
							bellbit[0] = 1;
							if :: bellsleep[0] -> d_step { if :: !bellwk[0] -> bellwk[0] = 1; bw = bw | 1; wake = 1 :: else -> skip fi } :: else -> skip fi
#else
							if :: bellsleep[0] -> d_step { if :: !bellwk[0] -> bellwk[0] = 1; bw = bw | 1; wake = 1 :: else -> skip fi } :: else -> skip fi;
							bellbit[0] = 1
#endif
#endif
							skip
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
							/* a sleeper nobody has woken yet: ours is the wake */
							if
							:: sleeping[1] ->
								if
								:: !woken[1] -> woken[1] = 1; wake = 1
								:: else -> skip
								fi
							:: else -> skip
							fi;
#ifdef BELL
#ifndef MUT_BELL_ORDER
							bellbit[1] = 1;
							if :: bellsleep[1] -> d_step { if :: !bellwk[1] -> bellwk[1] = 1; bw = bw | 2; wake = 1 :: else -> skip fi } :: else -> skip fi
#else
							if :: bellsleep[1] -> d_step { if :: !bellwk[1] -> bellwk[1] = 1; bw = bw | 2; wake = 1 :: else -> skip fi } :: else -> skip fi;
							bellbit[1] = 1
#endif
#endif
							skip
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
					if
					:: wake ->
						/* a target announced sleep: mark the wake as owed,
						 * with a token unique to this lock hold (the
						 * descriptor number), then bump notify, both under
						 * the lock; from here a crash is modelled */
						d_step { wake_owed = q; pcsafe[p] = 1 };
						notify++;
#ifdef BELL
						/* the doorbells found asleep: bumped under the lock too */
						if :: bw & 1 -> bellword[0]++ :: else -> skip fi;
						if :: bw & 2 -> bellword[1]++ :: else -> skip fi;
#endif
						d_step { lock = 0; pcsafe[p] = 0; tm = 0 };	/* unlock */
						/* after the unlock: wake, then clear our own mark */
						wake_notify();
#ifdef BELL
						if :: bw & 1 -> d_step { asleep[0] = 0 } :: else -> skip fi;
						if :: bw & 2 -> d_step { asleep[1] = 0 } :: else -> skip fi;
#endif
						clear_owed(q)
					:: else ->
						d_step { lock = 0; tm = 0 }	/* unlock */
					fi;
					d_step { wake = 0; q = 0; bw = 0 };
					if
					:: ph -> space_w--; ph = 0
					:: else -> skip
					fi;
					break
				fi
			od;
			pw = 0
		fi;
		d_step { s = 0; k++ }
	od;
	pend[p] = 1
#ifdef PUBCRASH
	} unless {
		/* PUBCRASH: crash at any step outside the topic-lock critical
		 * section, or inside it once the publish is complete (a crash in
		 * the middle of a publish needs the intent-record repair, not
		 * modelled) */
		atomic {
			pkill[p] && (lock != L_PUB0 + p || pcsafe[p]) ->
			pdead[p] = 1; pend[p] = 1
		}
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
#ifdef BELL
		/* attached to its wait set after the join: what the join queued (history)
		 * is checked first (zcast_waitset_add_sub makes the entry hot) */
		hot[i] = 1;
#endif

		do
		:: /* take: read the head word, the tail, the entry (one snapshot: a
		    * stale read only makes the CAS below fail), then CAS the head */
#ifdef BELL
			/* the wait set takes its ready set; the ring is looked at only when
			 * the bit was set or the entry was ready last time (hot) */
			d_step { if :: bellbit[i] -> hot[i] = 1; bellbit[i] = 0 :: else -> skip fi };
#endif
			d_step {
				h = hpos[i]; dc = hdc[i];
				if
#ifdef BELL
				:: hot[i] && h != tl[i] -> e = ring[i * D + h % D]
				:: else -> e = 0; h = 0; dc = 0; hot[i] = 0
#else
				:: h != tl[i] -> e = ring[i * D + h % D]
				:: else -> e = 0; h = 0; dc = 0
#endif
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
#ifdef WAITS
					/* room in the ring: wake publish_wait sleepers that
					 * announced themselves */
					if
					:: space_w > 0 ->
						/* the first taker since the last announcement wakes */
						d_step { r1 = !space_wk; space_wk = 1 };
						if
						:: r1 -> r1 = 0; space++; wake_space()
						:: else -> skip
						fi
					:: else -> skip
					fi;
#endif
					/* use the payload, then release (last local ref):
					 * drop_ref asserts the slot is still this publish */
					drop_ref(i, dslot[e], dgen[e], 1);
					e = 0
				:: else -> skip
				fi
#ifdef BELL
			:: else ->
				/* nothing to check: read the doorbell word, announce, re-check the
				 * ready bit, then sleep on the value read first */
				v = bellword[i];
				bellwk[i] = 0;
				bellsleep[i] = 1;
#ifndef MUT_C
				if
				:: bellbit[i] -> d_step { bellsleep[i] = 0; v = 0 }
				:: else ->
#endif
					d_step { if :: bellword[i] == v -> asleep[i] = 1 :: else -> skip fi };
endb:					(!asleep[i]) -> d_step { bellsleep[i] = 0; v = 0 }
#ifndef MUT_C
				fi
#endif
#else
			:: else ->
				/* empty: read notify, announce, re-check, then sleep on the
				 * value read first (INVARIANT no-lost-wakeup) */
#ifndef MUT_D
				v = notify;
#endif
				/* one add in C: a new announce epoch (which no publisher has
				 * marked woken yet) and one more sleeper, after reading notify */
				d_step { woken[i] = 0; sleeping[i] = 1 };
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
					/* futex_wait(notify, v): compare and enqueue in one step;
					 * returns at once if notify != v, else only a
					 * futex_wake(notify) ends the sleep */
					d_step { if :: notify == v -> asleep[i] = 1 :: else -> skip fi };
endw:					(!asleep[i]) -> d_step { sleeping[i] = 0; v = 0 }
#ifndef MUT_C
				fi
#endif
#endif
			fi
		od
	} unless { dead[i] }
}

/* ------------------------------------------------- crashes, death watcher */

/* Crashes at most one member; then, as the death watcher of a survivor (pidfd),
 * performs an owed wake (lock-free) after a publisher's death (a dead subscriber
 * set no mark; leaving out that extra wake only makes the check stricter) and,
 * with WAITS, reclaims the dead under the
 * lock (as a locker it performs an owed wake again and takes over a lock the dead
 * held). Without WAITS nobody sleeps on `space` or `freed`, and the lazy cleanup
 * (join, full ring, final) keeps the model smaller. */
proctype Killer()
{
	byte x, r0, r1, prev;

	if
	:: dead[0] = 1
#if NSUBS > 1
	:: dead[1] = 1
#endif
#ifdef PUBCRASH
	:: pkill[0] = 1;
		(pdead[0] || pend[0]);	/* it crashes, or it had already finished */
		/* only a publisher leaves a wake owed (a subscriber sets no mark) */
		wake_after_pub_death()
#endif
	:: skip -> goto done
	fi;
#ifdef WAITS
	/* reclaim of the dead: it changed what publisher-side waiters wait for */
	acquire(L_WATCH);
	repair();
	gc();
	unlock();
#endif
done:
	kill_done = 1
}

/* ------------------------------------------------------------- end state */

/* blocked for good: dead, or in a futex wait queue (only a wake can end it) */
#define QUIET(i)  (dead[i] || asleep[i])
#define PQUIET(p) (pend[p] || pword[p] != 0)
#define POOLFREE(p) (st[(p) * NSLOT] == FREE || (NSLOT > 1 && st[(p) * NSLOT + 1] == FREE) || \
                     (NSLOT > 2 && st[(p) * NSLOT + 2] == FREE))

proctype Final()
{
	byte x, q, r0, r1, prev;

	/* every live member is finished or blocked in a futex wait, the killer and
	 * the death watcher are done: nothing will ever wake anybody again */
	(kill_done && QUIET(0) && (NSUBS == 1 || QUIET(1)) && PQUIET(0)
#if NPUBR > 1
	 && PQUIET(1)
#endif
	);

	/* INVARIANT no-lost-wakeup: nobody sleeps while what it waits for is there:
	 * a subscriber on a non-empty ring, publish_wait while the FULL ring has room
	 * (or its subscriber is gone), loan_wait while its pool has a FREE slot */
	assert(dead[0] || hpos[0] == tl[0]);
	assert(dead[1] || hpos[1] == tl[1]);
	assert(pdead[0] || pword[0] != W_SPACE || (member[0] && RINGFULL(0)));
	assert(pdead[0] || pword[0] != W_FREED || !POOLFREE(0));
#if NPUBR > 1
	assert(pword[1] != W_SPACE || (member[0] && RINGFULL(0)));
	assert(pword[1] != W_FREED || !POOLFREE(1));
#endif

	/* a survivor runs cleanup for the dead (it performs no owed wake: the
	 * checks above are done) */
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
		 * PUBLISHED, referenced, with exactly the bits of its references
		 * (no slot is LOANED: every live publisher is finished) */
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
#if NSUBS > 1
		run Sub(1);
#endif
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
