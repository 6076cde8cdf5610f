/* Services (audit-svc): a client served by an executor gets the failure of a call whose server was
 * killed, also when the call's marker found every marker slot queued. svc_marker_owed's setup
 * (one call slot: marker 1 stays queued behind a response already taken; call 2 taken by a
 * server that is then killed), but marker 1 is taken by an executor, which holds its message
 * until the client's callback returns. Before the fix the client had one marker slot: the owed
 * marker 2 was tried inside that callback, found marker 1's slot still held by the executor, and
 * was never tried again, so call 2 never reached the callback (here: four 5-second turns ran out).
 * Now the client has a marker slot more than calls: call 2 ends with ZCAST_ESRVGONE. */
#include "zcast/executor.h"
#include "zt_svc_marker.h"

static const char *service = "/svc/marker_exec";

struct got {
	int calls;
	uint64_t seq;
	int err;
};

static void on_outcome(zcast_client *cli, uint64_t seq, zcast_msg *resp, int err, void *ctx)
{
	(void)cli;
	(void)resp;
	struct got *g = ctx;
	g->calls++;
	g->seq = seq;
	g->err = err;
}

int main(void)
{
	zt_setup("svc_marker_exec", 60);
	struct zt_marker_scene sc;
	zt_marker_scene(service, &sc);
	zcast_client *cli = sc.cli;

	/* The executor takes marker 1, then whatever settles call 2. Bounded: a hang fails. */
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	struct got g = {0};
	CHECK_EQ(zcast_executor_add_client(ex, cli, on_outcome, &g), 0);
	for (int i = 0; i < 4 && g.calls == 0; i++) {
		int r = zcast_executor_spin_once(ex, 5000000000ll);
		CHECK(r > 0 || r == ZCAST_ETIMEDOUT);
	}
	CHECK_EQ(g.calls, 1);
	CHECK_EQ(g.seq, sc.seq2);
	CHECK_EQ(g.err, ZCAST_ESRVGONE);
	CHECK_EQ(zcast_client_pending(cli), 0);
	CHECK_EQ(zcast_executor_remove_client(ex, cli), 0);
	zcast_executor_destroy(ex);
	zt_marker_scene_end(&sc);
	zt_cleanup();
	printf("svc_marker_exec: ok\n");
	return 0;
}
