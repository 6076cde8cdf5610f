/* Replies of a zcast_to_dds route to its DDS clients (docs/BRIDGE.md "Services", "A reply whose
 * client's reader is not matched"). A reply written before the client's reply reader is matched
 * by our reply writer is lost (the reader is volatile), and a client may send its requests as soon
 * as its request writer is matched, before that. rmw_cyclonedds's server sleeps up to 100 ms for
 * the reader and then does not write the reply; waiting in the route's thread would hold up every
 * other client's call on the route. So such a reply is kept aside (a private copy, the zcast
 * response goes back at once) and the route goes on; it is written as soon as the reader is
 * matched (the match listener wakes the route), dropped when the client's request writer leaves
 * (what the wait is for is gone) or timeout_ms after the response came (a reader that never
 * matches: another QoS, a program with no reader). At most `parked` are kept; one more drops the
 * oldest (after writing those whose reader was matched since). Dropped replies count as failed calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_internal.h"

static void write_reply(struct zb_svc_rt *rt, const uint8_t hdr[ZB_SVC_HDR], const uint8_t *enc,
			size_t n)
{
	if (zb_svc_write(rt, hdr, enc, n) < 0)
		zb_svc_fail(rt, ZB_SVC_WARN_CLIENT, "responses not written to DDS", "");
	else
		atomic_fetch_add(&rt->n_answered, 1);
}

static void client_left(struct zb_svc_rt *rt)
{
	zb_svc_fail(rt, ZB_SVC_WARN_CLIENT, "responses whose DDS client is gone",
		    "its request writer left");
}

static void unpark(struct zb_svc_rt *rt, struct zb_svc_parked *p)
{
	p->used = 0;
	rt->n_parked--;
}

/* A free entry; when all are used, the oldest is dropped for it. Those whose reader was matched
 * since they were kept go first: a burst of new clients' replies (their readers matched a moment
 * after their requests came) is parked within one turn of the route, before its next flush. */
static struct zb_svc_parked *park_slot(struct zb_svc_rt *rt)
{
	struct zb_svc_parked *oldest = NULL;
	if (rt->n_parked == rt->cfg->parked)
		(void)zb_svc_parked_flush(rt);
	for (uint32_t i = 0; i < rt->cfg->parked; i++) {
		struct zb_svc_parked *p = &rt->parked[i];
		if (!p->used)
			return p;
		if (!oldest || p->age < oldest->age)
			oldest = p;
	}
	char why[96];
	snprintf(why, sizeof why, "more than parked=%u were waiting: the oldest is dropped",
		 rt->cfg->parked);
	zb_svc_fail(rt, ZB_SVC_WARN_PARKED, "responses kept for a DDS client with no reply reader",
		    why);
	unpark(rt, oldest);
	return oldest;
}

static void park(struct zb_svc_rt *rt, const struct zb_svc_call *c, const uint8_t *enc, size_t n)
{
	struct zb_svc_parked *p = park_slot(rt);
	if (n > p->cap) {
		uint8_t *e = realloc(p->enc, n);
		if (!e) {
			zb_svc_fail(rt, ZB_SVC_WARN_PARKED,
				    "responses kept for a DDS client with no reply reader",
				    "out of memory");
			return;
		}
		p->enc = e, p->cap = n;
	}
	memcpy(p->enc, enc, n); /* shared memory: copied once, the copy is what is sent */
	memcpy(p->hdr, c->hdr, ZB_SVC_HDR);
	p->writer = c->writer;
	p->n = n;
	p->age = ++rt->parked_age;
	p->deadline = zb_svc_now() + (int64_t)rt->cfg->timeout_ms * 1000000;
	p->used = 1;
	rt->n_parked++;
}

void zb_svc_reply(struct zb_svc_rt *rt, const struct zb_svc_call *c, const uint8_t *enc, size_t n)
{
	int st = zb_svc_client_present(rt, c->writer);
	if (st == ZB_SVC_CLIENT_YES)
		write_reply(rt, c->hdr, enc, n);
	else if (st == ZB_SVC_CLIENT_GONE)
		client_left(rt);
	else
		park(rt, c, enc, n);
}

int zb_svc_parked_flush(struct zb_svc_rt *rt)
{
	int64_t now = zb_svc_now(), next = now + 100 * 1000000;
	for (uint32_t i = 0; rt->n_parked && i < rt->cfg->parked; i++) {
		struct zb_svc_parked *p = &rt->parked[i];
		if (!p->used)
			continue;
		int st = zb_svc_client_present(rt, p->writer);
		if (st == ZB_SVC_CLIENT_YES)
			write_reply(rt, p->hdr, p->enc, p->n);
		else if (st == ZB_SVC_CLIENT_GONE)
			client_left(rt);
		else if (p->deadline <= now)
			zb_svc_fail(rt, ZB_SVC_WARN_NOREADER, "responses whose DDS client is gone",
				    "its reply reader was not matched within timeout_ms");
		else {
			next = p->deadline < next ? p->deadline : next;
			continue;
		}
		unpark(rt, p);
	}
	return (int)((next - now) / 1000000) + 1;
}

void zb_svc_parked_free(struct zb_svc_rt *rt)
{
	for (uint32_t i = 0; rt->parked && i < rt->cfg->parked; i++)
		free(rt->parked[i].enc);
	free(rt->parked);
	rt->parked = NULL;
}
