/* Services (issue 23, svc-perf): a plain subscriber of a service's request topic (a spy: `zcast
 * echo`, a recorder) is not a server. With no server in the BALANCE_RR group, a send fails with
 * ZCAST_ENOSERVER from the publish itself and the loan stays the caller's (sent later, once a
 * server came); a bounded send waits for a server and times out. Before, the send counted every
 * live subscriber of the topic as a server: it went to the spy alone and the call waited for a
 * response nobody would send. */
#include "zt_svc.h"

static const char *service = "/svc/spied";

int main(void)
{
	zt_setup("svc_spy_not_server", 60);
	zcast_sub *spy = zt_open_sub("/svc/spied/_rq", ZCAST_POLICY_FULL, 8);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zcast_msg *req = zt_request(cli, OP_ADD, 20, 22);
	CHECK_EQ(zcast_request_send(cli, req, NULL), ZCAST_ENOSERVER);
	CHECK(strstr(zcast_last_error(), "no live server") != NULL);
	CHECK_EQ(zcast_request_send_wait(cli, req, 50000000, NULL), ZCAST_ETIMEDOUT);
	CHECK_EQ(zcast_client_pending(cli), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(spy, &m), ZCAST_EAGAIN); /* nothing was published */

	struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
	pid_t server = zt_start_server(&s);
	uint64_t seq = 0, got = 0;
	CHECK_EQ(zcast_request_send(cli, req, &seq), 0); /* the same loan, still the caller's */
	CHECK_EQ(zcast_client_wait(cli, -1), 0);
	zcast_msg *resp;
	CHECK_EQ(zcast_response_take(cli, &resp, &got), 0);
	CHECK_EQ(got, seq);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 42);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_take(spy, &m), 0); /* the spy sees the request as well */
	zcast_msg_drop(m);
	zt_stop_server(cli, server);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_sub_close(spy), 0);
	zt_cleanup();
	printf("svc_spy_not_server: ok\n");
	return 0;
}
