/* Services (issue 23): a server killed with requests taken and queued. Every call it had taken,
 * from every client, fails promptly with ZCAST_ESRVGONE (no timeout: the waits here are
 * unbounded); the requests it had queued go to the other live server and are answered there; with
 * no other server they fail too. */
#include "zt_svc.h"

static const char *service = "/svc/killed";

/* Outcomes of n calls: failures counted, responses checked to come from `pid`. */
static int collect(zcast_client *cli, int n, pid_t pid, uint64_t failed_seq)
{
	int failed = 0;
	while (n > 0) {
		zcast_msg *resp;
		uint64_t seq;
		int r = zt_next_outcome(cli, &resp, &seq);
		n--;
		if (r == ZCAST_ESRVGONE) {
			CHECK(failed_seq == 0 || seq == failed_seq);
			failed++;
			continue;
		}
		CHECK_EQ(r, 0);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->pid, pid);
		zcast_msg_drop(resp);
	}
	return failed;
}

static void killed_case(int with_second_server)
{
	struct zt_server s1 = {.service = service, .start_r = -1, .hold_all = 1, .take_limit = 2};
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t held, queued[2];
	pid_t other, p1 = zt_two_taken_two_queued(&s1, cli, "died", &held, queued, &other);
	pid_t p2 = 0;
	if (with_second_server) {
		struct zt_server s2 = {.service = service, .took_w = -1, .start_r = -1};
		p2 = zt_start_server(&s2);
	}
	kill(p1, SIGKILL);
	zt_wait(p1);
	CHECK_EQ(collect(cli, 3, p2, with_second_server ? held : 0), with_second_server ? 1 : 3);
	CHECK_CHILD_OK(other);
	CHECK_EQ(zcast_client_pending(cli), 0);
	if (p2)
		zt_stop_server(cli, p2);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zt_shm_count(), 0);
}

int main(void)
{
	zt_setup("svc_killed", 120);
	killed_case(1);
	killed_case(0);
	printf("PASS svc_server_killed\n");
	return 0;
}
