/* The zcast side of the bridge's service test (svc_test.sh): example_interfaces/srv/AddTwoInts,
 * requests and responses checked byte for byte (4 reserved bytes, CDR_LE 00 01 00 00, the int64s).
 *   svc_zpeer serve <name> [hold N | batch]     answers sum = a + b until SIGTERM; prints "ready",
 *                                               and at exit "served N bad B held H noloan L"
 *                                               (hold: the first N requests are never answered;
 *                                               batch: answered together once 200 ms pass without
 *                                               a request; noloan: response loans that failed)
 *   svc_zpeer call <name> <count> <in flight> [gone] [timeout s]
 *       call i sends a = i, b = 1000 i; each response must be exactly sum = 1001 i. Prints "sent N"
 *       once all N requests are in the server's queue, then "ok N" (every call answered) or, with
 *       "gone", "gone N" (every call ended with ZCAST_ESRVGONE). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <example_interfaces/srv/AddTwoInts.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static const uint8_t cdr_le[4] = {0, 1, 0, 0};

/* The payload of a typed message of n int64s: reserved, CDR_LE, the values (little endian). */
static int exact(const uint8_t *d, size_t size, const int64_t *v, int n)
{
	if (!d || size != 8 + 8 * (size_t)n || memcmp(d, "\0\0\0\0", 4) || memcmp(d + 4, cdr_le, 4))
		return 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			if (d[8 + 8 * i + k] != (uint8_t)((uint64_t)v[i] >> (8 * k)))
				return 0;
	return 1;
}

static void put(uint8_t *d, const int64_t *v, int n)
{
	memset(d, 0, 4);
	memcpy(d + 4, cdr_le, 4);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			d[8 + 8 * i + k] = (uint8_t)((uint64_t)v[i] >> (8 * k));
}

/* One request's response, loaned (0) or not (-1: the loan failed). */
static int respond(zcast_server *srv, zcast_msg *req, zcast_msg **resp)
{
	const uint8_t *d = zcast_service_data(req);
	int64_t ab[2], sum;
	memcpy(ab, d + 8, sizeof ab);
	sum = ab[0] + ab[1];
	if (zcast_response_loan(srv, req, 16, resp) != 0)
		return -1;
	put(zcast_service_data(*resp), &sum, 1);
	return 0;
}

/* hold: that many first requests are kept unanswered until exit. batch: responses are loaned as
 * requests come and all sent once no request came for 200 ms (a server that works on many
 * requests at once). */
static int serve(const char *name, int hold, int batch)
{
	zcast_server *srv;
	if (example_interfaces_srv_AddTwoInts_server_open(name, NULL, NULL, &srv) != 0)
		return fprintf(stderr, "svc_zpeer: %s\n", zcast_last_error()), 1;
	printf("ready\n");
	fflush(stdout);
	unsigned long served = 0, bad = 0, held = 0, noloan = 0;
	zcast_msg *kept[64], *loans[64];
	int n_kept = 0, n_loans = 0;
	while (!stop) {
		zcast_msg *req, *resp;
		int idle = zcast_server_wait(srv, (batch ? 200 : 100) * 1000 * 1000) != 0;
		for (int i = 0; idle && i < n_loans; i++)
			if (zcast_response_send(srv, loans[i]) == 0)
				served++;
			else
				zcast_msg_drop(loans[i]);
		n_loans = idle ? 0 : n_loans;
		if (idle || zcast_request_take(srv, &req))
			continue;
		const uint8_t *d = zcast_service_data(req);
		int64_t ab[2];
		memcpy(ab, d + 8, sizeof ab);
		if (!exact(d, zcast_service_size(req), ab, 2) || ab[1] != 1000 * ab[0]) {
			bad++; /* not the bytes the caller wrote: never answered */
			zcast_msg_drop(req);
			continue;
		}
		if (held < (unsigned long)hold && n_kept < 64) {
			kept[n_kept++] = req, held++;
			continue;
		}
		if (respond(srv, req, &resp) < 0)
			noloan++;
		else if (batch && n_loans < 64)
			loans[n_loans++] = resp;
		else if (zcast_response_send(srv, resp) == 0)
			served++;
		else
			zcast_msg_drop(resp);
		zcast_msg_drop(req);
	}
	for (int i = 0; i < n_loans; i++)
		zcast_msg_drop(loans[i]);
	for (int i = 0; i < n_kept; i++)
		zcast_msg_drop(kept[i]);
	printf("served %lu bad %lu held %lu noloan %lu\n", served, bad, held, noloan);
	zcast_server_close(srv);
	return bad ? 1 : 0;
}

struct calls {
	zcast_client *cli;
	uint64_t *seq_of; /* call i's zcast sequence number */
	int64_t *sum_of;
	int count, sent, ok, gone, bad;
};

static void send_one(struct calls *c)
{
	zcast_msg *m;
	int64_t i = c->sent + 1, ab[2] = {i, 1000 * i};
	if (zcast_request_loan(c->cli, 24, &m) != 0)
		return;
	put(zcast_service_data(m), ab, 2);
	if (zcast_request_send_wait(c->cli, m, 1000 * 1000 * 1000, &c->seq_of[c->sent]) != 0) {
		zcast_msg_drop(m);
		return;
	}
	c->sum_of[c->sent++] = 1001 * i;
}

static void outcome(struct calls *c, int e, zcast_msg *resp, uint64_t seq)
{
	int k = 0;
	while (k < c->sent && c->seq_of[k] != seq)
		k++;
	if (e == ZCAST_ESRVGONE) {
		c->gone += k < c->sent, c->bad += k == c->sent;
		return;
	}
	if (k < c->sent && exact(zcast_service_data(resp), zcast_service_size(resp), &c->sum_of[k], 1))
		c->ok++;
	else
		c->bad++;
	if (k < c->sent)
		c->seq_of[k] = 0; /* answered once */
	zcast_msg_drop(resp);
}

static int call(const char *name, int count, int inflight, int want_gone, int timeout_s)
{
	struct calls c = {NULL, calloc((size_t)count, 8), calloc((size_t)count, 8), count, 0, 0, 0, 0};
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = (uint32_t)inflight;
	if (example_interfaces_srv_AddTwoInts_client_open(name, NULL, &o, &c.cli) != 0)
		return fprintf(stderr, "svc_zpeer: %s\n", zcast_last_error()), 1;
	time_t end = time(NULL) + timeout_s;
	int said = 0;
	while (c.ok + c.gone + c.bad < count && time(NULL) < end) {
		while (c.sent < count && zcast_client_pending(c.cli) < inflight && time(NULL) < end)
			send_one(&c);
		if (c.sent == count && !said++)
			printf("sent %d\n", count), fflush(stdout);
		zcast_client_wait(c.cli, 100 * 1000 * 1000);
		zcast_msg *resp = NULL;
		uint64_t seq;
		int e;
		while ((e = zcast_response_take(c.cli, &resp, &seq)) == 0 || e == ZCAST_ESRVGONE)
			outcome(&c, e, resp, seq);
	}
	printf("%s %d (ok %d, gone %d, bad %d, sent %d of %d)\n", want_gone ? "gone" : "ok",
	       want_gone ? c.gone : c.ok, c.ok, c.gone, c.bad, c.sent, count);
	zcast_client_close(c.cli);
	free(c.seq_of);
	free(c.sum_of);
	return (want_gone ? c.gone : c.ok) == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc >= 3 && !strcmp(argv[1], "serve")) {
		int batch = argc > 3 && !strcmp(argv[3], "batch");
		return serve(argv[2], argc > 4 && !strcmp(argv[3], "hold") ? atoi(argv[4]) : 0, batch);
	}
	if (argc >= 5 && !strcmp(argv[1], "call")) {
		int gone = argc > 5 && !strcmp(argv[5], "gone");
		int t = argc > 6 ? atoi(argv[6]) : 15;
		return call(argv[2], atoi(argv[3]), atoi(argv[4]), gone, t);
	}
	fprintf(stderr, "usage: svc_zpeer serve <name> [hold N | batch] | call <name> <count> <in flight> [gone] "
			"[timeout s]\n");
	return 2;
}
