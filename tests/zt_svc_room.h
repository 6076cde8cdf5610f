/* Helpers of the service tests that wait for room (tests/svc/test_svc_fail_no_room.c,
 * test_svc_room_wakes.c). */
#ifndef ZT_SVC_ROOM_H
#define ZT_SVC_ROOM_H

#include "zt_svc.h"

/* A server of `service` with `slots` response slots per client and a queue of `depth` (0: the
 * defaults). */
static inline zcast_server *zt_room_server(const char *service, uint32_t slots, uint32_t depth)
{
	zcast_service_opts so;
	zcast_service_opts_init(&so);
	so.slot_count = slots;
	so.queue_depth = depth;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(service, &so, &srv), 0);
	return srv;
}

/* A wait set with the server's room entry (user: srv), not ready yet. */
static inline zcast_waitset *zt_server_room_ws(zcast_server *srv)
{
	zcast_waitset *ws;
	int id;
	zcast_ws_event ev[2];
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	CHECK_EQ(zcast_waitset_add_server_room(ws, srv, srv, &id), 0);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 2), ZCAST_ETIMEDOUT);
	return ws;
}

#endif
