/* Services (issue 23): a client killed, or closed, with calls pending. The server answers them
 * (or has them queued); the responses go to nobody and every slot comes back: the server's
 * response pool, the client's orphaned request pool, the client's response topic (all files of
 * the domain are gone once the server stops). A new client never receives an old one's response:
 * its response topic is another. */
#include "zt_svc.h"

static const char *service = "/svc/gone";

/* Sends n calls, reports, then waits to be killed. */
static int doomed_client(void *arg)
{
	int *fds = arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 7, i), NULL), 0);
	uint64_t id = zcast_client_id(cli);
	CHECK_EQ(write(fds[1], &id, sizeof id), (long)sizeof id);
	if (fds[2]) /* closed, not killed */
		CHECK_EQ(zcast_client_close(cli), 0);
	pause();
	return 0;
}

static void gone_case(int closed)
{
	int took[2], p[2], start[2];
	CHECK_EQ(pipe(took), 0);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(pipe(start), 0);
	/* The server answers only after the client is gone. */
	struct zt_server s = {.service = service, .took_w = took[1], .start_r = start[0]};
	pid_t srv = zt_start_server(&s);
	int fds[3] = {p[0], p[1], closed};
	pid_t doomed = zt_fork(doomed_client, fds);
	uint64_t old_id;
	CHECK_EQ(read(p[0], &old_id, sizeof old_id), (long)sizeof old_id);
	kill(doomed, SIGKILL);
	zt_wait(doomed);
	zt_put_byte(start[1]); /* it answers 4 requests of a dead client */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	CHECK(zcast_client_id(cli) != old_id);
	for (int i = 0; i < 20; i++) /* served after the four: only our own responses come */
		zt_call_add(cli, i, i);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_topic_gc(NULL, "/svc/gone/_rq"), ZCAST_ENOENT);
	CHECK_EQ(zt_shm_count(), 0); /* every pool and topic is gone: no slot left behind */
	for (int i = 0; i < 2; i++)
		close(took[i]), close(p[i]), close(start[i]);
}

int main(void)
{
	zt_setup("svc_gone", 120);
	gone_case(0);
	gone_case(1);
	printf("PASS svc_client_gone\n");
	return 0;
}
