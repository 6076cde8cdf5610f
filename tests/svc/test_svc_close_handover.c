/* Services (issue 23): a server that CLOSES (not killed) with two requests taken and unanswered
 * (from two client processes) and two queued, while a second server runs. The queued requests go
 * to the second server and are answered there (as at a kill, proto/rr_handover.c); each taken one
 * fails promptly in its own client process with ZCAST_ESRVGONE, whose text says the server closed.
 * All waits are unbounded: a hang is the failure. */
#include "zt_svc.h"

static const char *service = "/svc/close_handover";

int main(void)
{
	zt_setup("svc_close_handover", 120);
	int closing[2];
	CHECK_EQ(pipe(closing), 0);
	struct zt_server s1 = {.service = service, .start_r = -1, .hold_all = 1, .take_limit = 2,
			       .close_r = closing[0]};
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t held, queued[2];
	pid_t other, p1 = zt_two_taken_two_queued(&s1, cli, "closed", &held, queued, &other);
	struct zt_server s2 = {.service = service, .took_w = -1, .start_r = -1};
	pid_t p2 = zt_start_server(&s2);
	zt_put_byte(closing[1]); /* server 1 closes: not killed */

	int answered = 0, failed = 0;
	for (int n = 0; n < 3; n++) {
		zcast_msg *resp;
		uint64_t seq;
		int r = zt_next_outcome(cli, &resp, &seq);
		if (r == ZCAST_ESRVGONE) {
			CHECK_EQ(seq, held);
			CHECK(strstr(zcast_last_error(), "closed") != NULL);
			failed++;
			continue;
		}
		CHECK_EQ(r, 0);
		CHECK(seq == queued[0] || seq == queued[1]);
		const struct add_resp *a = zcast_service_data(resp);
		CHECK_EQ(a->pid, p2); /* handed over to the live server */
		CHECK_EQ(a->sum, 3 + (seq == queued[1]));
		zcast_msg_drop(resp);
		answered++;
	}
	CHECK_EQ(failed, 1);
	CHECK_EQ(answered, 2);
	CHECK_CHILD_OK(other);
	CHECK_CHILD_OK(p1);
	CHECK_EQ(zcast_client_pending(cli), 0);
	zt_stop_server(cli, p2);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(closing[0]), close(closing[1]);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_close_handover\n");
	return 0;
}
