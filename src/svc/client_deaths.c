/* How a client learns that the server that had a call is gone: after every reclaim and membership
 * change its process's death watcher calls this layer's hook, which looks at the request slot of
 * each pending call (in the client's own pool). A slot that is no longer PUBLISHED with the
 * generation of the loan was released: answered, or let go by a server that died or left. Such a
 * call is suspect; a marker published behind it on the client's own response topic tells which:
 * a response is always queued before its request is released, so a suspect call still without
 * response when its marker is taken will never get one (docs/SERVICES.md). */
#include <stddef.h>

#include "svc_internal.h"

static void client_changed(struct zc_svc_handle *h)
{
	zcast_client *c = (zcast_client *)(void *)((char *)h - offsetof(zcast_client, link));
	pthread_mutex_lock(&c->mu);
	c->hooks_run++;
	zc_svc_client_check(c);
	pthread_mutex_unlock(&c->mu);
}

void zc_svc_clients_add(zcast_client *cli)
{
	cli->link.changed = client_changed;
	zc_svc_handle_add(&cli->link);
}

void zc_svc_clients_remove(zcast_client *cli)
{
	zc_svc_handle_remove(&cli->link);
}

static bool released(zcast_client *cli, const struct zc_svc_call *c)
{
	const struct zc_pool_map *pool = cli->req_pub->pool;
	if (c->slot >= pool->slot_count)
		return true; /* cannot be: the slot is our own loan's */
	/* SYNC: response-before-release — pairs with zcast_response_send and
	 * zc_svc_refusals_send (server.c): seeing the slot released, every response or refusal it
	 * got is queued before the marker published next. */
	uint64_t w = atomic_load_explicit(&zc_slot(pool, c->slot)->state, memory_order_acquire);
	return w != ZC_STATE(ZC_SLOT_PUBLISHED, c->gen);
}

/* A marker that finds no free slot (every one queued, e.g. behind a response already taken) is
 * owed, not lost: its suspect calls would otherwise stay pending for good, since only a marker of
 * their number or later settles them (model/service.pml, BUG_MARKER_LOST). The client publishes
 * it when it drops a marker it took, whose slot is then free. */
void zc_svc_marker_publish(zcast_client *cli)
{
	zcast_msg *m;
	cli->marker_owed = true;
	if (zcast_loan(cli->self_pub, ZCAST_SERVICE_HEADER, &m) != 0)
		return;
	zc_svc_hdr_write(m, ZC_SVC_MARKER, cli->id, cli->nonce, cli->next_marker);
	if (zcast_publish(cli->self_pub, m) != 0) {
		zcast_msg_drop(m);
		return;
	}
	cli->marker_owed = false;
}

void zc_svc_client_check(zcast_client *cli)
{
	bool suspects = false;
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_PENDING && released(cli, c)) {
			c->state = ZC_CALL_SUSPECT;
			c->marker = cli->next_marker + 1;
			suspects = true;
		}
	}
	if (!suspects)
		return;
	cli->next_marker++;
	zc_svc_marker_publish(cli);
}
