/* Servers and clients in wait sets, as pollable descriptors and in the executor: underneath each
 * is a subscriber (requests queued for the server; responses, failures and markers for the
 * client), so they wait as subscribers do. */
#include "svc_internal.h"

int zcast_waitset_add_server(zcast_waitset *ws, zcast_server *srv, void *user, int *id)
{
	return srv ? zcast_waitset_add_sub(ws, srv->sub, user, id) : zc_err(ZCAST_EINVAL, "srv is NULL");
}

int zcast_waitset_add_client(zcast_waitset *ws, zcast_client *cli, void *user, int *id)
{
	return cli ? zcast_waitset_add_sub(ws, cli->resp_sub, user, id)
		   : zc_err(ZCAST_EINVAL, "cli is NULL");
}

int zcast_waitset_add_server_room(zcast_waitset *ws, zcast_server *srv, void *user, int *id)
{
	return srv ? zc_waitset_add_room_src(ws, &srv->room.src, user, id)
		   : zc_err(ZCAST_EINVAL, "srv is NULL");
}

/* A request loan or send refused for room waits for what its retry needs (client_room.c): a free
 * slot in the client's pool, queue room at a server (core/publish.c: its RR group has a member
 * with space). */
int zcast_waitset_add_client_room(zcast_waitset *ws, zcast_client *cli, void *user, int *id)
{
	return cli ? zc_waitset_add_room_src(ws, &cli->room, user, id)
		   : zc_err(ZCAST_EINVAL, "cli is NULL");
}

int zcast_server_fd(zcast_server *srv, int *fd)
{
	return srv ? zcast_sub_fd(srv->sub, fd) : zc_err(ZCAST_EINVAL, "srv is NULL");
}

int zcast_client_fd(zcast_client *cli, int *fd)
{
	return cli ? zcast_sub_fd(cli->resp_sub, fd) : zc_err(ZCAST_EINVAL, "cli is NULL");
}

/* The executor took a message of the server's subscriber: check it, then the user's callback. */
static void on_request(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	zcast_server *srv = ctx;
	if (zc_svc_server_adopt(srv, zcast_msg_ref(m)) == 0) /* the table's reference */
		srv->ex_cb(srv, m, srv->ex_ctx);
}

int zcast_executor_add_server(zcast_executor *ex, zcast_server *srv, zcast_request_callback cb,
			      void *ctx)
{
	if (!srv || !cb)
		return zc_err(ZCAST_EINVAL, "srv or cb is NULL");
	srv->ex_cb = cb;
	srv->ex_ctx = ctx;
	return zcast_executor_add_sub(ex, srv->sub, on_request, srv, 0);
}

int zcast_executor_remove_server(zcast_executor *ex, zcast_server *srv)
{
	return srv ? zcast_executor_remove_sub(ex, srv->sub) : zc_err(ZCAST_EINVAL, "srv is NULL");
}

/* Records what m gives, then every outcome ready now, one callback each (the lock is not held
 * across them). An outcome of a zcast_client_call waiting in another thread goes to that thread. */
static void deliver(zcast_client *cli, zcast_msg *m)
{
	pthread_mutex_lock(&cli->mu);
	if (zc_svc_client_absorb(cli, m, 0) & ZC_ABSORB_WAITED)
		zc_svc_client_nudge(cli);
	pthread_mutex_unlock(&cli->mu);
	for (;;) {
		zcast_msg *resp = NULL;
		uint64_t seq = 0;
		pthread_mutex_lock(&cli->mu);
		int r = zc_svc_client_next(cli, &resp, &seq);
		pthread_mutex_unlock(&cli->mu);
		if (r == ZCAST_EAGAIN)
			return;
		cli->ex_cb(cli, seq, resp, r, cli->ex_ctx);
		zcast_msg_drop(resp);
	}
}

static void on_response(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	deliver(ctx, zcast_msg_ref(m)); /* absorb consumes a reference; the executor drops its own */
}

int zcast_executor_add_client(zcast_executor *ex, zcast_client *cli, zcast_response_callback cb,
			      void *ctx)
{
	if (!cli || !cb)
		return zc_err(ZCAST_EINVAL, "cli or cb is NULL");
	cli->ex_cb = cb;
	cli->ex_ctx = ctx;
	return zcast_executor_add_sub(ex, cli->resp_sub, on_response, cli, 0);
}

int zcast_executor_remove_client(zcast_executor *ex, zcast_client *cli)
{
	return cli ? zcast_executor_remove_sub(ex, cli->resp_sub) : zc_err(ZCAST_EINVAL, "cli is NULL");
}
