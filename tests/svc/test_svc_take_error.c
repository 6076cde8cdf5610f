/* Services (audit-svc): a take of the response topic that fails (here: no descriptor left to map
 * the server's response pool; the core keeps the response queued, test take_fd_exhaustion) is
 * reported by zcast_response_take, zcast_client_wait and zcast_client_call, as before the
 * services became thread-safe. Since then the error was dropped: response_take said ZCAST_EAGAIN
 * and a wait or call, finding the response still queued, turned round without sleeping until its
 * timeout (for good without one). Once descriptors are back, the response is taken. */
#include "zt_fds.h"
#include "zt_svc.h"

static const char *service = "/svc/take_error";

int main(void)
{
	zt_setup("svc_take_error", 60);
	struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
	pid_t server = zt_start_server(&s);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	char topic[256];
	zt_response_topic(service, topic);
	uint64_t seq1, got;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), &seq1), 0);
	for (int i = 0; i < 2000 && zt_published(topic) < 1; i++)
		zt_sleep_ms(5);
	CHECK(zt_published(topic) >= 1); /* queued (a marker may follow), in a pool never mapped here */
	zcast_msg *call_req = zt_request(cli, OP_ADD, 3, 4);

	static struct zt_no_fds no_fds;
	zt_fds_exhaust(&no_fds);
	zcast_msg *resp = NULL;
	int take = zcast_response_take(cli, &resp, &got);
	int wait = zcast_client_wait(cli, 2000000000ll);
	int call = zcast_client_call(cli, call_req, 2000000000ll, &resp);
	zt_fds_restore(&no_fds);
	printf("without descriptors: take %d, wait %d, call %d\n", take, wait, call);
	CHECK(take < 0 && take != ZCAST_EAGAIN);
	CHECK(wait < 0 && wait != ZCAST_ETIMEDOUT);
	CHECK(call < 0 && call != ZCAST_ETIMEDOUT);

	/* Descriptors back: call 1's response was kept queued. */
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
	CHECK_EQ(got, seq1);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 3);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(kill(server, SIGKILL), 0);
	zt_wait(server);
	zt_cleanup();
	printf("svc_take_error: ok\n");
	return 0;
}
