/* A wait set with nothing attached waits out its timeout: ZCAST_ETIMEDOUT, no event. Under UBSan
 * this failed: collecting the (empty) hot list copied 0 bytes from a NULL buffer (a recorder that
 * had not yet found a topic waited on such a set). */
#include "harness.h"
#include "zcast/waitset.h"

static void test_empty_waitset_times_out(void)
{
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	zcast_ws_event ev[4];
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_waitset_wait(ws, 1000000, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT);
	zcast_waitset_destroy(ws);
}

int main(void)
{
	zt_setup("waitset_empty", 60);
	RUN(test_empty_waitset_times_out);
	return 0;
}
