/* Members of a service for tests/svc_tools/svc_tools_test.sh (zcast list, top and doctor on
 * services), untyped unless a type is given:
 *   svc_tools_peer server NAME answer|hold [TYPE HASH_BYTE]: a server that answers every request
 *     with an empty response, or never takes one (they stay pending); TYPE with a made-up hash
 *     (32 times HASH_BYTE, hex) for a type that differs from the installed definition;
 *   svc_tools_peer client NAME loop|N: a client that calls in a loop, or sends N requests and
 *     then waits.
 * Prints "ready" when open (and, for a client sending N, when they are sent); runs until SIGTERM
 * or SIGKILL. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zcast/service.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "svc_tools_peer: %s: %s\n", what, zcast_last_error());
	return 1;
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

static int server(const char *name, bool answer, const char *type, const char *hash_byte)
{
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	if (type) {
		o.type_name = type;
		memset(o.type_hash, (int)strtol(hash_byte, NULL, 16), sizeof o.type_hash);
	}
	zcast_server *srv;
	if (zcast_server_open(name, &o, &srv) != 0)
		return fail("server open");
	ready();
	while (!stop) {
		zcast_msg *req, *resp;
		if (!answer) {
			usleep(50000);
			continue;
		}
		if (zcast_server_wait(srv, 100000000) != 0 || zcast_request_take(srv, &req) != 0)
			continue;
		if (zcast_response_loan(srv, req, 0, &resp) == 0 && zcast_response_send(srv, resp) != 0)
			zcast_msg_drop(resp);
		zcast_msg_drop(req);
	}
	return zcast_server_close(srv) == 0 ? 0 : 1;
}

static int client(const char *name, const char *how)
{
	zcast_client *cli;
	if (zcast_client_open(name, NULL, &cli) != 0)
		return fail("client open");
	bool loop = !strcmp(how, "loop");
	long n = loop ? 0 : strtol(how, NULL, 10);
	for (long i = 0; i < n; i++) {
		zcast_msg *req;
		uint64_t seq;
		if (zcast_request_loan(cli, 0, &req) != 0)
			return fail("request loan");
		if (zcast_request_send(cli, req, &seq) != 0)
			return fail("request send");
	}
	ready();
	while (!stop) {
		zcast_msg *req, *resp;
		if (!loop || zcast_request_loan(cli, 0, &req) != 0) {
			usleep(50000);
			continue;
		}
		if (zcast_client_call(cli, req, 1000000000, &resp) == 0)
			zcast_msg_drop(resp);
		usleep(2000);
	}
	return zcast_client_close(cli) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc >= 4 && !strcmp(argv[1], "server"))
		return server(argv[2], !strcmp(argv[3], "answer"), argc > 5 ? argv[4] : NULL,
			      argc > 5 ? argv[5] : NULL);
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3]);
	fprintf(stderr, "usage: svc_tools_peer server NAME answer|hold [TYPE HASH_BYTE] | client "
			"NAME loop|N\n");
	return 2;
}
