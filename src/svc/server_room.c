/* A server waiting for room (zcast_waitset_add_server_room, docs/SERVICES.md "Waiting for room"):
 * a response loan or send, or a failure, that found the client's response pool or queue full
 * leaves its request taken and notes what its retry needs (room_need). The wait set's set entry
 * (wait/room_set.c) then sleeps on the routes of those clients: a response the client drops frees a
 * slot in the route's pool (its `freed` word), a take makes queue room (`space`), and a client that
 * closes or dies moves the route topic's graph word. Ready while one of them has the room its retry
 * needs, or is gone: the caller's retry then gets further (sent, or ZCAST_ENOENT / the request let
 * go of). Only what the retry needs: a send refused for queue room holds its loan, so the pool may
 * stay full (the client holding the other responses) while the queue has room again.
 * A server has two such sources: its caller's requests (the wait set entry) and the refusals the
 * library owes (the courier's entry, svc_courier.c), each blind to the other's: a caller woken for
 * a refusal it cannot retry would be woken again and again until the courier sent it. */
#include <limits.h>

#include "svc_internal.h"

/* Under srv->mu: is taken request tk one this source watches? */
static bool watched(const struct zc_svc_room *sr, const struct zc_svc_taken *tk)
{
	return tk->room_need && (tk->refused != 0) == sr->owed;
}

/* Under srv->mu: does a watched request of route rt's client wait for room? */
static bool wanted(const struct zc_svc_room *sr, const struct zc_svc_route *rt)
{
	const zcast_server *srv = sr->srv;
	for (uint32_t i = 0; i < srv->n_taken; i++) {
		const struct zc_svc_taken *tk = &srv->taken[i];
		if (watched(sr, tk) && tk->client_id == rt->client_id && tk->nonce == rt->nonce)
			return true;
	}
	return false;
}

static uint32_t room_pubs(void *ctx, zcast_pub **out, uint32_t max)
{
	struct zc_svc_room *sr = ctx;
	zcast_server *srv = sr->srv;
	uint32_t n = 0;
	pthread_mutex_lock(&srv->mu);
	for (uint32_t i = 0; i < srv->n_routes; i++) {
		struct zc_svc_route *rt = &srv->routes[i];
		if (!wanted(sr, rt))
			continue;
		if (n < max) { /* the wait set's reference: the route may be closed meanwhile */
			atomic_fetch_add(&rt->pub->refs, 1);
			out[n] = rt->pub;
		}
		n++;
	}
	pthread_mutex_unlock(&srv->mu);
	return n;
}

/* Under srv->mu: would the retry for taken request tk get further now? */
static bool retry_helps(zcast_server *srv, const struct zc_svc_taken *tk)
{
	for (uint32_t i = 0; i < srv->n_routes; i++) {
		struct zc_svc_route *rt = &srv->routes[i];
		if (rt->client_id == tk->client_id && rt->nonce == tk->nonce)
			return !zc_svc_route_live(rt) || zc_pub_room_for(rt->pub, tk->room_need);
	}
	return true; /* its route was closed (the client is gone): the retry says so */
}

static bool room_ready(void *ctx)
{
	struct zc_svc_room *sr = ctx;
	zcast_server *srv = sr->srv;
	bool ready = false;
	pthread_mutex_lock(&srv->mu);
	for (uint32_t i = 0; i < srv->n_taken && !ready; i++)
		ready = watched(sr, &srv->taken[i]) && retry_helps(srv, &srv->taken[i]);
	pthread_mutex_unlock(&srv->mu);
	return ready;
}

/* Several threads may answer: one may sleep in a wait set on the routes it looked up while another
 * one's call is refused for room. Its route is looked up only at the next sleep: the bump ends
 * this one. */
void zc_svc_room_need(zcast_server *srv, struct zc_svc_taken *tk, unsigned need)
{
	bool starts = need && !tk->room_need;
	tk->room_need = need;
	if (!starts)
		return;
	/* SYNC: room-grown: need set, then the bump; partner wait/room_set.c ws_set_snapshot */
	atomic_fetch_add_explicit(&srv->room_grown, 1, memory_order_seq_cst);
	zc_futex_wake_private(&srv->room_grown, INT_MAX);
}

static void source_init(struct zc_svc_room *sr, zcast_server *srv, bool owed)
{
	*sr = (struct zc_svc_room){
	    .src = {.pubs = room_pubs, .ready = room_ready, .ctx = sr, .grown = &srv->room_grown},
	    .srv = srv,
	    .owed = owed};
}

void zc_svc_room_init(zcast_server *srv)
{
	source_init(&srv->room, srv, false);
	source_init(&srv->owed, srv, true);
}
