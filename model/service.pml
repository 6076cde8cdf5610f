/* service.pml -- the request/response handshake of a zcast service (docs/SERVICES.md), with a
 * server or a client that dies at any step.
 *
 * The route: requests are publishes on `<service>/_rq`, whose servers are one BALANCE_RR group
 * (each request is queued at exactly one live server with room); responses go to the asking
 * client instance's own response topic `_rs/c<id>_<nonce>`, a FULL ring only that instance
 * subscribes to (client A: ring 0; client B, which takes A's member record over once A is gone:
 * ring 1, a new id and nonce). Client A makes NCALL blocking calls, one at a time, with NREQ
 * request slots; then (REUSE) client B makes one. C code: src/svc/ (docs/SERVICES.md).
 *
 *   client send: loan a request slot (FREE -> LOANED, generation kept); read the hook count;
 *           publish: the group queues it at one member with room (slot PUBLISHED; a dead member
 *           not reclaimed yet counts: no liveness probe) and wakes that server if it sleeps;
 *           every queue full -> ZCAST_EAGAIN (slot back); no member at all -> the publish itself
 *           fails (ZCAST_ENOSERVER: nothing published, the caller drops the loan, slot back).
 *           Until the step after the publish the call is SENDING, which the hook passes by;
 *           that step makes it pending and, if the hook ran meanwhile, runs its check.
 *   client wait: v = word; announce; re-check the ring; futex_wait(word, v). Take (FIFO): a
 *           response whose client id / nonce is its own and whose seq is pending ends the call;
 *           anything else is dropped (slot released). A marker: a call made suspect by that
 *           marker (or an earlier one) and still pending fails with ZCAST_ESRVGONE.
 *   server: take a request from its queue (read once); loan a response slot; publish it on the
 *           asking instance's response topic: queued in its ring (and the client woken if it
 *           sleeps) if the instance still subscribes, else published to nobody (slot back);
 *           only then release the request (its slot FREE, generation + 1). Queue empty: sleep.
 *   reclaim of a dead server (under the topic lock, by a death watcher): its queued requests go
 *           to another live server with room, else are released; its taken request is released;
 *           its loaned response slot comes back; responses already queued stay (their client
 *           takes them).
 *   the client's hook (its death watcher, after each reclaim; also right after a send that it
 *           ran during, above; it counts its runs): a
 *           pending call whose request slot is no longer PUBLISHED with its generation is
 *           suspect; if any call is newly suspect: publish a marker on the own response topic
 *           (it wakes the client like any message).
 *   reclaim of a dead client: its ring loses its subscriber (queued responses released); its
 *           loaned request slots come back (orphaned pool); requests it queued stay queued and
 *           servers answer them to nobody.
 *
 * One Promela step is one atomic access of the C code or (d_step) a section under a topic lock.
 * Futex words are one bit `moved` per waiter (changed since it read the word), as in bell.pml.
 * The publish-side wake-up protocol itself (woken flags, owed wakes) is model/zcast.pml's.
 *
 * Properties:
 *   no wait outlives its server (or client): a live client never blocks for good with a call
 *     pending, nor a server beside a queued request (an invalid end state otherwise: the final
 *     check runs only once every client is finished or dead and every live server sleeps on
 *     an empty queue);
 *   a response reaches only its client: at take, the ghost asker of a response that ends a call
 *     is the taking instance and that call (assert); a call that got a response never fails
 *     (assert at the drop of a response to a failed call);
 *   slots always come back: at the end every request and response slot is FREE, no ring holds
 *     a response of a finished call, no queue holds a request (assert in Final).
 *
 * Options: NSRV servers (1), NCALL calls of A (2), NREQ request slots (1), QD queue depth per
 * server (1); SRVDIE: server 0 may die; CLIDIE: client A may die; REUSE: client B takes A's
 * record over after A is gone. At most one process dies.
 * Mutants (must be rejected):
 *   MUT_NO_MARKER     the hook finds suspect calls but publishes no marker (the server-gone wake)
 *   MUT_RELEASE_FIRST the server releases the request before it publishes the response
 *   MUT_SEND_NO_RECHECK the step after the publish does not check when the hook ran during the
 *                     send (a server reclaimed right after the publish: the call hangs)
 *   MUT_SHARED_TOPIC + MUT_NO_ID_CHECK  the response topic is named by the record alone (B
 *                     subscribes to A's) and the client does not check client id and nonce
 * Finding kept as a regression (must be rejected):
 *   SEND_CHECK_SLOT   the check right after a send is the hook (docs/SERVICES.md as first
 *                     written): a server that answers before the check has already released the
 *                     request, so the answered call looks suspect and gets a marker; with the
 *                     response of the next call and its marker, a ring of 2 x slot_count
 *                     overflows (a response or a marker cannot be queued). The model's send
 *                     instead fails the call at once when its own publish reached nobody.
 *   MUT_CLIENT_NO_OWED the client's reclaim does not perform the wake a client killed between
 *                     its push and its wake of the server owes
 *   MUT_MOVE_NO_WAKE  the reclaim of a dead server moves its queued requests to another server
 *                     without waking it
 */

#ifndef NSRV
#define NSRV 1
#endif
#ifndef NCALL
#define NCALL 2
#endif
#ifndef NREQ
#define NREQ 1
#endif
#ifndef QD
#define QD 1
#endif
#define RD (2 * NREQ) /* response ring depth: 2 x slot_count */
#define NONE 255

#define FREE 0
#define LOANED 1
#define PUB 2

/* request slots (A's pool; B has a pool of its own, modelled by the same arrays after A is gone) */
byte rq_st[NREQ], rq_gen[NREQ];
/* server queues: QD entries of (slot, generation, instance, seq); qn = entries */
byte q_slot[NSRV * QD], q_gen[NSRV * QD], q_inst[NSRV * QD], q_seq[NSRV * QD];
byte qn[NSRV];
bit  srv_dead[NSRV], srv_reclaimed[NSRV];
bit  srv_moved[NSRV], srv_sleeping[NSRV], srv_asleep[NSRV];

/* response slots: one per server */
byte rs_st[NSRV];
/* response rings, one per client instance (MUT_SHARED_TOPIC: one for both): FIFO of entries
 * kind (1 response, 3 marker), seq (response) or marker number, ghost asker instance,
 * response slot */
#ifdef MUT_SHARED_TOPIC
#define RING(i) 0
#define NRING 1
#else
#define RING(i) (i)
#define NRING 2
#endif
byte r_kind[NRING * RD], r_seq[NRING * RD], r_inst[NRING * RD], r_slot[NRING * RD];
byte rn[NRING];
bit  subscribed[NRING]; /* ring r has its subscriber */
bit  cl_moved[NRING], cl_sleeping[NRING], cl_asleep[NRING]; /* the ring's subscriber's wait */

/* instance i's pending call: seq (0: none), request slot and generation, suspect marker */
byte p_seq[2], p_slot[2], p_gen[2], p_suspect[2];
byte markers[2];        /* markers published by instance i */
byte hooks[2];          /* runs of instance i's hook (C: zcast_client.hooks_run) */
bit  sending[2];        /* instance i's call is SENDING: published, not yet pending */
bit  got_resp[2];       /* ghost: the pending call got its response */

bit  a_dead, a_reclaimed, a_done, killed_any, killer_done, b_live;
byte failed_seq[2];     /* ghost: the last call of instance i that failed */
byte tk_slot[NSRV], tk_inst[NSRV], tk_seq[NSRV]; /* what server s took (read once) */
byte finished;
byte k, k2;             /* scratch of d_steps */

/* ------------------------------------------------------------------ helpers */

#define ENTRY(ring, n) ((ring) * RD + (n))

/* publish to instance i's response topic (in a d_step): queued if it subscribes, else nobody */
#define RING_PUSH(i, kind, sq, slot) \
	if \
	:: subscribed[RING(i)] -> \
		assert(rn[RING(i)] < RD); /* a FULL ring of 2 x slot_count never overflows */ \
		r_kind[ENTRY(RING(i), rn[RING(i)])] = kind; r_seq[ENTRY(RING(i), rn[RING(i)])] = sq; \
		r_inst[ENTRY(RING(i), rn[RING(i)])] = i; r_slot[ENTRY(RING(i), rn[RING(i)])] = slot; \
		rn[RING(i)]++ \
	:: else -> \
		if :: slot != NONE -> rs_st[slot] = FREE :: else -> skip fi \
	fi

#define WAKE_CLIENT(i) if :: cl_sleeping[RING(i)] -> d_step { cl_moved[RING(i)] = 1; cl_asleep[RING(i)] = 0 } :: else -> skip fi
#define WAKE_SERVER(s) if :: srv_sleeping[s] -> d_step { srv_moved[s] = 1; srv_asleep[s] = 0 } :: else -> skip fi

/* the client's hook: a pending call whose request slot is no longer PUBLISHED with its
 * generation is suspect; a newly suspect call gets a marker on the own response topic */
#define HOOK_CHECK(i) \
		if \
		:: p_seq[i] != 0 && !sending[i] && p_suspect[i] == 0 && \
		   !(rq_st[p_slot[i]] == PUB && rq_gen[p_slot[i]] == p_gen[i]) -> \
			markers[i]++; \
			p_suspect[i] = markers[i]; \
			MARKER_PUSH(i) \
		:: else -> skip \
		fi

#ifndef MUT_NO_MARKER
#define MARKER_PUSH(i) RING_PUSH(i, 3, markers[i], NONE)
#else
#define MARKER_PUSH(i) skip
#endif

inline hook(i)
{
	d_step {
		hooks[i]++;
		HOOK_CHECK(i)
	};
#ifndef MUT_NO_MARKER
	WAKE_CLIENT(i)
#endif
}

/* the request in server queue entry e is released: its slot comes back, a new generation */
#define RELEASE_REQ(sl) rq_st[sl] = FREE; rq_gen[sl]++

inline reclaim_server(s)
{
	d_step {
		/* its queued requests: to another live server with room, else released */
		k = 0;
		do
		:: k < qn[s] ->
			k2 = 0;
			do
			:: k2 < NSRV && (k2 == s || srv_reclaimed[k2] || srv_dead[k2] || qn[k2] >= QD) -> k2++
			:: else -> break
			od;
			if
			:: k2 < NSRV ->
				q_slot[k2 * QD + qn[k2]] = q_slot[s * QD + k]; q_gen[k2 * QD + qn[k2]] = q_gen[s * QD + k];
				q_inst[k2 * QD + qn[k2]] = q_inst[s * QD + k]; q_seq[k2 * QD + qn[k2]] = q_seq[s * QD + k];
				qn[k2]++
			:: else -> RELEASE_REQ(q_slot[s * QD + k])
			fi;
			k++
		:: else -> break
		od;
		qn[s] = 0;
		/* its taken request and its loaned response slot */
		if :: tk_slot[s] != NONE -> RELEASE_REQ(tk_slot[s]); tk_slot[s] = NONE :: else -> skip fi;
		if :: rs_st[s] == LOANED -> rs_st[s] = FREE :: else -> skip fi;
		k = 0; k2 = 0;
		srv_reclaimed[s] = 1
	};
	/* requests moved to a server wake it (it may sleep on what was an empty queue) */
#ifndef MUT_MOVE_NO_WAKE
	k2 = 0;
	do
	:: k2 < NSRV -> WAKE_SERVER(k2); k2++
	:: else -> k2 = 0; break
	od
#else
	skip
#endif
}

inline reclaim_client()
{
	d_step {
		subscribed[RING(0)] = 0;
		k = 0;
		do
		:: k < rn[RING(0)] ->
			if :: r_kind[ENTRY(RING(0), k)] == 1 -> rs_st[r_slot[ENTRY(RING(0), k)]] = FREE :: else -> skip fi;
			k++
		:: else -> break
		od;
		rn[RING(0)] = 0;
		k = 0;
		do
		:: k < NREQ -> if :: rq_st[k] == LOANED -> rq_st[k] = FREE :: else -> skip fi; k++
		:: else -> k = 0; break
		od;
		p_seq[0] = 0;
		a_reclaimed = 1
	};
	/* the wake a publisher killed between its push and its wake owes (the death watcher's owed
	 * wake, checked in model/zcast.pml: MUT_NO_OWED there) */
#ifndef MUT_CLIENT_NO_OWED
	k2 = 0;
	do
	:: k2 < NSRV -> WAKE_SERVER(k2); k2++
	:: else -> k2 = 0; break
	od
#else
	skip
#endif
}

/* ------------------------------------------------------------------ client */

proctype Client(byte i; byte ncall)
{
	byte seq = 0, slot, s, x, h;
	bit ended, failed;
	{
	do
	:: seq < ncall ->
		seq++;
		/* loan */
		d_step {
			slot = 0;
			do
			:: slot < NREQ && rq_st[slot] != FREE -> slot++
			:: else -> break
			od;
			if :: slot < NREQ -> rq_st[slot] = LOANED :: else -> skip fi
		};
		if :: slot == NREQ -> goto next :: else -> skip fi; /* ZCAST_ENOSLOT */
		h = hooks[i]; /* with the call made SENDING, under the client's mutex */
		/* publish (under the topic lock): the group's next member with room (round robin: the
		 * model lets it start at any member) */
		s = 0;
		if :: NSRV > 1 -> s = NSRV - 1 :: true -> skip fi;
		d_step {
			if :: s > 0 && (srv_reclaimed[s] || qn[s] >= QD) -> s = 0 :: else -> skip fi;
			do
			:: s < NSRV && (srv_reclaimed[s] || qn[s] >= QD) -> s++
			:: else -> break
			od;
			if
			:: s < NSRV ->
				q_slot[s * QD + qn[s]] = slot; q_gen[s * QD + qn[s]] = rq_gen[slot];
				q_inst[s * QD + qn[s]] = i; q_seq[s * QD + qn[s]] = seq;
				qn[s]++;
				rq_st[slot] = PUB;
				p_seq[i] = seq; p_slot[i] = slot; p_gen[i] = rq_gen[slot]; p_suspect[i] = 0; got_resp[i] = 0;
				sending[i] = 1
			:: else ->
				x = 0;
				do
				:: x < NSRV && srv_reclaimed[x] -> x++
				:: else -> break
				od;
				if
				:: x == NSRV -> /* no member left: nothing published, the loan comes back */
					rq_gen[slot]++; rq_st[slot] = FREE;
#ifdef SEND_CHECK_SLOT
					p_seq[i] = seq; p_slot[i] = slot; p_gen[i] = rq_gen[slot] - 1; p_suspect[i] = 0;
					got_resp[i] = 0
#else
					s = NONE /* the publish's own result: ZCAST_ENOSERVER at once */
#endif
				:: else -> rq_st[slot] = FREE; s = NONE /* ZCAST_EAGAIN: every queue full */
				fi;
				x = 0
			fi
		};
		if :: s == NONE -> goto next :: else -> skip fi;
		if :: s < NSRV -> WAKE_SERVER(s) :: else -> skip fi;
		/* the step after the publish, under the client's mutex: the call is pending; a hook that
		 * ran while it was SENDING passed it by, so its check runs now */
		d_step {
			sending[i] = 0;
#ifndef MUT_SEND_NO_RECHECK
			if :: hooks[i] != h -> HOOK_CHECK(i) :: else -> skip fi
#else
			skip
#endif
		};
#ifdef SEND_CHECK_SLOT
		hook(i);
#endif
		/* wait for the response or the failure of this call */
		ended = 0;
		do
		:: ended -> break
		:: else ->
			cl_moved[RING(i)] = 0; /* v = word */
			cl_sleeping[RING(i)] = 1;
			if
			:: rn[RING(i)] > 0 -> cl_sleeping[RING(i)] = 0
			:: else ->
				d_step { if :: !cl_moved[RING(i)] -> cl_asleep[RING(i)] = 1 :: else -> skip fi };
				(!cl_asleep[RING(i)]) -> cl_sleeping[RING(i)] = 0
			fi;
			/* take the oldest entry (one CAS of the ring head), check it, act on it */
			d_step {
				if
				:: rn[RING(i)] > 0 ->
					if
					:: r_kind[ENTRY(RING(i), 0)] == 1 ->
#ifdef MUT_NO_ID_CHECK
						if :: r_seq[ENTRY(RING(i), 0)] == p_seq[i] ->
#else
						if :: r_inst[ENTRY(RING(i), 0)] == i && r_seq[ENTRY(RING(i), 0)] == p_seq[i] ->
#endif
							/* a response reaches only its client */
							assert(r_inst[ENTRY(RING(i), 0)] == i);
							got_resp[i] = 1; p_seq[i] = 0; ended = 1
						:: else ->
							/* not for a pending call of this instance: dropped. A call
							 * that failed never gets a response */
							assert(r_inst[ENTRY(RING(i), 0)] != i || r_seq[ENTRY(RING(i), 0)] != failed_seq[i])
						fi;
						rs_st[r_slot[ENTRY(RING(i), 0)]] = FREE /* released after use */
					:: else -> /* marker */
						if
						:: p_seq[i] != 0 && p_suspect[i] != 0 && p_suspect[i] <= r_seq[ENTRY(RING(i), 0)] ->
							failed_seq[i] = p_seq[i]; p_seq[i] = 0; ended = 1 /* ZCAST_ESRVGONE */
						:: else -> skip
						fi
					fi;
					/* pop */
					x = 1;
					do
					:: x < rn[RING(i)] ->
						r_kind[ENTRY(RING(i), x - 1)] = r_kind[ENTRY(RING(i), x)];
						r_seq[ENTRY(RING(i), x - 1)] = r_seq[ENTRY(RING(i), x)];
						r_inst[ENTRY(RING(i), x - 1)] = r_inst[ENTRY(RING(i), x)];
						r_slot[ENTRY(RING(i), x - 1)] = r_slot[ENTRY(RING(i), x)];
						x++
					:: else -> break
					od;
					rn[RING(i)]--;
					r_kind[ENTRY(RING(i), rn[RING(i)])] = 0; r_seq[ENTRY(RING(i), rn[RING(i)])] = 0;
					r_inst[ENTRY(RING(i), rn[RING(i)])] = 0; r_slot[ENTRY(RING(i), rn[RING(i)])] = 0;
					x = 0
				:: else -> skip
				fi
			}
		od;
next:		skip
	:: else -> break
	od
	} unless { i == 0 && a_dead };
	skip;
	d_step {
		if :: i == 0 -> a_done = 1 :: else -> skip fi;
		if :: !(i == 0 && a_dead) -> finished++; subscribed[RING(i)] = 0 :: else -> skip fi /* close */
	}
}

/* ------------------------------------------------------------------ server */

proctype Server(byte s)
{
	byte x;
	{
	do
	:: /* take the oldest request of its queue; slot, generation, instance, seq read once */
		d_step {
			if
			:: qn[s] > 0 ->
				tk_slot[s] = q_slot[s * QD]; tk_inst[s] = q_inst[s * QD]; tk_seq[s] = q_seq[s * QD];
				x = 1;
				do
				:: x < qn[s] ->
					q_slot[s * QD + x - 1] = q_slot[s * QD + x]; q_gen[s * QD + x - 1] = q_gen[s * QD + x];
					q_inst[s * QD + x - 1] = q_inst[s * QD + x]; q_seq[s * QD + x - 1] = q_seq[s * QD + x];
					x++
				:: else -> break
				od;
				qn[s]--;
				q_slot[s * QD + qn[s]] = 0; q_gen[s * QD + qn[s]] = 0; q_inst[s * QD + qn[s]] = 0;
				q_seq[s * QD + qn[s]] = 0;
				x = 0
			:: else -> tk_slot[s] = NONE
			fi
		};
		if
		:: tk_slot[s] == NONE ->
			srv_moved[s] = 0; /* v = word */
			srv_sleeping[s] = 1;
			if
			:: qn[s] > 0 -> srv_sleeping[s] = 0
			:: else ->
				d_step { if :: !srv_moved[s] -> srv_asleep[s] = 1 :: else -> skip fi };
end:				(!srv_asleep[s]) -> srv_sleeping[s] = 0
			fi
		:: else ->
			assert(rs_st[s] == FREE); /* one response in flight per server */
			rs_st[s] = LOANED;
#ifdef MUT_RELEASE_FIRST
			d_step { RELEASE_REQ(tk_slot[s]); tk_slot[s] = NONE };
#endif
			/* publish on the asking instance's response topic */
			d_step { rs_st[s] = PUB; RING_PUSH(tk_inst[s], 1, tk_seq[s], s) };
			WAKE_CLIENT(tk_inst[s]);
#ifndef MUT_RELEASE_FIRST
			/* only then release the request */
			d_step { RELEASE_REQ(tk_slot[s]); tk_slot[s] = NONE };
#endif
			d_step { tk_inst[s] = 0; tk_seq[s] = 0 }
		fi
	od
	} unless { srv_dead[s] }
}

/* ------------------------------------------------------------------ deaths */

proctype Killer()
{
	if
#ifdef CLIDIE
	:: d_step { a_done == 0; a_dead = 1; killed_any = 1 };
		reclaim_client()
#endif
#ifdef SRVDIE
	:: srv_dead[0] = 1; killed_any = 1;
		reclaim_server(0);
		/* the client's death watcher: its hook after the reclaim (if the client lives) */
		if :: !a_dead && !a_done -> hook(0) :: else -> skip fi;
		if :: b_live -> hook(1) :: else -> skip fi
#endif
	:: skip
	fi;
	killer_done = 1
}

/* B takes A's member record over once A is gone (closed, or dead and reclaimed) */
proctype Opener()
{
#ifdef REUSE
	(a_done && (!a_dead || a_reclaimed));
	d_step { subscribed[RING(1)] = 1; b_live = 1 };
	run Client(1, 1)
#else
	skip
#endif
}

/* ------------------------------------------------------------------ end state */

#ifdef REUSE
#define NCLIENTS 2
#else
#define NCLIENTS 1
#endif

active proctype Final()
{
	byte x;
	/* every client finished or dead and reclaimed, the killer done, every live server asleep */
	(finished + a_reclaimed == NCLIENTS && killer_done &&
	 (srv_dead[0] || srv_asleep[0]) && (NSRV < 2 || srv_dead[NSRV - 1] || srv_asleep[NSRV - 1]));
	/* nobody sleeps beside a request */
	x = 0;
	do
	:: x < NSRV -> assert(srv_dead[x] || qn[x] == 0); x++
	:: else -> break
	od;
	skip;
	/* the rings of finished instances are closed: their responses come back */
	d_step {
		x = 0;
		do
		:: x < NRING * RD ->
			if :: x % RD < rn[x / RD] && r_kind[x] == 1 -> rs_st[r_slot[x]] = FREE :: else -> skip fi;
			x++
		:: else -> x = 0; break
		od
	};
	/* slots always come back */
	x = 0;
	do
	:: x < NREQ -> assert(rq_st[x] == FREE); x++
	:: else -> break
	od;
	x = 0;
	do
	:: x < NSRV -> assert(srv_dead[x] || rs_st[x] == FREE); x++
	:: else -> break
	od
}

init
{
	byte s = 0;
	atomic {
		subscribed[0] = 1;
		do
		:: s < NSRV -> tk_slot[s] = NONE; run Server(s); s++
		:: else -> break
		od;
		run Client(0, NCALL);
		run Killer();
		run Opener()
	}
}
