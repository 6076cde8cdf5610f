/* Request/response: a server adds two numbers, a client asks (docs/SERVICES.md). The request is
 * written in place in the client's pool and read in place by the server; the response likewise.
 *
 *   example_service serve N     serve /example/add until N requests are answered
 *   example_service call A B    ask once, print the sum (waits up to 5 s for a server)
 *
 * Start the server, then clients, in any order. Build: cc service.c $(pkg-config --cflags --libs zcast) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zcast/service.h>

struct add_request {
	long long a, b;
};
struct add_response {
	long long sum;
};

static int serve(int n)
{
	zcast_server *srv;
	if (zcast_server_open("/example/add", NULL, &srv) < 0)
		return fprintf(stderr, "server: %s\n", zcast_last_error()), 1;
	printf("serving /example/add\n");
	fflush(stdout);
	for (int answered = 0; answered < n;) {
		zcast_msg *req, *resp;
		if (zcast_server_wait(srv, -1) < 0 || zcast_request_take(srv, &req) < 0)
			continue; /* nothing yet, or a request that failed the checks */
		const struct add_request *q = zcast_service_data(req); /* in place, read-only */
		if (zcast_response_loan(srv, req, sizeof(struct add_response), &resp) == 0) {
			struct add_response *r = zcast_service_data(resp);
			r->sum = q->a + q->b;
			if (zcast_response_send(srv, resp) == 0)
				answered++;
			else
				zcast_msg_drop(resp);
		}
		zcast_msg_drop(req);
	}
	zcast_server_close(srv);
	return 0;
}

static int call(long long a, long long b)
{
	zcast_client *cli;
	if (zcast_client_open("/example/add", NULL, &cli) < 0)
		return fprintf(stderr, "client: %s\n", zcast_last_error()), 1;
	zcast_msg *req, *resp;
	if (zcast_request_loan(cli, sizeof(struct add_request), &req) < 0)
		return fprintf(stderr, "client: %s\n", zcast_last_error()), 1;
	struct add_request *q = zcast_service_data(req); /* written in place */
	q->a = a;
	q->b = b;
	int r = zcast_client_call(cli, req, 5000000000ll, &resp); /* a first server may come late */
	if (r < 0) { /* the request is consumed either way */
		fprintf(stderr, "call: %s\n", zcast_last_error());
		zcast_client_close(cli);
		return 1;
	}
	printf("%lld + %lld = %lld\n", a, b, ((const struct add_response *)zcast_service_data(resp))->sum);
	zcast_msg_drop(resp);
	zcast_client_close(cli);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(atoi(argv[2]));
	if (argc == 4 && strcmp(argv[1], "call") == 0)
		return call(atoll(argv[2]), atoll(argv[3]));
	fprintf(stderr, "usage: %s serve N | call A B\n", argv[0]);
	return 2;
}
