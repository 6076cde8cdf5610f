/* A DDS peer writing raw service samples (the bridge's opaque type, bridge/sertype.c) for the
 * bad-input scenario of svc_test.sh: example_interfaces/srv/AddTwoInts in rmw_cyclonedds's form.
 *   svc_raw_peer badclient <name>  two each of: a request shorter than its header, one not in
 *       plain CDR (PL_CDR_LE), one from a writer announcing another type hash, one whose body is
 *       cut short; then a valid big-endian request (seq 50) and a valid little-endian one (seq 51).
 *       Exits 0 when exactly 50 and 51 are answered (sum 1001 and 3003, little endian), in 10 s.
 *   svc_raw_peer badserver <name>  answers each request three times: with an unknown seq, with a
 *       12-byte sample, then rightly (sum = a + b); until SIGTERM. Prints "ready". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void put64(uint8_t *b, uint64_t v, int be)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * (be ? 7 - i : i)));
}

static uint64_t get64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

struct raw {
	dds_entity_t pp, reader, writer, other; /* other: a writer of another type hash */
	struct ddsi_sertype *wst;
	dds_instance_handle_t self;
};

static dds_entity_t endpoint(struct raw *r, const char *topic, const char *type, int writer,
			     const char *ud)
{
	struct ddsi_sertype *st = zb_sertype_new(type);
	dds_entity_t tp = dds_create_topic_sertype(r->pp, topic, &st, NULL, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	dds_qset_userdata(q, ud, strlen(ud));
	dds_entity_t e = writer ? dds_create_writer(r->pp, tp, q, NULL)
				: dds_create_reader(r->pp, tp, q, NULL);
	dds_delete_qos(q);
	if (tp < 0 || e < 0) {
		fprintf(stderr, "svc_raw_peer: DDS setup failed\n");
		exit(1);
	}
	if (writer)
		r->wst = st;
	return e;
}

static void raw_open(struct raw *r, const char *name, int server)
{
	char rq[256], rr[256];
	snprintf(rq, sizeof rq, "rq%sRequest", name);
	snprintf(rr, sizeof rr, "rr%sReply", name);
	const char *tq = "example_interfaces::srv::dds_::AddTwoInts_Request_",
		   *tr = "example_interfaces::srv::dds_::AddTwoInts_Response_";
	const char *ud = server ? "serviceid=7;" : "clientid=7;";
	r->pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	r->reader = endpoint(r, server ? rq : rr, server ? tq : tr, 0, ud);
	if (!server)
		r->other = endpoint(r, rq, tq, 1, "clientid=8;typehash=RIHS01_"
						   "0000000000000000000000000000000000000000000000000000000000000000;");
	r->writer = endpoint(r, server ? rr : rq, server ? tr : tq, 1, ud);
	dds_get_instance_handle(r->writer, &r->self);
}

static void send_raw(struct raw *r, dds_entity_t w, const uint8_t *b, size_t n)
{
	struct ddsi_serdata *sd = zb_serdata_new(r->wst, b, n);
	if (!sd || dds_writecdr(w, sd) < 0) {
		fprintf(stderr, "svc_raw_peer: write failed\n");
		exit(1);
	}
}

/* A request: encapsulation, guid, seq, a, b (36 bytes), little or big endian. */
static size_t request(uint8_t *b, uint64_t guid, int64_t seq, int64_t a, int64_t bb, int be)
{
	memcpy(b, be ? "\0\0\0\0" : "\0\1\0\0", 4);
	put64(b + 4, guid, be);
	put64(b + 12, (uint64_t)seq, be);
	put64(b + 20, (uint64_t)a, be);
	put64(b + 28, (uint64_t)bb, be);
	return 36;
}

static int wait_matched(struct raw *r)
{
	for (int i = 0; i < 1500; i++) {
		dds_publication_matched_status_t w, o;
		dds_subscription_matched_status_t s;
		dds_get_publication_matched_status(r->writer, &w);
		dds_get_subscription_matched_status(r->reader, &s);
		o.current_count = 1;
		if (r->other)
			dds_get_publication_matched_status(r->other, &o);
		if (w.current_count && s.current_count && o.current_count)
			return 0;
		dds_sleepfor(DDS_MSECS(10));
	}
	return -1;
}

static int badclient(const char *name)
{
	struct raw r = {0};
	raw_open(&r, name, 0);
	if (wait_matched(&r) < 0)
		return fprintf(stderr, "svc_raw_peer: no server\n"), 1;
	uint8_t b[64];
	for (int k = 0; k < 2; k++) {
		request(b, r.self, 10 + k, 1, 2, 0);
		send_raw(&r, r.writer, b, 10); /* shorter than the header */
		request(b, r.self, 20 + k, 1, 2, 0);
		b[1] = 3; /* PL_CDR_LE */
		send_raw(&r, r.writer, b, 36);
		send_raw(&r, r.other, b, request(b, r.self, 30 + k, 1, 2, 0));
		send_raw(&r, r.writer, b, request(b, r.self, 40 + k, 1, 2, 0) - 12); /* cut */
	}
	send_raw(&r, r.writer, b, request(b, r.self, 50, 1, 1000, 1));
	send_raw(&r, r.writer, b, request(b, r.self, 51, 3, 3000, 0));
	int got50 = 0, got51 = 0, other = 0;
	dds_time_t end = dds_time() + DDS_SECS(10);
	while (dds_time() < end && !(got50 && got51)) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		if (dds_takecdr(r.reader, &sd, 1, &si, DDS_ANY_STATE) <= 0) {
			dds_sleepfor(DDS_MSECS(5));
			continue;
		}
		size_t n;
		const uint8_t *d = zb_serdata_bytes(sd, &n);
		int ok = si.valid_data && n == 28 && !memcmp(d, "\0\1\0\0", 4) && get64(d + 4) == r.self;
		if (ok && get64(d + 12) == 50 && get64(d + 20) == 1001)
			got50++;
		else if (ok && get64(d + 12) == 51 && get64(d + 20) == 3003)
			got51++;
		else if (si.valid_data)
			other++;
		ddsi_serdata_unref(sd);
	}
	dds_sleepfor(DDS_MSECS(200)); /* a reply to a refused request would come by now */
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t si;
	while (dds_takecdr(r.reader, &sd, 1, &si, DDS_ANY_STATE) > 0)
		other += si.valid_data, ddsi_serdata_unref(sd);
	printf("answered %d (seq 50: %d, seq 51: %d, other replies %d)\n", got50 + got51, got50,
	       got51, other);
	dds_delete(r.pp);
	return got50 == 1 && got51 == 1 && other == 0 ? 0 : 1;
}

static int badserver(const char *name)
{
	struct raw r = {0};
	raw_open(&r, name, 1);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		if (dds_takecdr(r.reader, &sd, 1, &si, DDS_ANY_STATE) <= 0) {
			dds_sleepfor(DDS_MSECS(2));
			continue;
		}
		size_t n;
		const uint8_t *d = zb_serdata_bytes(sd, &n);
		if (si.valid_data && n == 36 && !memcmp(d, "\0\1\0\0", 4)) {
			uint8_t out[28];
			memcpy(out, d, 20); /* encapsulation and header */
			put64(out + 12, get64(d + 12) + 1000000, 0);
			put64(out + 20, get64(d + 20) + get64(d + 28), 0);
			send_raw(&r, r.writer, out, 28); /* unknown seq */
			send_raw(&r, r.writer, out, 12); /* short */
			memcpy(out + 12, d + 12, 8);
			send_raw(&r, r.writer, out, 28);
		}
		ddsi_serdata_unref(sd);
	}
	dds_delete(r.pp);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc == 3 && !strcmp(argv[1], "badclient"))
		return badclient(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "badserver"))
		return badserver(argv[2]);
	fprintf(stderr, "usage: svc_raw_peer badclient|badserver <name>\n");
	return 2;
}
