/* Eclipse iceoryx (v2, C binding) request/response: iox_client / iox_server on the service
 * ("zbsvc", run_id, name); needs a running RouDi (bench/run.sh starts one). Queues block instead of
 * dropping (client: server too slow -> WAIT_FOR_CONSUMER, request queue BLOCK_PRODUCER; likewise for
 * responses). Both sides sleep in a wait set on HAS_REQUEST / HAS_RESPONSE. Zero copy: requests
 * and responses are chunks loaned from RouDi's mempools; their location is not exposed. */
#include "svc.h"
#include "transport.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iceoryx_binding_c/client.h"
#include "iceoryx_binding_c/enums.h"
#include "iceoryx_binding_c/log.h"
#include "iceoryx_binding_c/notification_info.h"
#include "iceoryx_binding_c/request_header.h"
#include "iceoryx_binding_c/runtime.h"
#include "iceoryx_binding_c/server.h"
#include "iceoryx_binding_c/wait_set.h"

struct zb_svc {
	const zb_svc_params *p;
	iox_client_storage_t cst;
	iox_server_storage_t sst;
	iox_ws_storage_t wst;
	iox_client_t client;
	iox_server_t server;
	iox_ws_t ws;
	int64_t seq;
};

static int x_prepare(zb_svc_params *p, void **shared, char *why, size_t n)
{
	(void)p;
	*shared = NULL;
	return zb_iox_roudi_check(why, n);
}

static int x_open(const zb_svc_params *p, void *shared, int client, zb_svc **out)
{
	(void)shared;
	char name[64];
	snprintf(name, sizeof name, "%s_%d", p->run_id, (int)getpid());
	iox_set_loglevel(Iceoryx_LogLevel_Warn);
	iox_runtime_init(name);
	zb_svc *v = calloc(1, sizeof *v);
	v->p = p;
	v->ws = iox_ws_init(&v->wst);
	enum iox_WaitSetResult r;
	if (client >= 0) {
		iox_client_options_t o;
		iox_client_options_init(&o);
		o.responseQueueCapacity = (uint64_t)p->depth;
		o.responseQueueFullPolicy = QueueFullPolicy_BLOCK_PRODUCER;
		o.serverTooSlowPolicy = ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER;
		v->client = iox_client_init(&v->cst, "zbsvc", p->run_id, p->name, &o);
		r = iox_ws_attach_client_state(v->ws, v->client, ClientState_HAS_RESPONSE, 0, NULL);
	} else {
		iox_server_options_t o;
		iox_server_options_init(&o);
		o.requestQueueCapacity = (uint64_t)(p->depth * p->nclients);
		o.requestQueueFullPolicy = QueueFullPolicy_BLOCK_PRODUCER;
		o.clientTooSlowPolicy = ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER;
		v->server = iox_server_init(&v->sst, "zbsvc", p->run_id, p->name, &o);
		r = iox_ws_attach_server_state(v->ws, v->server, ServerState_HAS_REQUEST, 0, NULL);
	}
	*out = v;
	return r == WaitSetResult_SUCCESS ? 0 : -1;
}

static int x_ready(zb_svc *v, int64_t deadline)
{
	while (v->client ? iox_client_get_connection_state(v->client) != ConnectionState_CONNECTED
	                 : !iox_server_has_clients(v->server)) {
		if (zb_now() > deadline) {
			fprintf(stderr, "iceoryx: %s not connected in time\n", v->client ? "client" : "server");
			return -1;
		}
		usleep(1000);
	}
	return 0;
}

static void x_sleep(zb_svc *v)
{
	iox_notification_info_t ev[4];
	uint64_t missed = 0;
	struct timespec tmo = {0, 100000000};
	iox_ws_timed_wait(v->ws, tmo, ev, 4, &missed);
}

static int x_call(zb_svc *v, const zb_hdr *req, zb_hdr *resp, int mode, int64_t deadline)
{
	void *chunk;
	enum iox_AllocationResult a;
	while ((a = iox_client_loan_request(v->client, &chunk, (uint32_t)v->p->req_size)) != AllocationResult_SUCCESS) {
		if (a != AllocationResult_RUNNING_OUT_OF_CHUNKS || zb_now() > deadline) {
			fprintf(stderr, "iox_client_loan_request(%zu): result %d\n", v->p->req_size, (int)a);
			return -1;
		}
		usleep(10);
	}
	zb_fill(chunk, v->p->req_size, req, mode);
	iox_request_header_set_sequence_id(iox_request_header_from_payload(chunk), ++v->seq);
	if (iox_client_send(v->client, chunk) != ClientSendResult_SUCCESS)
		return -1;
	const void *in;
	enum iox_ChunkReceiveResult r;
	while ((r = iox_client_take_response(v->client, &in)) == ChunkReceiveResult_NO_CHUNK_AVAILABLE) {
		if (zb_now() > deadline)
			return -1;
		x_sleep(v);
	}
	if (r != ChunkReceiveResult_SUCCESS)
		return -1;
	zb_sink += zb_consume(in, v->p->resp_size, resp, ZB_TRANSPORT);
	iox_client_release_response(v->client, in);
	return 0;
}

static int x_serve(zb_svc *v, zb_hdr *req, int mode, int64_t deadline)
{
	const void *in;
	enum iox_ServerRequestResult r;
	while ((r = iox_server_take_request(v->server, &in)) == ServerRequestResult_NO_PENDING_REQUESTS) {
		if (zb_now() > deadline)
			return -1;
		x_sleep(v);
	}
	if (r != ServerRequestResult_SUCCESS)
		return -1;
	zb_sink += zb_consume(in, v->p->req_size, req, mode);
	void *out;
	enum iox_AllocationResult a;
	while ((a = iox_server_loan_response(v->server, in, &out, (uint32_t)v->p->resp_size)) !=
	       AllocationResult_SUCCESS) {
		if (a != AllocationResult_RUNNING_OUT_OF_CHUNKS || zb_now() > deadline)
			return -1;
		usleep(10);
	}
	zb_hdr h = {.seq = req->seq, .stamp = req->stamp, .flags = req->flags, .size = (uint32_t)v->p->resp_size};
	zb_fill(out, v->p->resp_size, &h, ZB_TRANSPORT);
	enum iox_ServerSendResult s = iox_server_send(v->server, out);
	iox_server_release_request(v->server, in);
	return s == ServerSendResult_SUCCESS ? 0 : -1;
}

static void x_close(zb_svc *v)
{
	if (v->client) {
		iox_ws_detach_client_state(v->ws, v->client, ClientState_HAS_RESPONSE);
		iox_client_deinit(v->client);
	} else {
		iox_ws_detach_server_state(v->ws, v->server, ServerState_HAS_REQUEST);
		iox_server_deinit(v->server);
	}
	iox_ws_deinit(v->ws);
	free(v);
	iox_runtime_shutdown();
}

static void x_cleanup(zb_svc_params *p, void *shared) { (void)p, (void)shared; }

const zb_svc_system zb_svc_iceoryx = {"iceoryx", x_prepare, x_open, x_ready, x_call, x_serve, NULL, x_close,
                                      x_cleanup};
