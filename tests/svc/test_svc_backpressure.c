/* Services (issue 23): a slow server. Requests queue up to the server's queue_depth; beyond, a
 * send fails with ZCAST_EAGAIN and the loan stays with the caller, or waits (bounded) for room;
 * the client's own pool bounds its pending calls (ZCAST_ENOSLOT). Nothing grows without bound. */
#include "zt_svc.h"

int main(void)
{
	zt_setup("svc_backpr", 120);
	const char *service = "/svc/slow";
	int start[2];
	CHECK_EQ(pipe(start), 0);
	struct zt_server s = {.service = service, .queue_depth = 2, .took_w = -1, .start_r = start[0]};
	pid_t srv = zt_start_server(&s);
	zcast_client *cli;
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 4;
	CHECK_EQ(zcast_client_open(service, &o, &cli), 0);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, i), NULL), 0);
	zcast_msg *req = zt_request(cli, OP_ADD, 1, 2);
	CHECK_EQ(zcast_request_send(cli, req, NULL), ZCAST_EAGAIN); /* the server's queue is full */
	CHECK_EQ(zcast_request_send_wait(cli, req, 1000000, NULL), ZCAST_ETIMEDOUT);
	CHECK(zcast_service_data(req) != NULL); /* still the caller's, intact */
	CHECK_EQ(((struct add_req *)zcast_service_data(req))->b, 2);
	CHECK_EQ(zcast_client_pending(cli), 2);
	zcast_msg *more[2];
	CHECK_EQ(zcast_request_loan(cli, 8, &more[0]), 0);
	zt_put_byte(start[1]); /* the server starts taking: room comes, the wait ends */
	uint64_t seq;
	CHECK_EQ(zcast_request_send_wait(cli, req, -1, &seq), 0);
	CHECK(seq > 2); /* numbers are unique per client; refused sends used some */
	zcast_msg_drop(more[0]);
	int sums = 0;
	for (int n = 0; n < 3;) {
		CHECK_EQ(zcast_client_wait(cli, -1), 0);
		zcast_msg *resp;
		int r = zcast_response_take(cli, &resp, &seq);
		if (r == ZCAST_EAGAIN)
			continue;
		CHECK_EQ(r, 0);
		sums |= 1 << ((const struct add_resp *)zcast_service_data(resp))->sum;
		zcast_msg_drop(resp);
		n++;
	}
	CHECK_EQ(sums, 2 | 4 | 8); /* 1+0, 1+1, 1+2 */
	/* slot_count pending calls at most (the server keeps these unanswered). */
	for (int i = 0; i < 4; i++)
		CHECK_EQ(zcast_request_send_wait(cli, zt_request(cli, OP_HOLD, 0, 0), -1, NULL), 0);
	zcast_msg *over;
	CHECK_EQ(zcast_request_loan(cli, 8, &over), ZCAST_ENOSLOT);
	CHECK_EQ(zcast_client_close(cli), 0);
	kill(srv, SIGKILL);
	zt_wait(srv);
	close(start[0]), close(start[1]);
	printf("PASS svc_backpressure\n");
	return 0;
}
