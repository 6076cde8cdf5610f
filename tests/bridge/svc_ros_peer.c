/* A plain Cyclone DDS program in ROS 2's service wire form (rmw_cyclonedds's topics, type names,
 * request header and USER_DATA ids; its C types made by idlc from ros_add.idl) for the bridge's
 * service test (svc_test.sh). Samples it receives are checked byte for byte: CDR_LE 00 01 00 00,
 * then guid, seq and the int64s, little endian, nothing more.
 *   svc_ros_peer server <name> [mute]   serves rq<name>Request: sum = a + b, the header copied
 *                                        (mute: answers nothing); prints "ready", at exit (SIGTERM)
 *                                        "served N bad M"
 *   svc_ros_peer client <name> <count>   waits for a server, sends call i (guid: its request
 *                                        writer's instance handle, seq i, a = i, b = 1000 i), 8 in
 *                                        flight, and takes replies: its own (guid) must be exactly
 *                                        sum = 1001 seq, each seq once. Prints "replies N" */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ros_add.h"
#include "svc_take.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

struct peer {
	dds_entity_t pp, reader, writer;
};

/* rq<name>Request and rr<name>Reply; a server reads requests, a client replies. */
static void peer_open(struct peer *p, const char *name, int server)
{
	char rq[256], rr[256];
	snprintf(rq, sizeof rq, "rq%sRequest", name);
	snprintf(rr, sizeof rr, "rr%sReply", name);
	p->pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t trq = dds_create_topic(p->pp, &example_interfaces_srv_dds__AddTwoInts_Request__desc,
					    rq, NULL, NULL);
	dds_entity_t trr = dds_create_topic(
	    p->pp, &example_interfaces_srv_dds__AddTwoInts_Response__desc, rr, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 10); /* ROS 2's services default */
	const char *ud = server ? "serviceid=5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.1;"
				: "clientid=5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.2;";
	dds_qset_userdata(q, ud, strlen(ud));
	p->reader = dds_create_reader(p->pp, server ? trq : trr, q, NULL);
	p->writer = dds_create_writer(p->pp, server ? trr : trq, q, NULL);
	dds_delete_qos(q);
	if (p->pp < 0 || trq < 0 || trr < 0 || p->reader < 0 || p->writer < 0) {
		fprintf(stderr, "svc_ros_peer: DDS setup failed\n");
		exit(1);
	}
}

/* The raw bytes of one sample taken from r: n int64s after the header (1), nothing (0), or a
 * sample of another size or encapsulation (-1). */
static int take_raw(dds_entity_t r, int64_t *v, int n)
{
	uint8_t b[256];
	int64_t size = svc_take_bytes(r, b, sizeof b);
	if (size < 0)
		return 0;
	if (size != 4 + 8 * n || memcmp(b, "\0\1\0\0", 4))
		return -1;
	for (int i = 0; i < n; i++)
		v[i] = svc_le64(b + 4 + 8 * i);
	return 1;
}

static int server(const char *name, int mute)
{
	struct peer p;
	peer_open(&p, name, 1);
	printf("ready\n");
	fflush(stdout);
	unsigned long served = 0, bad = 0;
	while (!stop) {
		int64_t v[4]; /* guid, seq, a, b */
		int r = take_raw(p.reader, v, 4);
		if (r == 0) {
			dds_sleepfor(DDS_MSECS(2));
			continue;
		}
		if (r < 0 || v[3] != 1000 * v[2]) {
			bad++;
			continue;
		}
		example_interfaces_srv_dds__AddTwoInts_Response_ resp = {
		    (uint64_t)v[0], v[1], v[2] + v[3]};
		if (!mute && dds_write(p.writer, &resp) == 0)
			served++;
	}
	printf("served %lu bad %lu\n", served, bad);
	dds_delete(p.pp);
	return bad ? 1 : 0;
}

static int matched(struct peer *p)
{
	dds_publication_matched_status_t w;
	dds_subscription_matched_status_t r;
	return dds_get_publication_matched_status(p->writer, &w) == 0 &&
	       dds_get_subscription_matched_status(p->reader, &r) == 0 && w.current_count > 0 &&
	       r.current_count > 0;
}

static int client(const char *name, int count)
{
	struct peer p;
	peer_open(&p, name, 0);
	dds_time_t end = dds_time() + DDS_SECS(15);
	while (!matched(&p) && dds_time() < end)
		dds_sleepfor(DDS_MSECS(10));
	dds_instance_handle_t self;
	dds_get_instance_handle(p.writer, &self);
	char *seen = calloc((size_t)count + 1, 1);
	int got = 0, bad = 0, foreign = 0, sent = 0;
	while (got < count && dds_time() < end) {
		/* 8 in flight at most: the writer keeps the last 10 (ROS 2's default) */
		for (; sent < count && sent - got < 8; sent++) {
			int64_t i = sent + 1;
			example_interfaces_srv_dds__AddTwoInts_Request_ q = {self, i, i, 1000 * i};
			if (dds_write(p.writer, &q) != 0)
				return fprintf(stderr, "svc_ros_peer: write failed\n"), 1;
		}
		int64_t v[3]; /* guid, seq, sum */
		int r = take_raw(p.reader, v, 3);
		if (r == 0)
			dds_sleepfor(DDS_MSECS(1));
		else if (r > 0 && (uint64_t)v[0] != self)
			foreign++;
		else if (r < 0 || v[1] < 1 || v[1] > count || seen[v[1]] || v[2] != 1001 * v[1])
			bad++;
		else
			seen[v[1]] = 1, got++;
	}
	printf("replies %d (bad %d, foreign %d)\n", got, bad, foreign);
	free(seen);
	dds_delete(p.pp);
	return got == count && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc >= 3 && !strcmp(argv[1], "server"))
		return server(argv[2], argc > 3 && !strcmp(argv[3], "mute"));
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: svc_ros_peer server <name> [mute] | client <name> <count>\n");
	return 2;
}
