/* Services (issue 23): a request the server refuses is reported to its client as ZCAST_EREFUSED,
 * with a text that says why, never as ZCAST_ESRVGONE ("server gone": the server lives and answers
 * the next call). Two requests are spoilt in the client's own pool after their send, while the
 * server takes nothing yet: one's kind (not a request), one's client id (not its publisher's).
 * Both end with ZCAST_EREFUSED, promptly (the waits are unbounded: a hang is the failure), by the
 * server's refusal; a third call, sent between them, is answered. */
#include "zt_svc.h"

static const char *service = "/svc/refused";

/* The service header of a request loan, in the client's pool (it stays mapped after the send). */
static uint8_t *header_of(zcast_msg *req)
{
	return (uint8_t *)zcast_service_data(req) - ZCAST_SERVICE_HEADER;
}

/* One outcome: the refusal of `seq`, whose text names `why`. */
static void expect_refused(zcast_client *cli, uint64_t seq, const char *why)
{
	zcast_msg *resp;
	uint64_t got;
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), ZCAST_EREFUSED);
	CHECK_EQ(got, seq);
	CHECK(resp == NULL);
	printf("# %s\n", zcast_last_error());
	CHECK(strstr(zcast_last_error(), "refused") != NULL);
	CHECK(strstr(zcast_last_error(), why) != NULL);
	CHECK(strstr(zcast_last_error(), "gone") == NULL);
}

int main(void)
{
	zt_setup("svc_refused", 120);
	CHECK(strcmp(zcast_strerror(ZCAST_EREFUSED), zcast_strerror(ZCAST_ESRVGONE)) != 0);
	int start[2];
	CHECK_EQ(pipe(start), 0);
	struct zt_server s = {.service = service, .took_w = -1, .start_r = start[0]};
	pid_t srv = zt_start_server(&s); /* takes nothing until the spoilt requests are queued */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);

	uint64_t bad_kind, good, bad_id;
	zcast_msg *req = zt_request(cli, OP_ADD, 1, 1);
	uint8_t *h = header_of(req);
	CHECK_EQ(zcast_request_send(cli, req, &bad_kind), 0);
	uint32_t kind = 9; /* struct zc_svc_hdr: magic, kind, client_id, ... */
	memcpy(h + 4, &kind, sizeof kind);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 20, 22), &good), 0);
	req = zt_request(cli, OP_ADD, 2, 2);
	h = header_of(req);
	CHECK_EQ(zcast_request_send(cli, req, &bad_id), 0);
	uint64_t id = zcast_client_id(cli) + 1000;
	memcpy(h + 8, &id, sizeof id);
	zt_put_byte(start[1]);

	expect_refused(cli, bad_kind, "service header");
	zcast_msg *resp;
	uint64_t got;
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
	CHECK_EQ(got, good);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 42);
	zcast_msg_drop(resp);
	expect_refused(cli, bad_id, "client id");
	CHECK_EQ(zcast_client_pending(cli), 0);

	CHECK_EQ(zt_call_add(cli, 5, 6), srv); /* the server lives and serves */
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(start[0]), close(start[1]);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_refused\n");
	return 0;
}
