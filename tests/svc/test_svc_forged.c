/* Services (issue 23): forged values in shared memory are rejected, never written through.
 * A hostile process with its own publishers on the service's topics sends: a request whose client
 * id is another client's (the server answers nobody: its id is not its publisher's), requests
 * without a header or of another kind; responses on a client's response topic with another
 * client's id, with a sequence number no call has, a marker it did not publish. The legitimate
 * calls around them are answered correctly. */
#include "zt_svc.h"

static void raw_publish(zcast_pub *p, uint32_t magic, uint32_t kind, uint64_t id, uint32_t nonce,
			uint64_t seq, size_t size)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, size, &m), 0);
	uint8_t *d = zcast_msg_data(m);
	memset(d, 0xa5, size);
	if (size >= 64) {
		uint32_t w[2] = {magic, kind};
		memcpy(d, w, 8);
		memcpy(d + 8, &id, 8);
		memcpy(d + 16, &nonce, 4);
		memcpy(d + 24, &seq, 8);
	}
	CHECK_EQ(zcast_publish(p, m), 0);
}

static zcast_pub *raw_pub(const char *topic)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 4096;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	return p;
}

/* The client's response topic, as a hostile process finds it (its name carries the nonce). */
static int find_rs(const char *topic, void *ctx)
{
	if (strncmp(topic, "/svc/forged/_rs/", 16) == 0)
		snprintf(ctx, 200, "%s", topic);
	return 0;
}

int main(void)
{
	zt_setup("svc_forged", 120);
	const char *service = "/svc/forged";
	int start[2];
	CHECK_EQ(pipe(start), 0);
	struct zt_server s = {.service = service, .took_w = -1, .start_r = start[0]};
	pid_t srv = zt_start_server(&s); /* takes nothing until the forgeries are queued */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t id = zcast_client_id(cli);
	char rs[200] = "";
	CHECK(zcast_topic_list(NULL, find_rs, rs) > 0);
	CHECK(rs[0]);
	uint32_t nonce = (uint32_t)strtoul(strrchr(rs, '_') + 1, NULL, 16);

	/* Responses: another client's id or nonce, a sequence no call has, a marker not ours, a
	 * failure for no call, a bad magic, no header. */
	zcast_pub *hostile_rs = raw_pub(rs);
	uint64_t seq;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 5, 5), &seq), 0);
	raw_publish(hostile_rs, 0x3156535a, 2, id + 1, nonce, seq, 64 + sizeof(struct add_resp));
	raw_publish(hostile_rs, 0x3156535a, 2, id, nonce ^ 1, seq, 64 + sizeof(struct add_resp));
	raw_publish(hostile_rs, 0x3156535a, 2, id, nonce, seq + 1000, 64 + sizeof(struct add_resp));
	raw_publish(hostile_rs, 0x3156535a, 3, id, nonce, 1, 64);
	raw_publish(hostile_rs, 0x3156535a, 4, id, nonce, UINT64_MAX, 64);
	raw_publish(hostile_rs, 0xdeadbeef, 2, id, nonce, seq, 64);
	raw_publish(hostile_rs, 0, 0, 0, 0, 0, 8);
	zt_put_byte(start[1]); /* the real response comes after them */
	for (int outcomes = 0; outcomes == 0;) {
		zcast_msg *resp;
		uint64_t got;
		CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
		CHECK_EQ(got, seq);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 10);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->pid, srv);
		zcast_msg_drop(resp);
		outcomes++;
	}
	CHECK_EQ(zcast_client_pending(cli), 0);
	zcast_msg *resp;
	CHECK_EQ(zcast_response_take(cli, &resp, &seq), ZCAST_EAGAIN);

	/* Requests, queued while the server waits in a WAIT call: a forged client id (ours, with
	 * the number of our next call), no header, another kind; then our call. */
	uint64_t wait_seq;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_WAIT, 1, 1), &wait_seq), 0);
	zcast_pub *hostile_rq = raw_pub("/svc/forged/_rq");
	raw_publish(hostile_rq, 0x3156535a, 1, id, nonce, wait_seq + 1, 64 + sizeof(struct add_req));
	raw_publish(hostile_rq, 0x3156535a, 1, id, nonce, 1, 16);
	raw_publish(hostile_rq, 0x3156535a, 2, zcast_pub_id(hostile_rq), 0, 1, 64);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 40, 2), &seq), 0);
	CHECK_EQ(seq, wait_seq + 1);
	zt_put_byte(start[1]);
	for (int outcomes = 0; outcomes < 2;) {
		uint64_t got;
		CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
		CHECK(got == seq || got == wait_seq);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, got == seq ? 42 : 2);
		zcast_msg_drop(resp);
		outcomes++;
	}

	CHECK_EQ(zcast_pub_close(hostile_rs), 0);
	CHECK_EQ(zcast_pub_close(hostile_rq), 0);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	close(start[0]), close(start[1]);
	printf("PASS svc_forged\n");
	return 0;
}
