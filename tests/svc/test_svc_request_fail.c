/* Services: zcast_request_fail answers one taken request with a failure. In one process: three
 * calls sent; the server fails the second and answers the others. The client gets ZCAST_ESRVGONE
 * for exactly that call and responses for the two others; the server serves the next call; a
 * request failed once cannot be failed or answered again (ZCAST_EINVAL). */
#include "zt_svc.h"

int main(void)
{
	zt_setup("svc_request_fail", 60);
	const char *service = "/svc/fail_one";
	zcast_server *srv;
	zcast_client *cli;
	CHECK_EQ(zcast_server_open(service, NULL, &srv), 0);
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seqs[3];
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, i), &seqs[i]), 0);
	for (int i = 0; i < 3; i++) {
		zcast_msg *req;
		CHECK_EQ(zcast_server_wait(srv, -1), 0);
		CHECK_EQ(zcast_request_take(srv, &req), 0);
		CHECK_EQ(zcast_request_seq(srv, req), seqs[i]);
		if (i == 1) {
			CHECK_EQ(zcast_request_fail(srv, req), 0);
			CHECK_EQ(zcast_request_fail(srv, req), ZCAST_EINVAL);
			zcast_msg *resp;
			CHECK_EQ(zcast_response_loan(srv, req, 8, &resp), ZCAST_EINVAL);
			zcast_msg_drop(req);
		} else {
			zt_serve_one(srv, req, -1);
		}
	}
	int ok = 0, gone = 0;
	while (ok + gone < 3) {
		CHECK_EQ(zcast_client_wait(cli, -1), 0);
		zcast_msg *resp;
		uint64_t seq;
		int r = zcast_response_take(cli, &resp, &seq);
		if (r == ZCAST_EAGAIN)
			continue;
		if (r == ZCAST_ESRVGONE) {
			CHECK_EQ(seq, seqs[1]);
			gone++;
			continue;
		}
		CHECK_EQ(r, 0);
		CHECK(seq == seqs[0] || seq == seqs[2]);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, seq == seqs[0] ? 1 : 3);
		zcast_msg_drop(resp);
		ok++;
	}
	CHECK_EQ(gone, 1);
	CHECK_EQ(zcast_client_pending(cli), 0);
	CHECK_EQ(zcast_request_fail(NULL, NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_request_fail\n");
	return 0;
}
