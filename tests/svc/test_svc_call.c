/* Services (issue 23): calls from several client processes to one server process, any start
 * order; each response reaches the client that asked, with its sequence number; requests and
 * responses are read where they were written (zero copy both ways). */
#include "zt_svc.h"

static int client_main(void *arg)
{
	const char *service = arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	for (int i = 0; i < 200; i++)
		zt_call_add(cli, getpid(), i);
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

/* Asynchronous sends, outcomes taken later and matched by sequence number. */
static void async_calls(zcast_client *cli)
{
	uint64_t seqs[8];
	for (int i = 0; i < 8; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1000, i), &seqs[i]), 0);
	CHECK_EQ(zcast_client_pending(cli), 8);
	zcast_msg *extra;
	CHECK_EQ(zcast_request_loan(cli, 8, &extra), ZCAST_ENOSLOT); /* slot_count calls pending */
	int got[8] = {0};
	for (int n = 0; n < 8;) {
		zcast_msg *resp;
		uint64_t seq;
		CHECK_EQ(zt_next_outcome(cli, &resp, &seq), 0);
		int i = (int)(seq - seqs[0]);
		CHECK(i >= 0 && i < 8 && seqs[i] == seq && !got[i]);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 1000 + i);
		got[i] = 1;
		n++;
		zcast_msg_drop(resp);
	}
	CHECK_EQ(zcast_client_pending(cli), 0);
}

int main(void)
{
	zt_setup("svc_call", 120);
	const char *service = "/svc/add";
	/* A client first: no server yet. */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	CHECK_EQ(zcast_client_servers(cli), 0);
	zcast_msg *req = zt_request(cli, OP_ADD, 1, 2), *resp;
	uint64_t seq;
	CHECK_EQ(zcast_request_send(cli, req, &seq), ZCAST_ENOSERVER);
	CHECK_EQ(zcast_client_call(cli, req, 1000000, &resp), ZCAST_ETIMEDOUT); /* consumed */

	struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
	pid_t srv = zt_start_server(&s);
	CHECK_EQ(zcast_client_servers(cli), 1);
	CHECK_EQ(zt_call_add(cli, 1, 2), srv);
	async_calls(cli);

	pid_t kids[3];
	for (int i = 0; i < 3; i++)
		kids[i] = zt_fork(client_main, (void *)service);
	for (int i = 0; i < 3; i++)
		CHECK_CHILD_OK(kids[i]);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_call\n");
	return 0;
}
