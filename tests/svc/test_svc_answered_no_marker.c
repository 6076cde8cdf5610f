/* Services (issue 23, svc-perf): a call that its server answers while the send is still returning
 * costs no marker. The server releases the request right after queueing the response, so the
 * client that looks at the request slot after its publish finds it released; that is an answered
 * call, not a suspect one: only a hook run (a reclaim or a membership change) during the send makes
 * the send check its calls (src/svc/client.c, model/service.pml SEND_CHECK_SLOT). Counted on the
 * client's response topic: its last sequence number grows by one response per call, no more.
 * ZCAST_PAUSE_AT holds the client after each publish so that the server answers first. */
#include "zt_svc.h"

static const char *service = "/svc/fast";

int main(void)
{
	zt_setup("svc_answered_no_marker", 60);
	struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
	pid_t server = zt_start_server(&s);
	/* Read by the client's own sends only (the server never sends a request). */
	CHECK_EQ(setenv("ZCAST_PAUSE_AT", "svc:send:after-publish:40", 1), 0);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zt_call_add(cli, getpid(), 0); /* the server joins the response topic: a hook run */
	char topic[256];
	zt_response_topic(service, topic);
	zt_sleep_ms(200); /* the death watcher's follower has seen that join */
	uint64_t before = zt_published(topic);
	enum { CALLS = 6 };
	for (int i = 1; i <= CALLS; i++)
		zt_call_add(cli, getpid(), i);
	/* One response per call and no marker (before the fix: a marker per call as well). One marker
	 * at most is allowed: a follower that saw the server's join later than the sleep above (a
	 * loaded machine) runs the hook once, during one of these calls. */
	uint64_t markers = zt_published(topic) - before - CALLS;
	CHECK(markers <= 1);
	CHECK_EQ(zcast_client_pending(cli), 0);
	zt_stop_server(cli, server);
	CHECK_EQ(zcast_client_close(cli), 0);
	zt_cleanup();
	printf("svc_answered_no_marker: ok\n");
	return 0;
}
