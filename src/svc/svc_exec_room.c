/* "Room again" entries of servers and clients in the executor (zcast_executor_add_server_room,
 * zcast_executor_add_client_room): the executor's room entry (exec/ex_entries.c, one callback per
 * want) over the wait set's room entry of the server or client (svc_wait.c). */
#include "svc_internal.h"

static int server_attach(zcast_waitset *ws, struct ex_entry *en, int *id)
{
	return zcast_waitset_add_server_room(ws, en->room_of, en, id);
}

static void server_run(struct ex_entry *en)
{
	((zcast_server_room_callback)en->cb.room)(en->room_of, en->ctx);
}

static const struct zc_ex_room_ops server_room = {server_attach, server_run};

static int client_attach(zcast_waitset *ws, struct ex_entry *en, int *id)
{
	return zcast_waitset_add_client_room(ws, en->room_of, en, id);
}

static void client_run(struct ex_entry *en)
{
	((zcast_client_room_callback)en->cb.room)(en->room_of, en->ctx);
}

static const struct zc_ex_room_ops client_room = {client_attach, client_run};

int zcast_executor_add_server_room(zcast_executor *ex, zcast_server *srv,
				   zcast_server_room_callback cb, void *ctx)
{
	if (!srv || !cb)
		return zc_err(ZCAST_EINVAL, "srv or cb is NULL");
	return zc_ex_add_room(ex, srv, &server_room, (void (*)(void))cb, ctx);
}

int zcast_executor_want_server_room(zcast_executor *ex, zcast_server *srv)
{
	return zc_ex_want_room(ex, srv, &server_room);
}

int zcast_executor_remove_server_room(zcast_executor *ex, zcast_server *srv)
{
	return zc_ex_remove_room(ex, srv, &server_room);
}

int zcast_executor_add_client_room(zcast_executor *ex, zcast_client *cli,
				   zcast_client_room_callback cb, void *ctx)
{
	if (!cli || !cb)
		return zc_err(ZCAST_EINVAL, "cli or cb is NULL");
	return zc_ex_add_room(ex, cli, &client_room, (void (*)(void))cb, ctx);
}

int zcast_executor_want_client_room(zcast_executor *ex, zcast_client *cli)
{
	return zc_ex_want_room(ex, cli, &client_room);
}

int zcast_executor_remove_client_room(zcast_executor *ex, zcast_client *cli)
{
	return zc_ex_remove_room(ex, cli, &client_room);
}
