/* Services (issue 23): a killed client's response topic (<service>/_rs/c<id>_<nonce>) is removed
 * promptly once its owner is dead, without `zcast gc`: the topic of a client the server had
 * answered (the server had a route to it) and of one it never answered. A live client's topic
 * stays, and it keeps calling. The wait for the removal is unbounded: a topic left behind hangs
 * the test (the watchdog fails it). */
#include "zt_svc.h"

static const char *service = "/svc/client_topic";

struct doomed {
	int id_w;   /* the client's id, then it waits to be killed */
	int served; /* one call first */
};

static int doomed_client(void *arg)
{
	const struct doomed *d = arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	if (d->served)
		zt_call_add(cli, 1, 2);
	uint64_t id = zcast_client_id(cli);
	CHECK_EQ(write(d->id_w, &id, sizeof id), (ssize_t)sizeof id);
	pause();
	return 0;
}

/* The files of client id's response topic. */
static int topic_files(uint64_t id)
{
	char prefix[160];
	snprintf(prefix, sizeof prefix, "zcast.%s.svc.client_topic._rs.c%llu_", zt_domain(),
		 (unsigned long long)id);
	return zt_shm_count_prefix(prefix);
}

int main(void)
{
	zt_setup("svc_client_topic", 120);
	struct zt_server s = {.service = service, .took_w = -1, .start_r = -1};
	pid_t srv = zt_start_server(&s);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zt_call_add(cli, 3, 4);
	int ids[2];
	CHECK_EQ(pipe(ids), 0);
	pid_t kids[2];
	uint64_t id[2];
	for (int i = 0; i < 2; i++) {
		struct doomed d = {.id_w = ids[1], .served = i == 0};
		kids[i] = zt_fork(doomed_client, &d);
		CHECK_EQ(read(ids[0], &id[i], sizeof id[i]), (ssize_t)sizeof id[i]);
		CHECK_EQ(topic_files(id[i]), 1);
	}
	for (int i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		zt_wait(kids[i]);
	}
	while (topic_files(id[0]) + topic_files(id[1]) > 0)
		usleep(1000);
	CHECK_EQ(topic_files(zcast_client_id(cli)), 1); /* the live client's stays */
	CHECK_EQ(zt_call_add(cli, 5, 6), srv);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(ids[0]), close(ids[1]);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_client_topic\n");
	return 0;
}
