/* zcast peers of the bridge's room and refusal tests (svc_room_test.sh),
 * example_interfaces/srv/AddTwoInts:
 *   svc_room_peer hold <name>
 *       a client that makes 8 calls (one at a time, each answered within 30 s) and keeps all 8
 *       responses: the bridge's response slots for it (8) are then all held. It prints "held",
 *       reads a line from stdin, sends a 9th call, prints "sent", reads a line, drops the 8
 *       responses and waits for the 9th call's outcome with no timeout of its own. Prints "outcome <text>"; success when the call failed
 *       (ZCAST_ESRVGONE). A failure the bridge could not deliver and then dropped leaves it
 *       waiting for good (the script's own timeout ends it).
 *   svc_room_peer refuse <name>
 *       a server that refuses every request, as a zcast server does with one that fails its
 *       checks: a refusal (the 64-byte service header, kind 5) on the client's response topic,
 *       the request kept. Prints "refused N" after each; runs until SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <example_interfaces/srv/AddTwoInts.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static zcast_msg *request(zcast_client *cli, int64_t a)
{
	zcast_msg *m;
	if (zcast_request_loan(cli, 24, &m) != 0)
		return NULL;
	uint8_t *d = zcast_service_data(m);
	int64_t ab[2] = {a, 1000 * a};
	memset(d, 0, 8);
	d[5] = 1; /* CDR_LE */
	memcpy(d + 8, ab, sizeof ab); /* little endian host */
	return m;
}

static int hold(const char *name)
{
	zcast_client *cli;
	if (example_interfaces_srv_AddTwoInts_client_open(name, NULL, NULL, &cli) != 0)
		return fprintf(stderr, "svc_room_peer: %s\n", zcast_last_error()), 1;
	zcast_msg *held[8];
	for (int i = 0; i < 8; i++) {
		zcast_msg *m = request(cli, i + 1);
		int e = m ? zcast_client_call(cli, m, 30ll * 1000 * 1000 * 1000, &held[i]) : -1;
		if (e != 0)
			return fprintf(stderr, "svc_room_peer: call %d: %s\n", i, zcast_strerror(e)), 1;
	}
	char line[16];
	printf("held\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return fprintf(stderr, "svc_room_peer: no line on stdin\n"), 1;
	zcast_msg *m = request(cli, 9);
	if (!m || zcast_request_send(cli, m, NULL) != 0)
		return fprintf(stderr, "svc_room_peer: the 9th call: %s\n", zcast_last_error()), 1;
	printf("sent\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return fprintf(stderr, "svc_room_peer: no line on stdin\n"), 1;
	for (int i = 0; i < 8; i++)
		zcast_msg_drop(held[i]);
	zcast_msg *resp = NULL;
	uint64_t seq;
	int e;
	while ((e = zcast_response_take(cli, &resp, &seq)) == ZCAST_EAGAIN)
		zcast_client_wait(cli, -1);
	printf("outcome %s\n", zcast_strerror(e));
	zcast_msg_drop(resp);
	zcast_client_close(cli);
	return e == ZCAST_ESRVGONE ? 0 : 1;
}

/* The service header (docs/SERVICES.md "Messages"): magic, kind, client id, nonce, why, seq. */
struct hdr {
	uint32_t magic, kind;
	uint64_t client_id;
	uint32_t nonce, why;
	uint64_t seq, reserved[4];
};

static int refuse_one(const char *name, zcast_msg *req)
{
	struct hdr h;
	memcpy(&h, (const uint8_t *)zcast_service_data(req) - ZCAST_SERVICE_HEADER, sizeof h);
	char topic[256];
	snprintf(topic, sizeof topic, "%s/_rs/c%llu_%08x", name, (unsigned long long)h.client_id,
		 (unsigned)h.nonce);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = sizeof h;
	po.slot_count = 4;
	zcast_pub *pub;
	zcast_msg *m;
	if (zcast_pub_open(topic, &po, &pub) != 0)
		return -1;
	int e = zcast_loan(pub, sizeof h, &m);
	if (e == 0) {
		h.kind = 5; /* a refusal, why 0: "for an unknown reason" */
		h.why = 0;
		memcpy(zcast_msg_data(m), &h, sizeof h);
		if ((e = zcast_publish(pub, m)) != 0)
			zcast_msg_drop(m);
	}
	zcast_pub_close(pub);
	return e;
}

static int refuse(const char *name)
{
	zcast_server *srv;
	if (example_interfaces_srv_AddTwoInts_server_open(name, NULL, NULL, &srv) != 0)
		return fprintf(stderr, "svc_room_peer: %s\n", zcast_last_error()), 1;
	printf("ready\n");
	fflush(stdout);
	zcast_msg *kept[64];
	int n = 0, bad = 0;
	while (!stop) {
		zcast_msg *req;
		if (zcast_server_wait(srv, 100 * 1000 * 1000) != 0 || zcast_request_take(srv, &req))
			continue;
		if (refuse_one(name, req) != 0 || n == 64) {
			bad++;
			zcast_msg_drop(req);
			continue;
		}
		kept[n++] = req; /* never answered: the refusal is the call's outcome */
		printf("refused %d\n", n);
		fflush(stdout);
	}
	for (int i = 0; i < n; i++)
		zcast_msg_drop(kept[i]);
	zcast_server_close(srv);
	printf("bad %d\n", bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "refuse"))
		return refuse(argv[2]);
	fprintf(stderr, "usage: svc_room_peer hold|refuse <name>\n");
	return 2;
}
