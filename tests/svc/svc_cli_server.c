/* A typed server for tests/svc_cli_test.sh: serves example_interfaces/AddTwoInts (sum = a + b) on
 * argv[1], or std_srvs/SetBool (success = data, message "on"/"off") with argv[2] "setbool", until
 * SIGTERM. Prints "ready" once the server is open. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <example_interfaces/srv/AddTwoInts.h>
#include <std_srvs/srv/SetBool.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void add(zcast_server *srv, zcast_msg *req)
{
	example_interfaces_srv_AddTwoInts_Request_reader r;
	example_interfaces_srv_AddTwoInts_Response_writer w;
	zcast_msg *out;
	if (example_interfaces_srv_AddTwoInts_request_read(&r, req) != 0 ||
	    example_interfaces_srv_AddTwoInts_response_loan(srv, req, NULL, &out, &w) != 0)
		return;
	example_interfaces_srv_AddTwoInts_Response_w_sum_set(
	    &w, example_interfaces_srv_AddTwoInts_Request_a(&r) +
		    example_interfaces_srv_AddTwoInts_Request_b(&r));
	if (example_interfaces_srv_AddTwoInts_response_send(srv, out, &w) != 0)
		zcast_msg_drop(out);
}

static void set_bool(zcast_server *srv, zcast_msg *req)
{
	std_srvs_srv_SetBool_Request_reader r;
	std_srvs_srv_SetBool_Response_writer w;
	std_srvs_srv_SetBool_Response_bounds b = {.message = 8};
	zcast_msg *out;
	if (std_srvs_srv_SetBool_request_read(&r, req) != 0 ||
	    std_srvs_srv_SetBool_response_loan(srv, req, &b, &out, &w) != 0)
		return;
	bool on = std_srvs_srv_SetBool_Request_data(&r);
	std_srvs_srv_SetBool_Response_w_success_set(&w, on);
	std_srvs_srv_SetBool_Response_w_message_set(&w, on ? "on" : "off");
	if (std_srvs_srv_SetBool_response_send(srv, out, &w) != 0)
		zcast_msg_drop(out);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	bool sb = argc > 2 && !strcmp(argv[2], "setbool");
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	zcast_server *srv;
	std_srvs_srv_SetBool_Response_bounds b = {.message = 8};
	int e = sb ? std_srvs_srv_SetBool_server_open(argv[1], &b, NULL, &srv)
		   : example_interfaces_srv_AddTwoInts_server_open(argv[1], NULL, NULL, &srv);
	if (e != 0) {
		fprintf(stderr, "server: %s\n", zcast_last_error());
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		zcast_msg *req;
		if (zcast_server_wait(srv, 100000000) != 0 || zcast_request_take(srv, &req) != 0)
			continue;
		(sb ? set_bool : add)(srv, req);
		zcast_msg_drop(req);
	}
	return zcast_server_close(srv) == 0 ? 0 : 1;
}
