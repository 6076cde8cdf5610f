/* Services (audit-svc): a client served by an executor gets the failure of a call whose server was
 * killed, also when the call's marker found every marker slot queued. svc_marker_owed's setup
 * (one call slot: marker 1 stays queued behind a response already taken; call 2 taken by a
 * server that is then killed), but marker 1 is taken by an executor, which holds its message
 * until the client's callback returns. Before the fix the client had one marker slot: the owed
 * marker 2 was tried inside that callback, found marker 1's slot still held by the executor, and
 * was never tried again, so call 2 never reached the callback (here: four 5-second turns ran out).
 * Now the client has a marker slot more than calls: call 2 ends with ZCAST_ESRVGONE. */
#include "zcast/executor.h"
#include "zt_svc.h"

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

/* A member joins and leaves the request topic: the client's death watcher runs the hook. */
static void membership_change(void)
{
	zcast_client *c2;
	CHECK_EQ(zcast_client_open(service, NULL, &c2), 0);
	CHECK_EQ(zcast_client_close(c2), 0);
}

int main(void)
{
	zt_setup("svc_marker_exec", 60);
	int took[2];
	CHECK_EQ(pipe(took), 0);
	struct zt_server s = {.service = service, .took_w = took[1], .start_r = -1};
	pid_t server = zt_start_server(&s);
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 1;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, &o, &cli), 0);
	char topic[256];
	zt_response_topic(service, topic);

	/* Call 1 answered; hooks run until its released request makes it suspect: marker 1. */
	uint64_t seq1, seq2, got;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), &seq1), 0);
	for (int i = 0; i < 2000 && zt_published(topic) < 2; i++) {
		if (zt_published(topic) == 1)
			membership_change();
		zt_sleep_ms(5);
	}
	CHECK_EQ(zt_published(topic), 2); /* the response, then marker 1 */
	zcast_msg *resp;
	CHECK_EQ(zcast_response_take(cli, &resp, &got), 0);
	CHECK_EQ(got, seq1);
	zcast_msg_drop(resp); /* marker 1 stays queued */

	/* Call 2 taken and never answered; its server killed: the hook makes call 2 suspect. */
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_HOLD, 0, 0), &seq2), 0);
	zt_get_byte(took[0]);
	CHECK_EQ(kill(server, SIGKILL), 0);
	zt_wait(server);
	for (int i = 0; i < 2000 && zcast_client_servers(cli) > 0; i++)
		zt_sleep_ms(5);
	CHECK_EQ(zcast_client_servers(cli), 0);
	zt_sleep_ms(200); /* the hook after the reclaim has run (sooner or later: never a false failure) */

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
	CHECK_EQ(g.seq, seq2);
	CHECK_EQ(g.err, ZCAST_ESRVGONE);
	CHECK_EQ(zcast_client_pending(cli), 0);
	CHECK_EQ(zcast_executor_remove_client(ex, cli), 0);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(took[0]);
	close(took[1]);
	zt_cleanup();
	printf("svc_marker_exec: ok\n");
	return 0;
}
