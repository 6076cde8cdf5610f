/* Services (issue 23): a server closed with one request taken and unanswered and two queued. Each
 * of those calls ends with ZCAST_ESRVGONE in the client process (an unbounded wait), and a new
 * server then answers the client's next call. */
#include "zt_svc.h"

static const char *service = "/svc/closed";

static int client_main(void *arg)
{
	int sent_w = *(int *)arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seqs[3];
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, i), &seqs[i]), 0);
	zt_put_byte(sent_w);
	for (int failed = 0; failed < 3;) {
		zcast_msg *resp;
		uint64_t seq;
		CHECK_EQ(zt_next_outcome(cli, &resp, &seq), ZCAST_ESRVGONE);
		CHECK(strstr(zcast_last_error(), "closed") != NULL);
		CHECK(seq >= seqs[0] && seq <= seqs[2]);
		failed++;
	}
	CHECK_EQ(zcast_client_pending(cli), 0);
	/* The closing server stopped being a target before it sent the failures: the next call
	 * waits for the next server, which answers it. */
	zcast_msg *resp;
	CHECK_EQ(zcast_client_call(cli, zt_request(cli, OP_ADD, 2, 3), -1, &resp), 0);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 5);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

int main(void)
{
	zt_setup("svc_closed", 120);
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(service, NULL, &srv), 0);
	int sent[2];
	CHECK_EQ(pipe(sent), 0);
	pid_t cli = zt_fork(client_main, &sent[1]);
	zt_get_byte(sent[0]);
	zcast_msg *req;
	CHECK_EQ(zcast_request_take(srv, &req), 0); /* taken, never answered */
	CHECK_EQ(zcast_server_close(srv), 0);
	CHECK(zcast_service_data(req) != NULL); /* still readable until dropped */
	zcast_msg_drop(req);
	CHECK_EQ(zcast_server_open(service, NULL, &srv), 0);
	for (int answered = 0; answered < 1;) {
		CHECK_EQ(zcast_server_wait(srv, -1), 0);
		if (zcast_request_take(srv, &req) != 0)
			continue;
		zt_serve_one(srv, req, -1);
		answered++;
	}
	CHECK_CHILD_OK(cli);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_server_closed\n");
	return 0;
}
