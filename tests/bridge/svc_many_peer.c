/* Many DDS service clients in ROS 2's wire form in one process, for the bridge's service tests
 * (svc_more_test.sh): each client is a request writer and a reply reader of its own `clientid=`
 * (rmw_cyclonedds's USER_DATA), so the bridge sees as many distinct clients (request writer
 * handles, reply readers) as a ROS 2 system of that many client nodes.
 *   svc_many_peer clients <name> <n> [want]
 *       waits until every client is matched (its writer and its reader), then client i sends one
 *       call (guid: its request writer's handle, seq 1, a = i + 1, b = 1000 a) and takes replies:
 *       its own (guid) must be exactly sum = 1001 a, once. Prints "answered K of N (bad B)";
 *       success when K is `want` (default n) and nothing is bad, within 30 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

#include "ros_add.h"

struct client {
	dds_entity_t reader, writer;
	dds_instance_handle_t self;
	int answered;
};

static int matched(const struct client *c)
{
	dds_publication_matched_status_t w;
	dds_subscription_matched_status_t r;
	return dds_get_publication_matched_status(c->writer, &w) == 0 &&
	       dds_get_subscription_matched_status(c->reader, &r) == 0 && w.current_count > 0 &&
	       r.current_count > 0;
}

static int64_t le64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return (int64_t)v;
}

/* Takes client i's replies: 1 when one was taken, 0 when none. */
static int take_one(struct client *c, int64_t a, int *bad)
{
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t si;
	if (dds_takecdr(c->reader, &sd, 1, &si, DDS_ANY_STATE) <= 0)
		return 0;
	uint8_t b[64];
	uint32_t size = ddsi_serdata_size(sd);
	if (si.valid_data && size == 28) {
		ddsi_serdata_to_ser(sd, 0, size, b);
		if ((uint64_t)le64(b + 4) == c->self) { /* ours: every client reads every reply */
			int ok = !memcmp(b, "\0\1\0\0", 4) && le64(b + 12) == 1 &&
				 le64(b + 20) == 1001 * a && !c->answered;
			*bad += !ok;
			c->answered += ok;
		}
	} else if (si.valid_data) {
		(*bad)++;
	}
	ddsi_serdata_unref(sd);
	return 1;
}

static int clients(const char *name, int n, int want)
{
	char rq[256], rr[256];
	snprintf(rq, sizeof rq, "rq%sRequest", name);
	snprintf(rr, sizeof rr, "rr%sReply", name);
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t trq = dds_create_topic(pp, &example_interfaces_srv_dds__AddTwoInts_Request__desc,
					    rq, NULL, NULL);
	dds_entity_t trr = dds_create_topic(pp, &example_interfaces_srv_dds__AddTwoInts_Response__desc,
					    rr, NULL, NULL);
	struct client *c = calloc((size_t)n, sizeof *c);
	if (pp < 0 || trq < 0 || trr < 0 || !c)
		return fprintf(stderr, "svc_many_peer: DDS setup failed\n"), 1;
	for (int i = 0; i < n; i++) {
		dds_qos_t *q = dds_create_qos();
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
		/* keep all: every reader gets every client's reply, its own must not be pushed out */
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
		char ud[64];
		snprintf(ud, sizeof ud, "clientid=5a.b.c.d.1.2.3.4.5.6.7.8.0.0.%x.%x;", i >> 8, i & 255);
		dds_qset_userdata(q, ud, strlen(ud));
		c[i].reader = dds_create_reader(pp, trr, q, NULL);
		c[i].writer = dds_create_writer(pp, trq, q, NULL);
		dds_delete_qos(q);
		if (c[i].reader < 0 || c[i].writer < 0 ||
		    dds_get_instance_handle(c[i].writer, &c[i].self) < 0)
			return fprintf(stderr, "svc_many_peer: client %d: DDS setup failed\n", i), 1;
	}
	dds_time_t end = dds_time() + DDS_SECS(30);
	for (int i = 0; i < n && dds_time() < end; i += matched(&c[i]))
		if (!matched(&c[i]))
			dds_sleepfor(DDS_MSECS(10));
	for (int i = 0; i < n; i++) {
		int64_t a = i + 1;
		example_interfaces_srv_dds__AddTwoInts_Request_ q = {c[i].self, 1, a, 1000 * a};
		if (dds_write(c[i].writer, &q) != 0)
			return fprintf(stderr, "svc_many_peer: write failed\n"), 1;
	}
	int answered = 0, bad = 0;
	while (answered < want && dds_time() < end) {
		int got = 0;
		answered = 0;
		for (int i = 0; i < n; i++) {
			while (take_one(&c[i], i + 1, &bad))
				got = 1;
			answered += c[i].answered;
		}
		if (!got)
			dds_sleepfor(DDS_MSECS(5));
	}
	printf("answered %d of %d (bad %d)\n", answered, n, bad);
	free(c);
	dds_delete(pp);
	return answered == want && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "clients")) {
		int n = atoi(argv[3]);
		return clients(argv[2], n, argc > 4 ? atoi(argv[4]) : n);
	}
	fprintf(stderr, "usage: svc_many_peer clients <name> <n> [want]\n");
	return 2;
}
