/* Services: zcast_client_forget gives up on a call a server holds and never answers. In one
 * process, a client of 2 calls: both sent and taken by the server, a third cannot be loaned
 * (ZCAST_ENOSLOT); the first forgotten: the client has room for a third call at once. The server
 * then answers all three: the client gets the second and the third, the late response to the
 * first is dropped, never handed out. An answered call not taken yet can be forgotten too (its
 * response dropped); a call unknown, forgotten already or whose outcome was taken is ZCAST_ENOENT,
 * a zcast_client_call's is ZCAST_EINVAL (not reachable here: it waits in its own thread). */
#include "zt_svc.h"

static zcast_msg *take_req(zcast_server *srv, uint64_t seq)
{
	zcast_msg *req;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	CHECK_EQ(zcast_request_seq(srv, req), seq);
	return req;
}

static uint64_t next_answer(zcast_client *cli)
{
	zcast_msg *resp;
	uint64_t seq;
	CHECK_EQ(zt_next_outcome(cli, &resp, &seq), 0);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, (int64_t)(10 * seq));
	zcast_msg_drop(resp);
	return seq;
}

int main(void)
{
	zt_setup("svc_forget", 60);
	const char *service = "/svc/forget";
	zcast_server *srv;
	zcast_client *cli;
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 2;
	CHECK_EQ(zcast_server_open(service, NULL, &srv), 0);
	CHECK_EQ(zcast_client_open(service, &o, &cli), 0);
	uint64_t s[4];
	zcast_msg *req[3], *extra;
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, i + 1, 9 * (i + 1)), &s[i]), 0);
		req[i] = take_req(srv, s[i]);
	}
	CHECK_EQ(zcast_request_loan(cli, sizeof(struct add_req), &extra), ZCAST_ENOSLOT);
	CHECK_EQ(zcast_client_forget(cli, s[0]), 0);
	CHECK_EQ(zcast_client_pending(cli), 1);
	CHECK_EQ(zcast_client_forget(cli, s[0]), ZCAST_ENOENT);
	CHECK_EQ(zcast_client_forget(cli, 99), ZCAST_ENOENT);
	CHECK_EQ(zcast_client_forget(NULL, s[1]), ZCAST_EINVAL);
	/* the freed place takes a third call while the server still holds the first */
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, 27), &s[2]), 0);
	req[2] = take_req(srv, s[2]);
	for (int i = 0; i < 3; i++) /* the first answered late: after the client let go of it */
		zt_serve_one(srv, req[i], -1);
	CHECK_EQ(next_answer(cli), s[1]);
	CHECK_EQ(next_answer(cli), s[2]);
	zcast_msg *resp;
	uint64_t seq;
	CHECK_EQ(zcast_response_take(cli, &resp, &seq), ZCAST_EAGAIN); /* the late one is dropped */
	CHECK(strstr(zcast_last_error(), "rejected") == NULL); /* quietly: no message is at fault */
	CHECK_EQ(zcast_client_pending(cli), 0);
	CHECK_EQ(zcast_client_forget(cli, s[1]), ZCAST_ENOENT); /* its outcome was taken */
	/* an answered call whose response is not taken yet: forgotten, the response dropped */
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 4, 36), &s[3]), 0);
	zt_serve_one(srv, take_req(srv, s[3]), -1);
	CHECK_EQ(zcast_client_wait(cli, -1), 0);
	CHECK_EQ(zcast_client_forget(cli, s[3]), 0);
	CHECK_EQ(zcast_response_take(cli, &resp, &seq), ZCAST_EAGAIN);
	CHECK_EQ(zcast_client_pending(cli), 0);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_forget\n");
	return 0;
}
