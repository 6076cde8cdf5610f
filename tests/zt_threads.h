/* Starting the library's helper threads from a test: a pollable descriptor of subscriber s and a
 * wait set on its graph word, waited on once. */
#ifndef ZT_THREADS_H
#define ZT_THREADS_H

#include "harness.h"
#include "zcast/waitset.h"

/* Returns the wait set (the caller destroys it). */
static inline zcast_waitset *zt_start_helpers(zcast_sub *s)
{
	int fd;
	CHECK_EQ(zcast_sub_fd(s, &fd), 0);
	CHECK(fd >= 0);
	zcast_waitset *ws = NULL;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id;
	CHECK_EQ(zcast_waitset_add_sub_graph(ws, s, NULL, &id), 0);
	zcast_ws_event ev[4];
	int wr = zcast_waitset_wait(ws, 0, ev, 4);
	CHECK(wr >= 0 || wr == ZCAST_ETIMEDOUT);
	return ws;
}

#endif
