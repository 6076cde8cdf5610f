/* A client gives up on a call it sent with zcast_request_send: its entry in the call table is
 * freed at once (room for another call), its outcome is never handed out. A response that comes
 * later is dropped when taken (zc_svc_client_absorb: a sequence number this client sent and no
 * longer waits for). What the client cannot take back is the request's slot in its own pool while
 * a server holds the request: the server releases it when it answers, fails it, closes or dies
 * (the pool has twice slot_count slots for that reason, client.c). */
#include "svc_internal.h"

int zcast_client_forget(zcast_client *cli, uint64_t seq)
{
	if (!cli || !seq)
		return zc_err(ZCAST_EINVAL, "cli is NULL or seq is 0");
	int r = ZCAST_ENOENT;
	zcast_msg *resp = NULL;
	pthread_mutex_lock(&cli->mu);
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_FREE || c->seq != seq)
			continue;
		if (c->waited) { /* a zcast_client_call's: its thread waits for it and lets it go */
			r = ZCAST_EINVAL;
			break;
		}
		/* SENDING: the sender sees the entry changed and leaves it (zc_svc_send). ANSWERED:
		 * the response nobody will take is dropped. */
		resp = c->state == ZC_CALL_ANSWERED ? c->resp : NULL;
		*c = (struct zc_svc_call){.state = ZC_CALL_FREE};
		r = 0;
		break;
	}
	pthread_mutex_unlock(&cli->mu);
	zcast_msg_drop(resp);
	if (r == ZCAST_EINVAL)
		return zc_err(r, "service %s: call %llu is a zcast_client_call's", cli->service,
			      (unsigned long long)seq);
	if (r == ZCAST_ENOENT)
		return zc_err(r, "service %s: no call %llu without its outcome taken", cli->service,
			      (unsigned long long)seq);
	return 0;
}
