/* Services: a server that cannot open the route to a live client (here: out of descriptors) says
 * so and keeps the request; it used to answer ZCAST_ENOENT ("client is gone") and let go of the
 * request, whose client, alive, then waited for good: nothing told it (no membership change). The
 * retry once descriptors are back answers the call. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>

#include "zt_svc_room.h"

static const char *service = "/svc/route_no_fds";

/* Lowers the descriptor limit to the highest one open and fills the free ones below it. */
static int use_up_fds(int *fill, int max, struct rlimit *old)
{
	int highest = 0;
	DIR *d = opendir("/proc/self/fd");
	CHECK(d != NULL);
	for (struct dirent *de; (de = readdir(d));)
		if (atoi(de->d_name) > highest)
			highest = atoi(de->d_name);
	closedir(d);
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, old), 0);
	struct rlimit lim = *old;
	lim.rlim_cur = (rlim_t)highest + 1;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
	int n = 0;
	while (n < max && (fill[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	CHECK(n < max);
	return n;
}

int main(void)
{
	zt_setup("svc_route_no_fds", 60);
	zcast_server *srv = zt_room_server(service, 0, 0);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seq, got;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), &seq), 0);
	zcast_msg *req, *resp;
	CHECK_EQ(zcast_server_wait(srv, -1), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);

	int fill[4096];
	struct rlimit old;
	int n = use_up_fds(fill, 4096, &old);
	int r = zcast_response_loan(srv, req, 8, &resp); /* the route's first open */
	while (n > 0)
		close(fill[--n]);
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	CHECK(r < 0 && r != ZCAST_ENOENT); /* not "gone": the request is kept */

	CHECK_EQ(zcast_response_loan(srv, req, 8, &resp), 0);
	CHECK_EQ(zcast_response_send(srv, resp), 0);
	zcast_msg_drop(req);
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0); /* the call ends */
	CHECK_EQ(got, seq);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("PASS svc_route_no_fds\n");
	return 0;
}
