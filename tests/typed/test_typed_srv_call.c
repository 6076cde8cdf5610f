/* Typed services over the runtime: a typed client and server of std_srvs/SetBool and of
 * zcast_test/Config exchange requests and responses loaned at bounds (defaults in place, compacted
 * before send, read back through the views); a client and a server of different service types are
 * refused where they meet, whichever comes first, with both RIHS01 hashes in the error. */
#include "../harness.h"

#include <std_srvs/srv/SetBool.h>
#include <std_srvs/srv/Trigger.h>
#include <zcast_test/srv/Config.h>

#define SEC 1000000000LL

static bool str_is(zcast_cdr_str s, const char *want)
{
	return s.len == strlen(want) && !memcmp(s.data, want, s.len);
}

/* The server takes one request (waiting for it). */
static zcast_msg *take_request(zcast_server *srv)
{
	zcast_msg *req = NULL;
	CHECK_EQ(zcast_server_wait(srv, 10 * SEC), 0);
	CHECK_EQ(zcast_request_take(srv, &req), 0);
	return req;
}

static zcast_msg *take_response(zcast_client *cli, uint64_t want_seq)
{
	zcast_msg *resp = NULL;
	uint64_t seq = 0;
	CHECK_EQ(zcast_client_wait(cli, 10 * SEC), 0);
	CHECK_EQ(zcast_response_take(cli, &resp, &seq), 0);
	CHECK_EQ(seq, want_seq);
	return resp;
}

static void test_set_bool(void)
{
	std_srvs_srv_SetBool_Response_bounds rb = {.message = 64};
	zcast_server *srv;
	zcast_client *cli;
	CHECK_EQ(std_srvs_srv_SetBool_server_open("/tsrv/enable", &rb, NULL, &srv), 0);
	CHECK_EQ(std_srvs_srv_SetBool_client_open("/tsrv/enable", NULL, NULL, &cli), 0);

	zcast_msg *m;
	std_srvs_srv_SetBool_Request_writer w;
	CHECK_EQ(std_srvs_srv_SetBool_request_loan(cli, NULL, &m, &w), 0);
	std_srvs_srv_SetBool_Request_w_data_set(&w, true);
	uint64_t seq = 0;
	CHECK_EQ(std_srvs_srv_SetBool_request_send(cli, m, &w, &seq), 0);

	zcast_msg *req = take_request(srv);
	std_srvs_srv_SetBool_Request_reader rq;
	CHECK_EQ(std_srvs_srv_SetBool_request_read(&rq, req), 0);
	CHECK(std_srvs_srv_SetBool_Request_data(&rq));
	zcast_msg *out;
	std_srvs_srv_SetBool_Response_writer rw;
	/* a per-loan bound above the server's response slots does not fit */
	std_srvs_srv_SetBool_Response_bounds huge = {.message = 1 << 20};
	CHECK(std_srvs_srv_SetBool_response_loan(srv, req, &huge, &out, &rw) < 0);
	CHECK_EQ(std_srvs_srv_SetBool_response_loan(srv, req, &rb, &out, &rw), 0);
	std_srvs_srv_SetBool_Response_w_success_set(&rw, true);
	CHECK_EQ(std_srvs_srv_SetBool_Response_w_message_set(&rw, "enabled"), 0);
	CHECK_EQ(std_srvs_srv_SetBool_response_send(srv, out, &rw), 0);
	zcast_msg_drop(req);

	zcast_msg *resp = take_response(cli, seq);
	std_srvs_srv_SetBool_Response_reader rr;
	CHECK_EQ(std_srvs_srv_SetBool_response_read(&rr, resp), 0);
	CHECK(std_srvs_srv_SetBool_Response_success(&rr));
	CHECK(str_is(std_srvs_srv_SetBool_Response_message(&rr), "enabled"));
	/* compacted: the response is sent at its exact size, not at its bound */
	CHECK_EQ(zcast_service_size(resp), ZCAST_TYPED_PREFIX + 4 + 4 + 8);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
}

/* Declared defaults reach the other side through real loans (nothing written but the level). */
static void test_config_defaults(void)
{
	zcast_test_srv_Config_Request_bounds qb = {.name = 16, .gains = 8};
	zcast_test_srv_Config_Response_bounds rb = {.reply = 16, .codes = 4};
	zcast_server *srv;
	zcast_client *cli;
	CHECK_EQ(zcast_test_srv_Config_client_open("/tsrv/config", &qb, NULL, &cli), 0);
	CHECK_EQ(zcast_test_srv_Config_server_open("/tsrv/config", &rb, NULL, &srv), 0);
	zcast_msg *m;
	zcast_test_srv_Config_Request_writer w;
	CHECK_EQ(zcast_test_srv_Config_request_loan(cli, NULL, &m, &w), ZCAST_EINVAL); /* bounds */
	CHECK_EQ(zcast_test_srv_Config_request_loan(cli, &qb, &m, &w), 0);
	zcast_test_srv_Config_Request_w_level_set(&w, 5);
	uint64_t seq;
	CHECK_EQ(zcast_typed_service_finish(&zcast_test_srv_Config_Request_TYPE, m, &w.w), 0);
	CHECK(w.w.base == NULL);
	CHECK_EQ(zcast_test_srv_Config_request_send(cli, m, &w, &seq), 0); /* compacts once */

	zcast_msg *req = take_request(srv);
	zcast_test_srv_Config_Request_reader rq;
	CHECK_EQ(zcast_test_srv_Config_request_read(&rq, req), 0);
	CHECK(str_is(zcast_test_srv_Config_Request_name(&rq), "node"));
	CHECK_EQ(zcast_test_srv_Config_Request_level(&rq), 5);
	uint32_t n;
	const double *g = zcast_test_srv_Config_Request_gains(&rq, &n);
	CHECK(n == 2 && g[0] == 1.0 && g[1] == 2.5);
	zcast_msg *out;
	zcast_test_srv_Config_Response_writer rw;
	CHECK_EQ(zcast_test_srv_Config_response_loan(srv, req, &rb, &out, &rw), 0);
	CHECK_EQ(zcast_test_srv_Config_response_send(srv, out, &rw), 0);
	zcast_msg_drop(req);

	zcast_msg *resp = take_response(cli, seq);
	zcast_test_srv_Config_Response_reader rr;
	CHECK_EQ(zcast_test_srv_Config_response_read(&rr, resp), 0);
	CHECK(zcast_test_srv_Config_Response_ok(&rr));
	const uint8_t *c = zcast_test_srv_Config_Response_codes(&rr, &n);
	CHECK(n == 2 && c[0] == 7 && c[1] == 8);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
}

static void check_both_hashes(void)
{
	const char *e = zcast_last_error();
	CHECK(strstr(e, std_srvs_srv_SetBool_TYPE_HASH_STR) != NULL);
	CHECK(strstr(e, std_srvs_srv_Trigger_TYPE_HASH_STR) != NULL);
}

static void test_type_mismatch(void)
{
	std_srvs_srv_SetBool_Response_bounds sb = {.message = 8};
	std_srvs_srv_Trigger_Response_bounds tb = {.message = 8};
	zcast_server *srv;
	zcast_client *cli;
	/* server first, a client of another service type */
	CHECK_EQ(std_srvs_srv_SetBool_server_open("/tsrv/mix1", &sb, NULL, &srv), 0);
	CHECK_EQ(std_srvs_srv_Trigger_client_open("/tsrv/mix1", NULL, NULL, &cli), ZCAST_ETYPE);
	check_both_hashes();
	CHECK_EQ(std_srvs_srv_SetBool_client_open("/tsrv/mix1", NULL, NULL, &cli), 0);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	/* client first, a server of another service type */
	CHECK_EQ(std_srvs_srv_SetBool_client_open("/tsrv/mix2", NULL, NULL, &cli), 0);
	CHECK_EQ(std_srvs_srv_Trigger_server_open("/tsrv/mix2", &tb, NULL, &srv), ZCAST_ETYPE);
	check_both_hashes();
	CHECK_EQ(zcast_client_close(cli), 0);
}

int main(void)
{
	zt_setup("typed_srv_call", 60);
	RUN(test_set_bool);
	RUN(test_config_defaults);
	RUN(test_type_mismatch);
	return 0;
}
