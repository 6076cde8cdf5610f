/* Services (issue 23): several servers of one service share the requests: each request is
 * answered by exactly one of them (ROS 2 differs: there every server gets every request). Three
 * server processes each count what they answered; 48 calls in flight from two clients come back
 * once each, and the servers' counts add up to the calls. */
#include "zt_svc.h"

static const char *service = "/svc/share";

/* Outcomes of n calls sent with seqs[]; each exactly once. */
static void collect(zcast_client *cli, const uint64_t *seqs, int n, int *by_server, const pid_t *srv)
{
	int got[48] = {0};
	for (int k = 0; k < n;) {
		zcast_msg *resp;
		uint64_t seq;
		CHECK_EQ(zt_next_outcome(cli, &resp, &seq), 0);
		int i = (int)(seq - seqs[0]);
		CHECK(i >= 0 && i < n && seqs[i] == seq && !got[i]);
		got[i] = 1;
		const struct add_resp *a = zcast_service_data(resp);
		CHECK_EQ(a->sum, 100 + i);
		int j = 0;
		while (j < 3 && srv[j] != a->pid)
			j++;
		CHECK(j < 3);
		by_server[j]++;
		zcast_msg_drop(resp);
		k++;
	}
}

int main(void)
{
	zt_setup("svc_share", 120);
	pid_t srv[3];
	for (int j = 0; j < 3; j++) {
		struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
		srv[j] = zt_start_server(&s);
	}
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 24;
	zcast_client *cli[2];
	uint64_t seqs[2][24];
	for (int c = 0; c < 2; c++)
		CHECK_EQ(zcast_client_open(service, &o, &cli[c]), 0);
	for (int i = 0; i < 24; i++)
		for (int c = 0; c < 2; c++)
			CHECK_EQ(zcast_request_send_wait(cli[c], zt_request(cli[c], OP_ADD, 100, i), -1,
							 &seqs[c][i]),
				 0);
	int by_server[3] = {0};
	for (int c = 0; c < 2; c++)
		collect(cli[c], seqs[c], 24, by_server, srv);
	CHECK_EQ(by_server[0] + by_server[1] + by_server[2], 48);
	CHECK_EQ(zcast_client_servers(cli[0]), 3);
	/* A STOP reaches one server; one that is closing answers the next with a failure. */
	for (int stopped = 0; stopped < 3;) {
		zcast_msg *resp;
		int r = zcast_client_call(cli[0], zt_request(cli[0], OP_STOP, 0, 0), -1, &resp);
		CHECK(r == 0 || r == ZCAST_ESRVGONE);
		stopped += r == 0;
		zcast_msg_drop(resp);
	}
	for (int j = 0; j < 3; j++)
		CHECK_CHILD_OK(srv[j]);
	for (int c = 0; c < 2; c++)
		CHECK_EQ(zcast_client_close(cli[c]), 0);
	printf("PASS svc_servers_share (%d/%d/%d)\n", by_server[0], by_server[1], by_server[2]);
	return 0;
}
