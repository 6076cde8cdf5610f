/* Services (issue 23): servers and clients wait in wait sets, on pollable descriptors and in the
 * executor. A server process runs its requests in an executor callback; three clients of this
 * process wait for their outcomes in a wait set, with poll() on a descriptor and in an executor's
 * response callback. Each first gets a response; then each has a call taken by the server when it
 * is killed, and each way of waiting wakes for the failure (waits are unbounded here). */
#include "zt_svc.h"

static const char *service = "/svc/waiting";
static int took_fd;

static void on_request(zcast_server *srv, zcast_msg *req, void *ctx)
{
	(void)ctx;
	zt_serve_one(srv, zcast_msg_ref(req), took_fd);
}

static int exec_server(void *arg)
{
	struct zt_server *s = arg;
	took_fd = s->took_w;
	zcast_server *srv;
	CHECK_EQ(zcast_server_open(service, NULL, &srv), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	CHECK_EQ(zcast_executor_add_server(ex, srv, on_request, NULL), 0);
	zt_put_byte(s->ready_w);
	zcast_executor_spin(ex);
	return 0;
}

struct outcome {
	int n, err;
	uint64_t seq;
	int64_t sum;
};

static void on_response(zcast_client *cli, uint64_t seq, zcast_msg *resp, int err, void *ctx)
{
	(void)cli;
	struct outcome *o = ctx;
	o->n++;
	o->err = err;
	o->seq = seq;
	o->sum = resp ? ((const struct add_resp *)zcast_service_data(resp))->sum : -1;
}

/* One outcome of `cli` by way of the wait set, the descriptor or the executor. */
static int outcome_of(int how, zcast_client *cli, zcast_waitset *ws, int fd, zcast_executor *ex,
		      struct outcome *o, uint64_t *seq, int64_t *sum)
{
	int before = o->n;
	for (;;) {
		if (how == 2) {
			CHECK(zcast_executor_spin_once(ex, -1) >= 0);
			if (o->n > before) {
				*seq = o->seq, *sum = o->sum;
				return o->err;
			}
			continue;
		}
		zcast_msg *resp;
		int r = zcast_response_take(cli, &resp, seq);
		if (r != ZCAST_EAGAIN) {
			*sum = r == 0 ? ((const struct add_resp *)zcast_service_data(resp))->sum : -1;
			zcast_msg_drop(resp);
			return r;
		}
		if (how == 0) {
			zcast_ws_event ev[4];
			CHECK(zcast_waitset_wait(ws, -1, ev, 4) >= 0);
		} else {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			CHECK(poll(&p, 1, -1) >= 0);
		}
	}
}

int main(void)
{
	zt_setup("svc_waiting", 120);
	int took[2];
	CHECK_EQ(pipe(took), 0);
	struct zt_server s = {.service = service, .took_w = took[1], .start_r = -1};
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	s.ready_w = ready[1];
	pid_t srv = zt_fork(exec_server, &s);
	zt_get_byte(ready[0]);

	zcast_client *cli[3];
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_client_open(service, NULL, &cli[i]), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id, fd;
	CHECK_EQ(zcast_waitset_add_client(ws, cli[0], NULL, &id), 0);
	CHECK_EQ(zcast_client_fd(cli[1], &fd), 0);
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(NULL, &ex), 0);
	struct outcome o = {0};
	CHECK_EQ(zcast_executor_add_client(ex, cli[2], on_response, &o), 0);

	uint64_t seq, got;
	int64_t sum;
	for (int how = 0; how < 3; how++) {
		CHECK_EQ(zcast_request_send(cli[how], zt_request(cli[how], OP_ADD, how, 10), &seq), 0);
		CHECK_EQ(outcome_of(how, cli[how], ws, fd, ex, &o, &got, &sum), 0);
		CHECK_EQ(got, seq);
		CHECK_EQ(sum, how + 10);
	}
	uint64_t held[3];
	for (int how = 0; how < 3; how++) {
		CHECK_EQ(zcast_request_send(cli[how], zt_request(cli[how], OP_HOLD, 0, 0), &held[how]), 0);
		zt_get_byte(took[0]);
	}
	kill(srv, SIGKILL);
	zt_wait(srv);
	for (int how = 0; how < 3; how++) {
		CHECK_EQ(outcome_of(how, cli[how], ws, fd, ex, &o, &got, &sum), ZCAST_ESRVGONE);
		CHECK_EQ(got, held[how]);
	}
	CHECK_EQ(zcast_executor_remove_client(ex, cli[2]), 0);
	zcast_executor_destroy(ex);
	zcast_waitset_destroy(ws);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(zcast_client_close(cli[i]), 0);
	printf("PASS svc_waiting\n");
	return 0;
}
