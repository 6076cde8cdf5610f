/* zcast services (include/zcast/service.h): one service "/svc" in a per-run domain. A client
 * loans its request in place, fills it and calls zcast_client_call (send, then wait for and take
 * its response); the server waits in zcast_server_wait, takes the request in place, loans its
 * response in place and sends it. where(): the request's pool file and offset as the client
 * loaned it and as the server took it (zcast_msg_info_get), for the zero-copy proof. */
#include "svc.h"

#include <stdlib.h>
#include <string.h>
#include <zcast/service.h>

struct zb_svc {
	const zb_svc_params *p;
	zcast_server *srv;
	zcast_client *cli;
	uint64_t loc[3]; /* where the last request sent / taken lies */
};

static int zs_prepare(zb_svc_params *p, void **shared, char *why, size_t n)
{
	(void)p, (void)why, (void)n;
	*shared = NULL;
	return 0;
}

static void opts_of(const zb_svc_params *p, zcast_service_opts *o)
{
	zcast_service_opts_init(o);
	o->domain = p->run_id;
	o->request_size = p->req_size;
	o->response_size = p->resp_size;
	o->slot_count = (uint32_t)p->depth;
	o->queue_depth = (uint32_t)(p->depth * p->nclients);
}

static int zs_open(const zb_svc_params *p, void *shared, int client, zb_svc **out)
{
	(void)shared;
	zb_svc *v = calloc(1, sizeof *v);
	v->p = p;
	zcast_service_opts o;
	opts_of(p, &o);
	int r = client < 0 ? zcast_server_open("/svc", &o, &v->srv) : zcast_client_open("/svc", &o, &v->cli);
	if (r) {
		fprintf(stderr, "zcast_%s_open: %s: %s\n", client < 0 ? "server" : "client", zcast_strerror(r),
		        zcast_last_error());
		free(v);
		return -1;
	}
	*out = v;
	return 0;
}

static int zs_ready(zb_svc *v, int64_t deadline)
{
	while (v->cli && zcast_client_servers(v->cli) < 1) {
		if (zb_now() > deadline)
			return -1;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void note_loc(zb_svc *v, const zcast_msg *m)
{
	zcast_msg_info in;
	if (zcast_msg_info_get(m, &in) == 0) {
		v->loc[0] = in.pool_dev;
		v->loc[1] = in.pool_ino;
		v->loc[2] = in.pool_offset;
	}
}

static int64_t left(int64_t deadline)
{
	int64_t l = deadline - zb_now();
	return l > 0 ? l : 1;
}

static int zs_call(zb_svc *v, const zb_hdr *req, zb_hdr *resp, int mode, int64_t deadline)
{
	zcast_msg *q, *a;
	int r = zcast_request_loan(v->cli, v->p->req_size, &q);
	if (!r) {
		zb_fill(zcast_service_data(q), v->p->req_size, req, mode);
		note_loc(v, q);
		r = zcast_client_call(v->cli, q, left(deadline), &a);
	}
	if (r) {
		fprintf(stderr, "zcast call: %s: %s\n", zcast_strerror(r), zcast_last_error());
		return -1;
	}
	zb_sink += zb_consume(zcast_service_data(a), v->p->resp_size, resp, ZB_TRANSPORT);
	zcast_msg_drop(a);
	return 0;
}

static int zs_serve(zb_svc *v, zb_hdr *req, int mode, int64_t deadline)
{
	zcast_msg *q, *a;
	int r;
	while ((r = zcast_request_take(v->srv, &q)) == ZCAST_EAGAIN) {
		r = zcast_server_wait(v->srv, left(deadline));
		if ((r && r != ZCAST_ETIMEDOUT) || zb_now() > deadline)
			break;
	}
	if (r) {
		fprintf(stderr, "zcast serve: %s: %s\n", zcast_strerror(r), zcast_last_error());
		return -1;
	}
	note_loc(v, q);
	zb_sink += zb_consume(zcast_service_data(q), v->p->req_size, req, mode);
	zb_hdr h = {.seq = req->seq, .stamp = req->stamp, .flags = req->flags, .size = (uint32_t)v->p->resp_size};
	if ((r = zcast_response_loan(v->srv, q, v->p->resp_size, &a)) == 0) {
		zb_fill(zcast_service_data(a), v->p->resp_size, &h, ZB_TRANSPORT);
		if ((r = zcast_response_send(v->srv, a)) != 0)
			zcast_msg_drop(a);
	}
	zcast_msg_drop(q);
	if (r)
		fprintf(stderr, "zcast respond: %s: %s\n", zcast_strerror(r), zcast_last_error());
	return r ? -1 : 0;
}

static int zs_where(zb_svc *v, uint64_t loc[3])
{
	memcpy(loc, v->loc, sizeof v->loc);
	return v->loc[1] ? 0 : -1;
}

static void zs_close(zb_svc *v)
{
	if (v->srv)
		zcast_server_close(v->srv);
	if (v->cli)
		zcast_client_close(v->cli);
	free(v);
}

static void zs_cleanup(zb_svc_params *p, void *shared) { (void)p, (void)shared; }

const zb_svc_system zb_svc_zcast = {"zcast", zs_prepare, zs_open, zs_ready, zs_call, zs_serve, zs_where, zs_close,
                                    zs_cleanup};
