/* A client waiting for room (zcast_waitset_add_client_room, docs/SERVICES.md "Waiting for room"):
 * the wait set's set entry (wait/room_set.c) sleeps on the request publisher's words (its pool's
 * `freed`, the request topic's `space` and graph words: a server that takes, closes, dies or
 * joins). Ready when a refused call's retry would get further: a loan needs a free slot and queue
 * room after it, but the send of a loan held needs queue room only, however full the pool (its
 * other slots may all be the caller's own loans, which nobody frees meanwhile). Such loans are the
 * ones whose send failed and that are still held: each slot remembers that loan's generation. */
#include <stdlib.h>

#include "svc_internal.h"

void zc_svc_client_room_refused(zcast_client *cli, const zcast_msg *req)
{
	cli->refused[req->slot] = req->gen + 1; /* our own loan: slot < the pool's slot_count */
}

/* Under cli->mu: is a loan whose send failed still held (not sent, not dropped)? The state words
 * are our own pool's, each read once and only compared. */
static bool send_refused_held(zcast_client *cli)
{
	const struct zc_pool_map *pool = cli->req_pub->pool;
	for (uint32_t i = 0; i < pool->slot_count; i++) {
		uint64_t mark = cli->refused[i];
		if (mark && atomic_load_explicit(&zc_slot(pool, i)->state, memory_order_relaxed) ==
				ZC_STATE(ZC_SLOT_LOANED, mark - 1))
			return true;
	}
	return false;
}

static uint32_t room_pubs(void *ctx, zcast_pub **out, uint32_t max)
{
	zcast_client *cli = ctx;
	if (max) { /* the wait set's reference */
		atomic_fetch_add(&cli->req_pub->refs, 1);
		out[0] = cli->req_pub;
	}
	return 1;
}

static bool room_ready(void *ctx)
{
	zcast_client *cli = ctx;
	pthread_mutex_lock(&cli->mu);
	bool held = send_refused_held(cli);
	pthread_mutex_unlock(&cli->mu);
	return zc_pub_room_for(cli->req_pub, held ? ZC_ROOM_QUEUE : ZC_ROOM_SLOT | ZC_ROOM_QUEUE);
}

int zc_svc_client_room_init(zcast_client *cli)
{
	cli->refused = calloc(cli->req_pub->pool->slot_count, sizeof *cli->refused);
	cli->room = (struct zc_room_src){.pubs = room_pubs, .ready = room_ready, .ctx = cli};
	return cli->refused ? 0 : zc_err(ZCAST_ENOMEM, "client handle");
}
