/* Fault injection in the services layer: for every crash point of src/svc/svc_crash_points.def a
 * server or a client process dies there (ZCAST_CRASH_AT, SIGKILL) in the middle of a call, and
 * the survivors must see the outcome docs/SERVICES.md promises:
 *  - a server killed after taking the request (svc:take:after-adopt) or after loaning its response
 *    (svc:respond:after-loan): the pending call ends with ZCAST_ESRVGONE, never by its timeout;
 *  - a server killed after publishing its response, before releasing the request
 *    (svc:respond:after-publish): the call gets that response (it was queued before the slot was
 *    released, so before the marker);
 *  - a client killed right after publishing its request (svc:send:after-publish): the server
 *    answers nobody and goes on serving;
 * then a new server (or client) works, and once everybody closed no segment of the domain is left
 * (every request and response slot came back with its pool). An unreached point fails the test in
 * a test build (fault injection compiled in); elsewhere the test is skipped. */
#include "zt_svc_tolerant.h"

#define ZC_CRASH_POINT(name) name,
static const char *const points[] = {
#include "../../src/svc/svc_crash_points.def"
};
#undef ZC_CRASH_POINT
#define N_POINTS (sizeof points / sizeof points[0])

#define CALL_NS 30000000000ll /* far beyond any prompt outcome: a timeout is a lost wake-up */

static const char *crash_at;

static int crashing_server(void *arg)
{
	setenv("ZCAST_CRASH_AT", crash_at, 1);
	return zt_tolerant_server(arg);
}

static int crashing_client(void *arg)
{
	setenv("ZCAST_CRASH_AT", crash_at, 1);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(arg, NULL, &cli), 0);
	zt_call_add(cli, 1, 2); /* dies inside */
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

/* The child died at its crash point (1), or finished without reaching it (0). */
static int died_there(pid_t pid)
{
	int st = zt_wait_bounded(pid, 30000, "a crash point's child");
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 1;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return 0;
}

static pid_t start_server_with(const char *service, int (*fn)(void *))
{
	static struct zt_tolerant s;
	s = (struct zt_tolerant){.s = {.service = service, .took_w = -1, .start_r = -1}};
	int p[2];
	CHECK_EQ(pipe(p), 0);
	s.s.ready_w = p[1];
	pid_t pid = zt_fork(fn, &s);
	zt_get_byte(p[0]);
	close(p[0]);
	close(p[1]);
	return pid;
}

/* A server dies at the point during a call of this process's client. */
static int server_point(const char *service)
{
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	pid_t srv = start_server_with(service, crashing_server);
	zcast_msg *resp = NULL;
	int r = zcast_client_call(cli, zt_request(cli, OP_ADD, 20, 22), CALL_NS, &resp);
	int reached = died_there(srv);
	if (!reached) { /* not compiled in: the server answered and still runs */
		CHECK_EQ(r, 0);
		zcast_msg_drop(resp);
		zt_stop_server(cli, srv);
	} else if (!strcmp(crash_at, "svc:respond:after-publish")) {
		CHECK_EQ(r, 0);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 42);
		zcast_msg_drop(resp);
	} else {
		if (r != ZCAST_ESRVGONE)
			fprintf(stderr, "call after %s: %s (%s)\n", crash_at, zcast_strerror(r), zcast_last_error());
		CHECK_EQ(r, ZCAST_ESRVGONE);
		if (resp)
			zcast_msg_drop(resp);
	}
	CHECK_EQ(zcast_client_pending(cli), 0);
	if (reached) { /* the service still works with a new server */
		srv = start_server_with(service, zt_tolerant_server);
		CHECK_EQ(zt_call_add(cli, 3, 4), srv);
		zt_stop_server(cli, srv);
	}
	CHECK_EQ(zcast_client_close(cli), 0);
	return reached;
}

/* A client dies at the point during its call; the server goes on serving. */
static int client_point(const char *service)
{
	pid_t srv = start_server_with(service, zt_tolerant_server);
	int reached = died_there(zt_fork(crashing_client, (void *)service));
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	CHECK_EQ(zt_call_add(cli, 5, 6), srv);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	return reached;
}

int main(void)
{
	zt_setup("svc_crash_points", 240);
	int reached = 0;
	for (size_t i = 0; i < N_POINTS; i++) {
		char service[64];
		snprintf(service, sizeof service, "/svc/crash%zu", i);
		crash_at = points[i];
		int hit = strncmp(crash_at, "svc:send:", 9) ? server_point(service) : client_point(service);
		/* A dead client's response topic may still hold its dead subscriber when the server
		 * leaves it (found here: about 1 run in 10 left it and a pool behind); gc, as after
		 * any crash, must then find nothing it cannot reclaim and remove. */
		zt_gc_domain();
		CHECK_EQ(zt_shm_count(), 0); /* every slot came back with its pool */
		if (!hit) {
#ifdef ZT_FAULT_INJECTION_BUILT
			fprintf(stderr, "FAIL: crash point \"%s\" was never reached\n", crash_at);
			zt_fail();
#else
			printf("# fault injection is not compiled in (ZCAST_TEST_BUILD=OFF): skip\n");
			return ZT_SKIP;
#endif
		}
		printf("ok %s\n", crash_at);
		reached++;
	}
	printf("PASS svc_crash_points (%d points)\n", reached);
	return 0;
}
