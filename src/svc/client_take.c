/* A client's outcomes: responses matched to its calls, failures, and markers that settle suspect
 * calls; the blocking wait and call on top. */
#include "svc_internal.h"

/* A call still waiting for its outcome. */
static struct zc_svc_call *call_of(zcast_client *cli, uint64_t seq)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->seq == seq && c->state != ZC_CALL_FREE && c->state != ZC_CALL_FAILED &&
		    c->state != ZC_CALL_ANSWERED)
			return c;
	}
	return NULL;
}

static int reject(zcast_client *cli, zcast_msg *m, const char *why)
{
	cli->rejected++;
	zcast_msg_drop(m);
	zc_err(ZCAST_ECORRUPT, "service %s: client %llu rejected a message: %s", cli->service,
	       (unsigned long long)cli->id, why);
	return 0;
}

/* Call c has its outcome now (its state set): whose it is. */
static int outcome(zcast_client *cli, struct zc_svc_call *c, uint64_t own)
{
	c->order = ++cli->outcomes;
	if (!c->waited)
		return ZC_ABSORB_OWN;
	return c->seq == own ? 0 : ZC_ABSORB_WAITED;
}

/* A marker m: every suspect call it (or an earlier one) stands behind has no response coming. */
static int settle(zcast_client *cli, uint64_t marker, uint64_t own)
{
	int got = 0;
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_SUSPECT && c->marker <= marker) {
			*c = (struct zc_svc_call){.state = ZC_CALL_FAILED, .seq = c->seq,
						  .fail = ZC_FAIL_DIED, .waited = c->waited};
			got |= outcome(cli, c, own);
		}
	}
	return got;
}

int zc_svc_client_absorb(zcast_client *cli, zcast_msg *m, uint64_t own)
{
	struct zc_svc_hdr h;
	if (!zc_svc_hdr_read(m, &h))
		return reject(cli, m, "no service header");
	if (h.client_id != cli->id || h.nonce != cli->nonce)
		return reject(cli, m, "another client's id");
	if (h.kind == ZC_SVC_MARKER) {
		if (m->publisher_id != zcast_pub_id(cli->self_pub) || h.seq > cli->next_marker)
			return reject(cli, m, "a marker this client did not publish");
		zcast_msg_drop(m); /* its slot is free again: room for a marker owed */
		int settled = settle(cli, h.seq, own);
		if (cli->marker_owed)
			zc_svc_marker_publish(cli);
		return settled;
	}
	if (h.kind != ZC_SVC_RESPONSE && h.kind != ZC_SVC_FAILURE && h.kind != ZC_SVC_REFUSED)
		return reject(cli, m, "not a response");
	struct zc_svc_call *c = call_of(cli, h.seq);
	if (!c && h.seq && h.seq <= cli->next_seq) { /* a call let go of (timed out, forgotten) */
		zcast_msg_drop(m);
		return 0;
	}
	if (!c)
		return reject(cli, m, "no pending call has its sequence number");
	if (h.kind != ZC_SVC_RESPONSE) { /* closed or refused: an outcome of the failed list */
		uint32_t why = h.why < ZC_SVC_WHY_END ? h.why : 0; /* a shared value: range-checked */
		*c = (struct zc_svc_call){.state = ZC_CALL_FAILED, .seq = c->seq, .waited = c->waited,
					  .fail = h.kind == ZC_SVC_FAILURE ? ZC_FAIL_CLOSED
									   : ZC_FAIL_REFUSED + why};
		zcast_msg_drop(m);
		return outcome(cli, c, own);
	}
	c->state = ZC_CALL_ANSWERED;
	c->resp = m;
	return outcome(cli, c, own);
}

void zc_svc_client_nudge(zcast_client *cli)
{
	zcast_msg *m;
	/* Numbered as the last marker: it settles only calls whose marker is out already. */
	if (zcast_loan(cli->self_pub, ZCAST_SERVICE_HEADER, &m) != 0)
		return; /* every marker slot is queued: the sleepers wake for those */
	zc_svc_hdr_write(m, ZC_SVC_MARKER, cli->id, cli->nonce, cli->next_marker);
	if (zcast_publish(cli->self_pub, m) != 0)
		zcast_msg_drop(m);
}

/* The error of a call that failed `fail` (ZC_FAIL_*), its text saying why. */
static int failure_error(const zcast_client *cli, uint64_t seq, uint32_t fail)
{
	static const char *const refused[ZC_SVC_WHY_END] = {
	    "for an unknown reason",
	    [ZC_SVC_WHY_HEADER] = "its service header is not a request's (spoilt in shared memory)",
	    [ZC_SVC_WHY_ID] = "its client id is not its publisher's (spoilt in shared memory)",
	    [ZC_SVC_WHY_MEMORY] = "the server had no memory to record it"};
	unsigned long long s = (unsigned long long)seq;
	if (fail < ZC_FAIL_REFUSED)
		return zc_err(ZCAST_ESRVGONE,
			      "service %s: call %llu: the server that had it is gone: it %s before "
			      "answering",
			      cli->service, s, fail == ZC_FAIL_DIED ? "died" : "closed");
	return zc_err(ZCAST_EREFUSED, "service %s: call %llu: a server refused the request: %s",
		      cli->service, s, refused[fail - ZC_FAIL_REFUSED]);
}

/* Call c's outcome handed out, the call freed: 0 with *resp, or its error. */
static int hand_out(zcast_client *cli, struct zc_svc_call *c, zcast_msg **resp, uint64_t *seq)
{
	*seq = c->seq;
	*resp = c->resp;
	int r = c->state == ZC_CALL_FAILED ? failure_error(cli, c->seq, c->fail) : 0;
	*c = (struct zc_svc_call){.state = ZC_CALL_FREE};
	return r;
}

/* The oldest outcome of a call not waited for, or NULL. */
static struct zc_svc_call *oldest_ready(zcast_client *cli)
{
	struct zc_svc_call *best = NULL;
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if ((c->state == ZC_CALL_ANSWERED || c->state == ZC_CALL_FAILED) && !c->waited &&
		    (!best || c->order < best->order))
			best = c;
	}
	return best;
}

int zc_svc_client_next(zcast_client *cli, zcast_msg **resp, uint64_t *seq)
{
	struct zc_svc_call *c = oldest_ready(cli);
	return c ? hand_out(cli, c, resp, seq) : ZCAST_EAGAIN;
}

/* Under cli->mu: takes what is queued until `enough` says stop (or nothing is left); wakes the
 * other threads for outcomes that are theirs. Returns 0, or the error of a take that failed
 * otherwise than by an empty queue (its message stays queued, e.g. no descriptor to map its pool):
 * the caller reports it, since a wait would find that message queued and never sleep. */
static int pump(zcast_client *cli, uint64_t own, bool (*enough)(zcast_client *, uint64_t))
{
	int got = 0, r = 0;
	zcast_msg *m;
	while (!enough(cli, own) && (r = zcast_take(cli->resp_sub, &m)) == 0)
		got |= zc_svc_client_absorb(cli, m, own);
	/* Whoever waits for them re-checks when this marker comes (client_wait_until). An outcome
	 * for zcast_response_take taken by a zcast_client_call wakes its takers too. */
	if ((got & ZC_ABSORB_WAITED) || ((got & ZC_ABSORB_OWN) && own))
		zc_svc_client_nudge(cli);
	return r == ZCAST_EAGAIN ? 0 : r;
}

static bool any_ready(zcast_client *cli, uint64_t own)
{
	(void)own;
	return oldest_ready(cli) != NULL;
}

/* Call own has its outcome (or is not waited for any more). */
static bool call_done(zcast_client *cli, uint64_t own)
{
	return call_of(cli, own) == NULL;
}

struct until {
	zcast_client *cli;
	uint64_t own;
	bool (*done)(zcast_client *, uint64_t);
};

static bool until_done(void *ctx)
{
	struct until *u = ctx;
	pthread_mutex_lock(&u->cli->mu);
	bool done = u->done(u->cli, u->own);
	pthread_mutex_unlock(&u->cli->mu);
	return done;
}

/* Sleeps until a message is queued on the response topic, done() holds, or the deadline (< 0:
 * none): 0 (re-check) or ZCAST_ETIMEDOUT. As zcast_wait, plus done() checked after the announce:
 * another thread that takes an outcome for us records it under mu, then publishes a marker
 * (zc_svc_client_nudge), which wakes us unless our check under mu saw the outcome already. */
static int client_wait_until(zcast_client *cli, uint64_t own,
			     bool (*done)(zcast_client *, uint64_t), int64_t deadline)
{
	zcast_sub *s = cli->resp_sub;
	struct until u = {cli, own, done};
	zc_deaths_rescan(&s->t); /* a server that dies owing us a wake is seen */
	_Atomic uint32_t *word;
	uint32_t v;
	/* SYNC: sub-sleep (announce, then the checks); partner core/publish.c wake_after_push */
	if (!zc_sub_arm(s, &word, &v))
		return 0; /* a message is queued */
	int r = 0;
	if (!until_done(&u)) {
		r = zc_futex_wait(word, v, zc_sub_sleep_until(s, deadline, zc_now_ns()));
		if (r == ZCAST_ETIMEDOUT)
			zc_sub_guard_check(s); /* still announced: is the announcement intact? */
	}
	zc_sub_disarm(s);
	return deadline >= 0 && zc_now_ns() >= deadline ? ZCAST_ETIMEDOUT : 0;
}

int zcast_response_take(zcast_client *cli, zcast_msg **resp, uint64_t *seq)
{
	if (!cli || !resp)
		return zc_err(ZCAST_EINVAL, "cli or resp is NULL");
	uint64_t s = 0;
	*resp = NULL;
	pthread_mutex_lock(&cli->mu);
	int e = pump(cli, 0, any_ready);
	int r = zc_svc_client_next(cli, resp, &s);
	pthread_mutex_unlock(&cli->mu);
	if (r == ZCAST_EAGAIN && e)
		r = e; /* nothing ready, and the take said why */
	if (seq)
		*seq = s;
	return r;
}

/* 1 when an outcome for zcast_response_take is ready now (taken from the topic if need be), 0
 * when none is, or the error of a take (pump). */
static int outcome_ready(zcast_client *cli)
{
	pthread_mutex_lock(&cli->mu);
	int e = pump(cli, 0, any_ready);
	bool ready = any_ready(cli, 0);
	pthread_mutex_unlock(&cli->mu);
	return ready ? 1 : e;
}

int zcast_client_wait(zcast_client *cli, int64_t timeout_ns)
{
	if (!cli)
		return zc_err(ZCAST_EINVAL, "cli is NULL");
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	int r;
	while ((r = outcome_ready(cli)) == 0)
		if (client_wait_until(cli, 0, any_ready, deadline) == ZCAST_ETIMEDOUT &&
		    (r = outcome_ready(cli)) == 0)
			return zc_err(ZCAST_ETIMEDOUT, "service %s: no outcome in time", cli->service);
	return r < 0 ? r : 0;
}

/* Under mu: call seq's outcome (0 with *resp, or its error), freeing it; ZCAST_EAGAIN while it
 * has none. With `forget`, a call without outcome is let go of (a late response finds no call
 * and is dropped) and ZCAST_ETIMEDOUT returned. */
static int own_outcome(zcast_client *cli, uint64_t seq, zcast_msg **resp, bool forget)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->seq != seq || c->state == ZC_CALL_FREE)
			continue;
		if (c->state == ZC_CALL_ANSWERED || c->state == ZC_CALL_FAILED) {
			uint64_t s;
			return hand_out(cli, c, resp, &s);
		}
		if (!forget)
			return ZCAST_EAGAIN;
		*c = (struct zc_svc_call){.state = ZC_CALL_FREE};
		break;
	}
	return ZCAST_ETIMEDOUT;
}

int zcast_client_call(zcast_client *cli, zcast_msg *req, int64_t timeout_ns, zcast_msg **resp)
{
	if (resp)
		*resp = NULL;
	if (!cli || !req || !resp) {
		zcast_msg_drop(req);
		return zc_err(ZCAST_EINVAL, "cli, req or resp is NULL");
	}
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	uint64_t seq = 0;
	int r = zc_svc_send(cli, req, deadline ? deadline : 1, true, &seq);
	if (r) {
		zcast_msg_drop(req); /* consumed whatever the outcome: one rule for the caller */
		return r;
	}
	for (bool late = false;; late = deadline >= 0 && zc_now_ns() >= deadline) {
		pthread_mutex_lock(&cli->mu);
		int e = pump(cli, seq, call_done);
		r = own_outcome(cli, seq, resp, late || e);
		pthread_mutex_unlock(&cli->mu);
		if (r == ZCAST_ETIMEDOUT && e)
			return e; /* the call let go of (a late response is dropped), the take's error */
		if (r != ZCAST_EAGAIN)
			break;
		client_wait_until(cli, seq, call_done, deadline);
	}
	return r == ZCAST_ETIMEDOUT
		   ? zc_err(r, "service %s: call %llu: no response in time", cli->service,
			    (unsigned long long)seq)
		   : r;
}
