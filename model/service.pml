/* service.pml -- the request/response handshake of a zcast service (docs/SERVICES.md), with a
 * server that dies or closes, a client that dies, a server that refuses a request, a forger and
 * a reused client record. C code: src/svc/ (names of the C functions at each step below).
 *
 * The route: requests are publishes on `<service>/_rq`, whose servers are one BALANCE_RR group
 * `_handover_servers` (each request is queued at exactly one live server with room); responses,
 * failures and refusals go to the asking client instance's own response topic
 * `_rs/c<id>_<nonce>`, a FULL ring only that instance subscribes to (client A: ring 0; client
 * B, which takes A's member record over once A is gone: ring 1, a new id and nonce). Client A
 * makes NCALL blocking calls, one at a time, with NREQ request slots; then (REUSE) client B
 * makes one.
 *
 *   client send (zc_svc_send, publish_req): loan a request slot (zcast_request_loan: FREE ->
 *           LOANED, generation kept); read the hook count and make the call SENDING (under
 *           cli->mu); publish (zcast_publish, under the topic lock): the group queues it at
 *           one member with room that is not DRAINING (slot PUBLISHED; a dead member not
 *           reclaimed yet counts: no liveness probe) and wakes that server if it sleeps; every
 *           queue full -> ZCAST_EAGAIN (slot back); no member -> ZCAST_ENOSERVER (nothing
 *           published, the loan dropped). The step after the publish (under cli->mu) makes the
 *           call PENDING and, if the hook ran meanwhile, runs zc_svc_client_check.
 *   client wait (zcast_client_call -> zcast_response_take / zcast_client_wait): v = word;
 *           announce; re-check the ring; futex_wait(word, v). Take (zcast_take, FIFO) and
 *           zc_svc_client_absorb: a response whose client id / nonce is its own and whose seq
 *           is pending ends the call; a failure (kind 4, a closed server) or a refusal (kind 5)
 *           for a pending seq ends it with ZCAST_ESRVGONE ("closed") / ZCAST_EREFUSED; anything
 *           else is dropped (slot released). A marker (settle): a call made suspect by that
 *           marker (or an earlier one) and still pending fails with ZCAST_ESRVGONE ("died").
 *           The marker's slot comes back at the take (zcast_msg_drop); a marker owed (below) is
 *           published then.
 *   server (zcast_request_take, zc_svc_server_adopt, zcast_response_loan/_send): take a request
 *           from its queue (header read once; the publisher's member id copied by the core);
 *           adopt it: a client id that is not its publisher's, or no memory for the table entry
 *           (REFUSE), is refused (refuse(): zc_svc_notify of a refusal to the publisher's
 *           response topic, then the request dropped); else loan a response slot, publish it on
 *           the asking instance's response topic (queued and the client woken if the instance
 *           still subscribes, else published to nobody: slot back), only then release the
 *           request (taken_forget: slot FREE, generation + 1). Queue empty: sleep.
 *   server close (CLOSE; zcast_server_close -> zc_svc_server_fail_all): at the top of its loop
 *           or with a request taken and not answered: zc_sub_retire (under the topic lock: the
 *           record DRAINING, no longer a target; zc_rr_handover gives each queued request to
 *           another live member with room that is not DRAINING, in order, until nobody has
 *           room; zc_wake_all if any moved); then takes what stayed queued into its table
 *           (zcast_take + adopt, which refuses a forged one); then for each request in its
 *           table: zc_svc_notify a failure (kind 4) to the asking instance, then drop the
 *           request; then zcast_sub_close (the member leaves: a membership change, so every
 *           client's death watcher runs the hook).
 *   reclaim of a dead server (zc_reclaim_locked, under the topic lock, by a death watcher): its
 *           queued requests go to another live server with room (zc_rr_handover), else are
 *           released; what it had taken (also the table a close was working through) is
 *           released; its loaned response slot comes back; responses already queued stay.
 *   the client's hook (client_changed -> zc_svc_client_check; the death watcher after each
 *           reclaim and each membership change, and its follower at any move of a watched
 *           graph word: CHURN lets it run once more at any moment; it counts its runs): a
 *           PENDING call whose request slot is no longer PUBLISHED with its generation is
 *           SUSPECT; if any call is newly suspect: publish a marker on the own response topic
 *           (publish_marker: a loan from the client's marker pool of slot_count slots; every
 *           slot queued -> the loan fails and the marker is owed, published when a marker is
 *           taken and its slot comes back; BUG_MARKER_LOST: never published, as the C code did).
 *   reclaim of a dead client: its ring loses its subscriber (queued responses released); its
 *           loaned request slots come back (orphaned pool); requests it queued stay queued and
 *           servers answer them to nobody.
 *   forger (FORGE): another member of `_rq` publishes one request whose header carries A's id
 *           and A's first seq; the core records its own member id as the publisher.
 *
 * One Promela step is one atomic access of the C code or (d_step) a section under a lock.
 * Futex words are one bit `moved` per waiter (changed since it read the word), as in bell.pml.
 * The publish-side wake-up protocol itself (woken flags, owed wakes) is model/zcast.pml's.
 *
 * Properties:
 *   every call ends (a response, ZCAST_ESRVGONE or ZCAST_EREFUSED): a live client never blocks
 *     for good with a call pending, nor a server beside a queued request (an invalid end state
 *     otherwise: the final check runs only once every client is finished or dead and every live
 *     server sleeps on an empty queue or has closed);
 *   exactly one outcome per call, and the right one: the response that ends a call is the
 *     answer to that call's own request (a ghost origin travels with it) and is queued on the
 *     taking instance's ring; a call that failed never gets a response afterwards; a refused
 *     call ends with its refusal, a call failed by a closing server with that failure (never
 *     a marker's "died");
 *   no response delivered to a reused client record (B never takes one meant for A: the
 *     origin and instance asserts above);
 *   every slot returns: at the end every request slot (clients' and the forger's) and response
 *     slot is FREE, no ring holds a response of a finished call, no queue holds a request;
 *   no slot reused while held: a request slot is released only while PUBLISHED with the
 *     generation of the reference that releases it (assert in RELEASE_REQ), loaned only when
 *     FREE; a response slot is loaned only when FREE.
 *
 * Options: NSRV servers (1), NCALL calls of A (2), NREQ request slots (1), QD queue depth per
 * server (1); SRVDIE: server 0 may die; CLIDIE: client A may die; REUSE: client B takes A's
 * record over after A is gone; CLOSE: server CLOSER (NSRV - 1) may close; REFUSE: one request
 * may be refused for want of memory; FORGE: a forger publishes one request in A's name; CHURN:
 * A's hook runs once more at any moment. At most one process dies.
 * Mutants (must be rejected):
 *   MUT_NO_MARKER     the hook finds suspect calls but publishes no marker (the server-gone wake)
 *   MUT_RELEASE_FIRST the server releases the request before it publishes the response
 *   MUT_SEND_NO_RECHECK the step after the publish does not check when the hook ran during the
 *                     send (a server reclaimed right after the publish: the call hangs)
 *   MUT_SHARED_TOPIC + MUT_NO_ID_CHECK  the response topic is named by the record alone (B
 *                     subscribes to A's) and the client does not check client id and nonce
 *   MUT_CLIENT_NO_OWED the client's reclaim does not perform the wake a client killed between
 *                     its push and its wake of the server owes
 *   MUT_MOVE_NO_WAKE  the reclaim of a dead server moves its queued requests to another server
 *                     without waking it
 *   MUT_CLOSE_FORGETS_TAKEN  a closing server fails the requests it took from its queue at
 *                     close, not the one it had taken before (zc_svc_server_fail_all without
 *                     the table's earlier entries)
 *   MUT_CLOSE_NO_WAKE the close's handover moves requests without waking the taker
 *   MUT_CLOSE_RELEASE_FIRST  a closing server drops the request it had taken before that
 *                     request's failure is published
 *   MUT_NO_REFUSAL    a refused request is dropped without a refusal
 *   MUT_SRV_NO_ID_CHECK  the server does not compare the header's client id with the
 *                     publisher's member id (a forged id is answered)
 * Finding kept as a regression (must be rejected):
 *   BUG_MARKER_LOST   a marker whose loan fails (every marker slot queued) is never published
 *                     (src/svc/client_deaths.c before svc-model): with a stale marker queued a
 *                     suspect call is never settled.
 * Design option (verifies; not in check.sh): SEND_CHECK_SLOT, the check right after a send is
 * the hook (docs/SERVICES.md as first written): an answered call looks suspect and costs a
 * marker. The first model, without the marker pool, found its ring overflowing; with the pool
 * the markers are bounded and it verifies clean (docs/MODEL.md).
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
#ifndef CLOSER
#define CLOSER (NSRV - 1)
#endif
#define RD (2 * NREQ) /* response ring depth: 2 x slot_count */
#define NONE 255
#define FSLOT NREQ    /* the forger's request slot (its own pool of one) */
#define NRQ (NREQ + 1)
#define FORGER 2      /* the forger's member id (instances 0 and 1 are A and B) */

#define FREE 0
#define LOANED 1
#define PUB 2

/* kinds of the response topics' messages (src/svc/svc_internal.h) */
#define K_RESPONSE 2
#define K_MARKER 3
#define K_FAILURE 4
#define K_REFUSED 5

/* request slots (A's pool; B has a pool of its own, modelled by the same arrays after A is
 * gone; slot FSLOT is the forger's) */
byte rq_st[NRQ], rq_gen[NRQ];
/* server queues: QD entries of (slot, generation, header client id, seq, publisher member id);
 * qn = entries */
byte q_slot[NSRV * QD], q_gen[NSRV * QD], q_inst[NSRV * QD], q_seq[NSRV * QD], q_pub[NSRV * QD];
byte qn[NSRV];
bit  srv_dead[NSRV], srv_reclaimed[NSRV]; /* reclaimed: no longer a member (reclaim or close) */
bit  srv_draining[NSRV];                  /* its record DRAINING: no longer a target */
bit  srv_moved[NSRV], srv_sleeping[NSRV], srv_asleep[NSRV];

/* response slots: one per server */
byte rs_st[NSRV];
/* response rings, one per client instance (MUT_SHARED_TOPIC: one for both): FIFO of entries
 * kind, seq (response, failure, refusal) or marker number, header client id (instance),
 * response slot (NONE: a header-only message), ghost origin (the request slot it answers) */
#ifdef MUT_SHARED_TOPIC
#define RING(i) 0
#define NRING 1
#else
#define RING(i) (i)
#define NRING 2
#endif
byte r_kind[NRING * RD], r_seq[NRING * RD], r_inst[NRING * RD], r_slot[NRING * RD];
byte r_org[NRING * RD];
byte rn[NRING];
bit  subscribed[NRING]; /* ring r has its subscriber */
bit  cl_moved[NRING], cl_sleeping[NRING], cl_asleep[NRING]; /* the ring's subscriber's wait */

/* instance i's pending call: seq (0: none), request slot and generation, suspect marker */
byte p_seq[2], p_slot[2], p_gen[2], p_suspect[2];
byte markers[2];        /* markers numbered by instance i (C: next_marker) */
byte mk_held[2];        /* instance i's marker slots loaned or queued (its pool: NREQ) */
bit  mk_owed[2];        /* a marker whose loan failed, to publish when a marker slot comes back */
byte hooks[2];          /* runs of instance i's hook (C: zcast_client.hooks_run) */
bit  sending[2];        /* instance i's call is SENDING: published, not yet pending */
bit  live[2];           /* instance i is open (its hook is in the process's list) */
byte failed_seq[2];     /* ghost: the last call of instance i that failed */
byte g_refused[2];      /* ghost: a call of instance i that a server refused */
byte g_closed[2];       /* ghost: a call of instance i that a closing server failed */

bit  a_dead, a_reclaimed, a_done, killer_done, b_live, forger_done;
byte tk_slot[NSRV], tk_gen[NSRV], tk_inst[NSRV], tk_seq[NSRV], tk_pub[NSRV]; /* taken (read once) */
/* a closing server's table: the requests it took from its queue at close */
byte cl_slot[QD], cl_gen[QD], cl_inst[QD], cl_seq[QD], cl_pub[QD];
byte cl_n;
bit  refused_once;      /* REFUSE: the one want of memory happened */
byte finished;
byte k, k2;             /* scratch of d_steps */

/* ------------------------------------------------------------------ helpers */

#define ENTRY(ring, n) ((ring) * RD + (n))

/* publish to instance i's response topic (in a d_step): queued if it subscribes, else nobody.
 * The forger has no response topic: route_open finds none, nothing is published. */
#define RING_PUSH(i, kind, sq, slot, org) \
	if \
	:: i < FORGER && subscribed[RING(i)] -> \
		assert(rn[RING(i)] < RD); /* a FULL ring of 2 x slot_count never overflows */ \
		r_kind[ENTRY(RING(i), rn[RING(i)])] = kind; r_seq[ENTRY(RING(i), rn[RING(i)])] = sq; \
		r_inst[ENTRY(RING(i), rn[RING(i)])] = i; r_slot[ENTRY(RING(i), rn[RING(i)])] = slot; \
		r_org[ENTRY(RING(i), rn[RING(i)])] = org; \
		rn[RING(i)]++ \
	:: else -> \
		if :: slot != NONE -> rs_st[slot] = FREE :: else -> skip fi \
	fi

#define WAKE_CLIENT(i) if :: i < FORGER && cl_sleeping[RING(i)] -> d_step { cl_moved[RING(i)] = 1; cl_asleep[RING(i)] = 0 } :: else -> skip fi
#define WAKE_SERVER(s) if :: srv_sleeping[s] -> d_step { srv_moved[s] = 1; srv_asleep[s] = 0 } :: else -> skip fi

/* the request in slot sl is released by a reference of generation g: it must be held (PUBLISHED)
 * with that generation; its slot comes back, a new generation */
#define RELEASE_REQ(sl, g) assert(rq_st[sl] == PUB && rq_gen[sl] == g); rq_st[sl] = FREE; rq_gen[sl]++

/* publish_marker: a loan from the marker pool (NREQ slots); none free: the marker is owed */
#ifndef MUT_NO_MARKER
#define MARKER_PUSH(i) \
	if \
	:: mk_held[i] < NREQ -> RING_PUSH(i, K_MARKER, markers[i], NONE, NONE); mk_held[i]++; mk_owed[i] = 0 \
	:: else -> mk_owed[i] = 1 \
	fi
#else
#define MARKER_PUSH(i) skip
#endif

/* zc_svc_client_check: a pending call whose request slot is no longer PUBLISHED with its
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

/* client_changed: the death watcher's hook for a client still in the process's list */
inline hook(i)
{
	d_step {
		if
		:: live[i] ->
			hooks[i]++;
			HOOK_CHECK(i)
		:: else -> skip
		fi
	};
#ifndef MUT_NO_MARKER
	WAKE_CLIENT(i)
#endif
}

byte qpop; /* scratch of POP_QUEUE */

/* drop the oldest entry of server s's queue (in a d_step) */
#define POP_QUEUE(s) \
	qpop = 1; \
	do \
	:: qpop < qn[s] -> \
		q_slot[s * QD + qpop - 1] = q_slot[s * QD + qpop]; q_gen[s * QD + qpop - 1] = q_gen[s * QD + qpop]; \
		q_inst[s * QD + qpop - 1] = q_inst[s * QD + qpop]; q_seq[s * QD + qpop - 1] = q_seq[s * QD + qpop]; \
		q_pub[s * QD + qpop - 1] = q_pub[s * QD + qpop]; \
		qpop++ \
	:: else -> break \
	od; \
	qn[s]--; \
	q_slot[s * QD + qn[s]] = 0; q_gen[s * QD + qn[s]] = 0; q_inst[s * QD + qn[s]] = 0; \
	q_seq[s * QD + qn[s]] = 0; q_pub[s * QD + qn[s]] = 0; \
	qpop = 0


/* zc_rr_handover (in a d_step, under the topic lock): server s's queued requests, oldest first,
 * each to the next live member other than s with room that is not DRAINING, until nobody has
 * room; what is given leaves s's queue; k2 ends as the count given */
inline handover(s)
{
	k = 0; k2 = 0;
	do
	:: qn[s] > 0 ->
		k = 0;
		do
		:: k < NSRV && (k == s || srv_reclaimed[k] || srv_dead[k] || srv_draining[k] || qn[k] >= QD) -> k++
		:: else -> break
		od;
		if
		:: k < NSRV ->
			q_slot[k * QD + qn[k]] = q_slot[s * QD]; q_gen[k * QD + qn[k]] = q_gen[s * QD];
			q_inst[k * QD + qn[k]] = q_inst[s * QD]; q_seq[k * QD + qn[k]] = q_seq[s * QD];
			q_pub[k * QD + qn[k]] = q_pub[s * QD];
			qn[k]++;
			POP_QUEUE(s);
			k2++
		:: else -> break
		fi
	:: else -> break
	od;
	k = 0
}


/* wake every server that sleeps; w: a local of the caller (two processes may wake at once) */
inline wake_servers(w)
{
	w = 0;
	do
	:: w < NSRV -> WAKE_SERVER(w); w++
	:: else -> w = 0; break
	od
}

inline reclaim_server(s, w)
{
	d_step {
		/* its queued requests: to other live servers with room (zc_rr_handover), the rest
		 * released with its bits */
		handover(s);
		k2 = 0;
		do
		:: qn[s] > 0 -> RELEASE_REQ(q_slot[s * QD], q_gen[s * QD]); POP_QUEUE(s)
		:: else -> break
		od;
		/* what it had taken (and the table a close was failing) is released */
		if :: tk_slot[s] != NONE -> RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE :: else -> skip fi;
		if
		:: s == CLOSER ->
			do
			:: cl_n > 0 -> cl_n--; RELEASE_REQ(cl_slot[cl_n], cl_gen[cl_n]); cl_slot[cl_n] = 0; cl_gen[cl_n] = 0;
				cl_inst[cl_n] = 0; cl_seq[cl_n] = 0; cl_pub[cl_n] = 0
			:: else -> break
			od
		:: else -> skip
		fi;
		if :: rs_st[s] == LOANED -> rs_st[s] = FREE :: else -> skip fi;
		k = 0; k2 = 0;
		srv_reclaimed[s] = 1
	};
	/* requests moved to a server wake it (it may sleep on what was an empty queue) */
#ifndef MUT_MOVE_NO_WAKE
	wake_servers(w)
#else
	skip
#endif
}

inline reclaim_client(w)
{
	d_step {
		subscribed[RING(0)] = 0;
		live[0] = 0;
		k = 0;
		do
		:: k < rn[RING(0)] ->
			if :: r_slot[ENTRY(RING(0), k)] != NONE -> rs_st[r_slot[ENTRY(RING(0), k)]] = FREE :: else -> skip fi;
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
	wake_servers(w)
#else
	skip
#endif
}

/* the publish of a request on `_rq` (in a d_step, under the topic lock): the group's next
 * member with room that is not DRAINING, from `s` on (the caller picks the start: round robin);
 * s = NSRV when none */
#define PICK_TARGET(s) \
	if :: s > 0 && (srv_reclaimed[s] || srv_draining[s] || qn[s] >= QD) -> s = 0 :: else -> skip fi; \
	do \
	:: s < NSRV && (srv_reclaimed[s] || srv_draining[s] || qn[s] >= QD) -> s++ \
	:: else -> break \
	od

#define ENQUEUE(s, slot, gen, inst, sq, pub) \
	q_slot[s * QD + qn[s]] = slot; q_gen[s * QD + qn[s]] = gen; \
	q_inst[s * QD + qn[s]] = inst; q_seq[s * QD + qn[s]] = sq; q_pub[s * QD + qn[s]] = pub; \
	qn[s]++

/* ------------------------------------------------------------------ client */

proctype Client(byte i; byte ncall)
{
	byte seq = 0, slot, s, x, h;
	bit ended, owed_chk;
	{
	do
	:: seq < ncall ->
		seq++;
		/* zcast_request_loan: a FREE slot of the own pool */
		d_step {
			slot = 0;
			do
			:: slot < NREQ && rq_st[slot] != FREE -> slot++
			:: else -> break
			od;
			if :: slot < NREQ -> rq_st[slot] = LOANED :: else -> skip fi
		};
		if :: slot == NREQ -> goto next :: else -> skip fi; /* ZCAST_ENOSLOT */
		h = hooks[i]; /* zc_svc_send: the call SENDING, the hook count read, under cli->mu */
		/* publish_req -> zcast_publish (under the topic lock): round robin (the model lets
		 * it start at any member) */
		s = 0;
		if :: NSRV > 1 -> s = NSRV - 1 :: true -> skip fi;
		d_step {
			PICK_TARGET(s);
			if
			:: s < NSRV ->
				ENQUEUE(s, slot, rq_gen[slot], i, seq, i);
				rq_st[slot] = PUB;
				p_seq[i] = seq; p_slot[i] = slot; p_gen[i] = rq_gen[slot]; p_suspect[i] = 0;
				sending[i] = 1
			:: else ->
				x = 0;
				do
				:: x < NSRV && (srv_reclaimed[x] || srv_draining[x]) -> x++
				:: else -> break
				od;
				if
				:: x == NSRV -> /* no member left: nothing published, the loan comes back */
					rq_gen[slot]++; rq_st[slot] = FREE;
#ifdef SEND_CHECK_SLOT
					p_seq[i] = seq; p_slot[i] = slot; p_gen[i] = rq_gen[slot] - 1; p_suspect[i] = 0
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
		/* zc_svc_send after the publish, under cli->mu: the call is PENDING; a hook that ran
		 * while it was SENDING passed it by, so zc_svc_client_check runs now */
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
		/* zcast_client_call: wait for the outcome of this call */
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
			/* zcast_take (one CAS of the ring head) and zc_svc_client_absorb */
			d_step {
				if
				:: rn[RING(i)] > 0 ->
					if
					:: r_kind[ENTRY(RING(i), 0)] == K_RESPONSE ->
#ifdef MUT_NO_ID_CHECK
						if :: p_seq[i] != 0 && r_seq[ENTRY(RING(i), 0)] == p_seq[i] ->
#else
						if :: p_seq[i] != 0 && r_inst[ENTRY(RING(i), 0)] == i && r_seq[ENTRY(RING(i), 0)] == p_seq[i] ->
#endif
							/* a response reaches only its client, and answers its request */
							assert(r_inst[ENTRY(RING(i), 0)] == i);
							assert(r_org[ENTRY(RING(i), 0)] == p_slot[i]);
							/* a refused call gets no response */
							assert(g_refused[i] != p_seq[i]);
							p_seq[i] = 0; ended = 1
						:: else ->
							/* not for a pending call of this instance: dropped. A call
							 * that failed never gets a response */
							assert(r_inst[ENTRY(RING(i), 0)] != i || r_seq[ENTRY(RING(i), 0)] != failed_seq[i])
						fi;
						rs_st[r_slot[ENTRY(RING(i), 0)]] = FREE /* released after use */
					:: r_kind[ENTRY(RING(i), 0)] == K_FAILURE || r_kind[ENTRY(RING(i), 0)] == K_REFUSED ->
						if
						:: p_seq[i] != 0 && r_inst[ENTRY(RING(i), 0)] == i && r_seq[ENTRY(RING(i), 0)] == p_seq[i] ->
							/* ZCAST_ESRVGONE ("closed") or ZCAST_EREFUSED */
							assert(r_kind[ENTRY(RING(i), 0)] == K_REFUSED || g_refused[i] != p_seq[i]);
							failed_seq[i] = p_seq[i]; p_seq[i] = 0; ended = 1
						:: else -> skip /* no pending call: rejected */
						fi
					:: else -> /* marker: settle */
						if
						:: p_seq[i] != 0 && p_suspect[i] != 0 && p_suspect[i] <= r_seq[ENTRY(RING(i), 0)] ->
							/* ZCAST_ESRVGONE ("died"): never for a call that has a
							 * refusal or a close's failure queued ahead */
							assert(g_refused[i] != p_seq[i] && g_closed[i] != p_seq[i]);
							failed_seq[i] = p_seq[i]; p_seq[i] = 0; ended = 1
						:: else -> skip
						fi;
						/* zcast_msg_drop: its marker slot comes back (an owed marker is
						 * published below, once the take has popped the entry) */
						mk_held[r_inst[ENTRY(RING(i), 0)]]--;
						owed_chk = 1
					fi;
					/* pop */
					x = 1;
					do
					:: x < rn[RING(i)] ->
						r_kind[ENTRY(RING(i), x - 1)] = r_kind[ENTRY(RING(i), x)];
						r_seq[ENTRY(RING(i), x - 1)] = r_seq[ENTRY(RING(i), x)];
						r_inst[ENTRY(RING(i), x - 1)] = r_inst[ENTRY(RING(i), x)];
						r_slot[ENTRY(RING(i), x - 1)] = r_slot[ENTRY(RING(i), x)];
						r_org[ENTRY(RING(i), x - 1)] = r_org[ENTRY(RING(i), x)];
						x++
					:: else -> break
					od;
					rn[RING(i)]--;
					r_kind[ENTRY(RING(i), rn[RING(i)])] = 0; r_seq[ENTRY(RING(i), rn[RING(i)])] = 0;
					r_inst[ENTRY(RING(i), rn[RING(i)])] = 0; r_slot[ENTRY(RING(i), rn[RING(i)])] = 0;
					r_org[ENTRY(RING(i), rn[RING(i)])] = 0;
#ifndef BUG_MARKER_LOST
					/* zc_svc_client_absorb after a marker: publish the marker owed */
					if :: owed_chk && mk_owed[i] -> MARKER_PUSH(i) :: else -> skip fi;
#endif
					owed_chk = 0;
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
	/* zcast_client_close: out of the hook's list, leaves the response topic */
	d_step {
		if :: i == 0 -> a_done = 1 :: else -> skip fi;
		if :: !(i == 0 && a_dead) -> finished++; subscribed[RING(i)] = 0; live[i] = 0 :: else -> skip fi
	}
}

/* ------------------------------------------------------------------ server */

/* zc_svc_notify of `kind` for one request (instance, seq, origin slot); the caller then drops
 * the request (taken_forget / zcast_msg_drop) in the step that forgets it: the outcome is
 * queued before the slot is released */
inline notify(kind, inst, sq, sl)
{
	d_step {
		/* ghosts: the outcome this call must end with */
		if
		:: inst < FORGER && kind == K_REFUSED -> g_refused[inst] = sq
		:: inst < FORGER && kind == K_FAILURE -> g_closed[inst] = sq
		:: else -> skip
		fi;
		RING_PUSH(inst, kind, sq, NONE, sl)
	};
	WAKE_CLIENT(inst)
}

proctype Server(byte s)
{
	byte x, w;
	{
	do
#ifdef CLOSE
	:: s == CLOSER -> goto closing /* zcast_server_close with nothing taken */
#endif
	:: /* zcast_take: the oldest request of its queue, header read once, publisher id copied */
		d_step {
			if
			:: qn[s] > 0 ->
				tk_slot[s] = q_slot[s * QD]; tk_gen[s] = q_gen[s * QD]; tk_inst[s] = q_inst[s * QD];
				tk_seq[s] = q_seq[s * QD]; tk_pub[s] = q_pub[s * QD];
				POP_QUEUE(s)
			:: else -> tk_slot[s] = NONE
			fi
		};
		if
		:: tk_slot[s] == NONE ->
			/* zcast_server_wait */
			srv_moved[s] = 0; /* v = word */
			srv_sleeping[s] = 1;
			if
			:: qn[s] > 0 -> srv_sleeping[s] = 0
			:: else ->
				d_step { if :: !srv_moved[s] -> srv_asleep[s] = 1 :: else -> skip fi };
end:				(!srv_asleep[s]) -> srv_sleeping[s] = 0
			fi
#ifndef MUT_SRV_NO_ID_CHECK
		:: tk_slot[s] != NONE && tk_inst[s] != tk_pub[s] ->
			/* zc_svc_server_adopt: not its publisher's id -> refuse (ZC_SVC_WHY_ID) to the
			 * publisher's topic (a forger's: none) */
#ifndef MUT_NO_REFUSAL
			notify(K_REFUSED, tk_pub[s], tk_seq[s], tk_slot[s]);
#endif
			d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE; tk_inst[s] = 0; tk_seq[s] = 0; tk_pub[s] = 0; tk_gen[s] = 0 }
#endif
#ifdef REFUSE
		:: tk_slot[s] != NONE && tk_inst[s] == tk_pub[s] && !refused_once ->
			/* zc_svc_server_adopt: no memory for the table entry -> refuse (WHY_MEMORY) */
			refused_once = 1;
#ifndef MUT_NO_REFUSAL
			notify(K_REFUSED, tk_pub[s], tk_seq[s], tk_slot[s]);
#else
			g_refused[tk_pub[s]] = tk_seq[s];
#endif
			d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE; tk_inst[s] = 0; tk_seq[s] = 0; tk_pub[s] = 0; tk_gen[s] = 0 }
#endif
#ifndef MUT_SRV_NO_ID_CHECK
		:: tk_slot[s] != NONE && tk_inst[s] == tk_pub[s] ->
#else
		:: tk_slot[s] != NONE ->
#endif
			/* adopted (in the table); the user's code answers it, or closes first */
#ifdef CLOSE
			if
			:: s == CLOSER -> goto closing /* zcast_server_close with this request taken */
			:: true -> skip
			fi;
#endif
			/* zcast_response_loan: a slot of the route's pool (one per server here); none
			 * free: ZCAST_ENOSLOT, the user's code tries again (a wait in the model) */
			(rs_st[s] == FREE);
			rs_st[s] = LOANED;
#ifdef MUT_RELEASE_FIRST
			x = tk_slot[s];
			d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE };
#else
			x = tk_slot[s];
#endif
			/* zcast_response_send: publish on the asking instance's response topic */
			d_step { rs_st[s] = PUB; RING_PUSH(tk_inst[s], K_RESPONSE, tk_seq[s], s, x); x = 0 };
			WAKE_CLIENT(tk_inst[s]);
#ifndef MUT_RELEASE_FIRST
			/* only then release the request (taken_forget) */
			d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE };
#endif
			d_step { tk_inst[s] = 0; tk_seq[s] = 0; tk_pub[s] = 0; tk_gen[s] = 0 }
		fi
	od;
closing:
	skip;
	/* zc_svc_server_fail_all -> zc_sub_retire -> retire_locked (under the topic lock): DRAINING,
	 * zc_rr_handover of the queue */
	d_step {
		srv_draining[s] = 1;
		handover(s)
	};
	/* zc_wake_all when any moved */
#ifndef MUT_CLOSE_NO_WAKE
	wake_servers(w);
#endif
	/* while zcast_take: zc_svc_server_adopt what stayed queued (nobody had room) */
	do
	:: qn[s] > 0 ->
	   d_step {
		cl_slot[cl_n] = q_slot[s * QD]; cl_gen[cl_n] = q_gen[s * QD]; cl_inst[cl_n] = q_inst[s * QD];
		cl_seq[cl_n] = q_seq[s * QD]; cl_pub[cl_n] = q_pub[s * QD];
		cl_n++;
		POP_QUEUE(s)
	   }
	:: else -> break
	od;
	/* every request in the table: a failure, then the request dropped */
#ifndef MUT_CLOSE_FORGETS_TAKEN
	if
	:: tk_slot[s] != NONE ->
#ifndef MUT_CLOSE_RELEASE_FIRST
		notify(K_FAILURE, tk_inst[s], tk_seq[s], tk_slot[s]);
		d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE; tk_inst[s] = 0; tk_seq[s] = 0; tk_pub[s] = 0; tk_gen[s] = 0 }
#else
		x = tk_inst[s];
		d_step { RELEASE_REQ(tk_slot[s], tk_gen[s]); tk_slot[s] = NONE; tk_inst[s] = 0; tk_pub[s] = 0; tk_gen[s] = 0 };
		notify(K_FAILURE, x, tk_seq[s], NONE);
		d_step { tk_seq[s] = 0; x = 0 }
#endif
	:: else -> skip
	fi;
#endif
	do
	:: cl_n > 0 ->
		x = cl_n - 1;
		if
		:: cl_inst[x] != cl_pub[x] ->
			/* adopt's refuse(): a forged id gets its refusal on its publisher's topic (a
			 * forger's: none); in C at the take above (independent of the failures) */
			notify(K_REFUSED, cl_pub[x], cl_seq[x], cl_slot[x])
		:: else ->
			notify(K_FAILURE, cl_inst[x], cl_seq[x], cl_slot[x])
		fi;
		skip;
		d_step {
			RELEASE_REQ(cl_slot[x], cl_gen[x]);
			cl_n--; cl_slot[x] = 0; cl_gen[x] = 0; cl_seq[x] = 0; cl_pub[x] = 0; cl_inst[x] = 0; x = 0
		}
	:: else -> break
	od;
	skip;
	/* zcast_sub_close: the member leaves (its queue is empty: nobody targets a DRAINING one) */
	d_step { assert(qn[s] == 0); srv_reclaimed[s] = 1 };
	/* a membership change: every client's death watcher runs the hook */
	hook(0);
	hook(1)
	} unless { srv_dead[s] }
}

/* ------------------------------------------------------------------ others */

proctype Killer()
{
	byte w;
	if
#ifdef CLIDIE
	:: d_step { a_done == 0; a_dead = 1 };
		reclaim_client(w)
#endif
#ifdef SRVDIE
	:: d_step { srv_reclaimed[0] == 0; srv_dead[0] = 1 };
		reclaim_server(0, w);
		/* the clients' death watchers: the hook after the reclaim */
		hook(0);
		hook(1)
#endif
	:: skip
	fi;
	killer_done = 1
}

/* the follower of A's death watcher: a graph word moved (a route opened, a member joined...) */
proctype Churn()
{
	hook(0)
}

/* another member of `_rq` publishes a request whose header names A and A's first call */
proctype Forger()
{
	byte s = 0;
	if :: NSRV > 1 -> s = NSRV - 1 :: true -> skip fi;
	d_step {
		PICK_TARGET(s);
		if
		:: s < NSRV ->
			ENQUEUE(s, FSLOT, rq_gen[FSLOT], 0, 1, FORGER);
			rq_st[FSLOT] = PUB
		:: else -> s = NONE /* nobody takes it: the loan is dropped */
		fi
	};
	if :: s < NSRV -> WAKE_SERVER(s) :: else -> skip fi;
	forger_done = 1
}

/* B takes A's member record over once A is gone (closed, or dead and reclaimed) */
proctype Opener()
{
#ifdef REUSE
	(a_done && (!a_dead || a_reclaimed));
	d_step { subscribed[RING(1)] = 1; live[1] = 1; b_live = 1 };
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
	/* every client finished or dead and reclaimed, the killer done, every live server asleep
	 * or closed (its process ended: the count of running processes below) */
	(finished + a_reclaimed == NCLIENTS && killer_done && forger_done &&
	 (srv_dead[0] || srv_asleep[0] || srv_reclaimed[0]) &&
	 (NSRV < 2 || srv_dead[NSRV - 1] || srv_asleep[NSRV - 1] || srv_reclaimed[NSRV - 1]));
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
			if :: x % RD < rn[x / RD] && r_slot[x] != NONE -> rs_st[r_slot[x]] = FREE :: else -> skip fi;
			x++
		:: else -> x = 0; break
		od
	};
	/* slots always come back */
	x = 0;
	do
	:: x < NRQ -> assert(rq_st[x] == FREE); x++
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
		live[0] = 1;
		do
		:: s < NSRV -> tk_slot[s] = NONE; run Server(s); s++
		:: else -> break
		od;
		run Client(0, NCALL);
		run Killer();
#ifdef CHURN
		run Churn();
#endif
#ifdef FORGE
		run Forger();
#else
		forger_done = 1;
#endif
		run Opener()
	}
}
