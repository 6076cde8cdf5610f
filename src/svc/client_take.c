/* A client's outcomes: responses matched to its calls, failures, and markers that settle suspect
 * calls; the blocking wait and call on top. */
#include "svc_internal.h"

static struct zc_svc_call *call_of(zcast_client *cli, uint64_t seq)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->seq == seq && c->state != ZC_CALL_FREE && c->state != ZC_CALL_FAILED)
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

/* A marker m: every suspect call it (or an earlier one) stands behind has no response coming. */
static void settle(zcast_client *cli, uint64_t marker)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_SUSPECT && c->marker <= marker)
			*c = (struct zc_svc_call){.state = ZC_CALL_FAILED, .seq = c->seq,
						  .fail = ZC_FAIL_DIED};
	}
}

int zc_svc_client_absorb(zcast_client *cli, zcast_msg *m, zcast_msg **resp, uint64_t *seq)
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
		settle(cli, h.seq);
		if (cli->marker_owed)
			zc_svc_marker_publish(cli);
		return 0;
	}
	if (h.kind != ZC_SVC_RESPONSE && h.kind != ZC_SVC_FAILURE && h.kind != ZC_SVC_REFUSED)
		return reject(cli, m, "not a response");
	struct zc_svc_call *c = call_of(cli, h.seq);
	if (!c)
		return reject(cli, m, "no pending call has its sequence number");
	if (h.kind != ZC_SVC_RESPONSE) { /* closed or refused: an outcome of the failed list */
		uint32_t why = h.why < ZC_SVC_WHY_END ? h.why : 0; /* a shared value: range-checked */
		*c = (struct zc_svc_call){.state = ZC_CALL_FAILED, .seq = c->seq,
					  .fail = h.kind == ZC_SVC_FAILURE ? ZC_FAIL_CLOSED
									   : ZC_FAIL_REFUSED + why};
		zcast_msg_drop(m);
		return 0;
	}
	c->state = ZC_CALL_FREE;
	*seq = h.seq;
	*resp = m;
	return 1;
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

int zc_svc_client_failed(zcast_client *cli, uint64_t *seq)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_FAILED) {
			c->state = ZC_CALL_FREE;
			*seq = c->seq;
			return failure_error(cli, c->seq, c->fail);
		}
	}
	return 0;
}

/* Under cli->mu: the next outcome, without waiting. */
static int take_locked(zcast_client *cli, zcast_msg **resp, uint64_t *seq)
{
	if (cli->stash) {
		*resp = cli->stash, *seq = cli->stash_seq;
		cli->stash = NULL;
		return 0;
	}
	for (;;) {
		int r = zc_svc_client_failed(cli, seq);
		if (r)
			return r;
		zcast_msg *m;
		r = zcast_take(cli->resp_sub, &m);
		if (r)
			return r;
		if (zc_svc_client_absorb(cli, m, resp, seq))
			return 0;
	}
}

int zcast_response_take(zcast_client *cli, zcast_msg **resp, uint64_t *seq)
{
	if (!cli || !resp)
		return zc_err(ZCAST_EINVAL, "cli or resp is NULL");
	uint64_t s = 0;
	*resp = NULL;
	pthread_mutex_lock(&cli->mu);
	int r = take_locked(cli, resp, &s);
	pthread_mutex_unlock(&cli->mu);
	if (seq)
		*seq = s;
	return r;
}

static bool any_failed(const zcast_client *cli)
{
	for (uint32_t i = 0; i < cli->o.slot_count; i++)
		if (cli->calls[i].state == ZC_CALL_FAILED)
			return true;
	return false;
}

/* An outcome is ready now: a failure in the table, or a response (taken into the stash). */
static bool outcome_ready(zcast_client *cli)
{
	pthread_mutex_lock(&cli->mu);
	bool ready = cli->stash || any_failed(cli);
	zcast_msg *m;
	while (!ready && zcast_take(cli->resp_sub, &m) == 0)
		ready = zc_svc_client_absorb(cli, m, &cli->stash, &cli->stash_seq) || any_failed(cli);
	pthread_mutex_unlock(&cli->mu);
	return ready;
}

int zcast_client_wait(zcast_client *cli, int64_t timeout_ns)
{
	if (!cli)
		return zc_err(ZCAST_EINVAL, "cli is NULL");
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	while (!outcome_ready(cli)) {
		int64_t left = deadline < 0 ? -1 : deadline - zc_now_ns();
		if (deadline >= 0 && left <= 0)
			return zc_err(ZCAST_ETIMEDOUT, "service %s: no outcome in time", cli->service);
		int r = zcast_wait(cli->resp_sub, left);
		if (r && r != ZCAST_ETIMEDOUT)
			return r;
	}
	return 0;
}

static void forget(zcast_client *cli, uint64_t seq)
{
	pthread_mutex_lock(&cli->mu);
	struct zc_svc_call *c = call_of(cli, seq);
	if (c) /* a late response finds no call and is dropped */
		c->state = ZC_CALL_FREE;
	pthread_mutex_unlock(&cli->mu);
}

int zcast_client_call(zcast_client *cli, zcast_msg *req, int64_t timeout_ns, zcast_msg **resp)
{
	if (resp)
		*resp = NULL;
	if (!cli || !req || !resp) {
		zcast_msg_drop(req);
		return zc_err(ZCAST_EINVAL, "cli, req or resp is NULL");
	}
	if (zcast_client_pending(cli) > 0) {
		zcast_msg_drop(req);
		return zc_err(ZCAST_EBUSY, "service %s: call on a client with calls pending",
			      cli->service);
	}
	int64_t deadline = timeout_ns < 0 ? -1 : zc_after(zc_now_ns(), timeout_ns);
	uint64_t seq = 0, s;
	int r = zc_svc_send(cli, req, deadline ? deadline : 1, &seq);
	if (r) {
		zcast_msg_drop(req); /* consumed whatever the outcome: one rule for the caller */
		return r;
	}
	for (;;) {
		zcast_msg *m;
		r = zcast_response_take(cli, &m, &s);
		bool failed = r == ZCAST_ESRVGONE || r == ZCAST_EREFUSED;
		if ((r == 0 || failed) && s == seq) {
			*resp = m;
			return r;
		}
		if (r == 0)
			zcast_msg_drop(m); /* not ours: no other call was pending */
		else if (!failed && r != ZCAST_EAGAIN)
			break;
		int64_t left = deadline < 0 ? -1 : deadline - zc_now_ns();
		if (deadline >= 0 && left <= 0) {
			r = ZCAST_ETIMEDOUT;
			break;
		}
		r = zcast_client_wait(cli, left);
		if (r && r != ZCAST_ETIMEDOUT)
			break;
	}
	forget(cli, seq);
	return r == ZCAST_ETIMEDOUT
		   ? zc_err(r, "service %s: call %llu: no response in time", cli->service,
			    (unsigned long long)seq)
		   : r;
}
