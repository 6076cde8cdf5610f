/* Two DDS service clients in ROS 2's wire form in one process (svc_reply_test.sh), calling a
 * zcast_to_dds bridge: X, whose reply reader is missing at first, and Y, a complete client.
 *   svc_reply_peer <name> <k> <n> reader|leave|stay [want]
 *       X (a request writer of clientid X, no reply reader) sends k calls (seq 1..k, a = i,
 *       b = 1000 i) without waiting; then Y (request writer and reply reader, clientid Y) makes n
 *       calls one after the other, each waiting for its reply. Then X
 *         reader: opens its reply reader (clientid X) and takes its replies: each must be exactly
 *                 sum = 1001 seq, once; `want` of them (default k) must come
 *         leave:  deletes its request writer without ever having a reader (the bridge holds
 *                 replies nobody can take)
 *         stay:   keeps its writer, with no reader, until SIGTERM
 *       Prints "Y answered N of n" and "X answered K" (reader), "X left" or "X stays" (then
 *       "ready" for the script). Exit 0 when Y's n calls and X's `want` are answered, nothing bad,
 *       each within 30 s: no timing is measured, the 30 s only end a failed run. */
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

struct ends {
	dds_entity_t pp, trq, trr;
};

static dds_qos_t *client_qos(const char *clientid)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	char ud[96];
	snprintf(ud, sizeof ud, "clientid=%s;", clientid);
	dds_qset_userdata(q, ud, strlen(ud));
	return q;
}

static dds_entity_t endpoint(struct ends *e, const char *clientid, int writer)
{
	dds_qos_t *q = client_qos(clientid);
	dds_entity_t x = writer ? dds_create_writer(e->pp, e->trq, q, NULL)
				: dds_create_reader(e->pp, e->trr, q, NULL);
	dds_delete_qos(q);
	if (x < 0) {
		fprintf(stderr, "svc_reply_peer: DDS endpoint: %s\n", dds_strretcode(x));
		exit(1);
	}
	return x;
}

/* One reply from reader r: 1 when it is one of guid's (its seq in *seq, *ok when it is exactly
 * sum = 1001 seq), 0 when none was there, 2 when it was another client's. */
static int take_reply(dds_entity_t r, dds_instance_handle_t guid, int64_t *seq, int *ok)
{
	uint8_t b[28];
	int64_t size = svc_take_bytes(r, b, sizeof b);
	if (size < 0)
		return 0;
	if (size != 28 || (uint64_t)svc_le64(b + 4) != guid)
		return 2;
	*seq = svc_le64(b + 12);
	*ok = !memcmp(b, "\0\1\0\0", 4) && svc_le64(b + 20) == 1001 * *seq;
	return 1;
}

static int wait_pub(dds_entity_t w, dds_time_t end)
{
	dds_publication_matched_status_t st;
	while (dds_get_publication_matched_status(w, &st) == 0 && !st.current_count)
		if (dds_time() > end)
			return -1;
		else
			dds_sleepfor(DDS_MSECS(10));
	return 0;
}

static void send_call(dds_entity_t w, dds_instance_handle_t guid, int64_t i)
{
	example_interfaces_srv_dds__AddTwoInts_Request_ q = {guid, i, i, 1000 * i};
	if (dds_write(w, &q) != 0) {
		fprintf(stderr, "svc_reply_peer: write failed\n");
		exit(1);
	}
}

/* Y's n calls, one after the other: how many were answered rightly. */
static int y_calls(struct ends *e, int n, int *bad)
{
	dds_entity_t r = endpoint(e, "5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.59", 0),
		     w = endpoint(e, "5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.59", 1);
	dds_instance_handle_t guid;
	dds_get_instance_handle(w, &guid);
	dds_time_t end = dds_time() + DDS_SECS(30);
	dds_subscription_matched_status_t rs;
	while (dds_get_subscription_matched_status(r, &rs) == 0 && !rs.current_count &&
	       dds_time() < end)
		dds_sleepfor(DDS_MSECS(10));
	if (wait_pub(w, end) < 0)
		return 0;
	int answered = 0;
	for (int64_t i = 1; i <= n && dds_time() < end; i++) {
		send_call(w, guid, i);
		int got = 0;
		while (!got && dds_time() < end) {
			int64_t seq;
			int ok, t = take_reply(r, guid, &seq, &ok);
			if (t == 0)
				dds_sleepfor(DDS_MSECS(1));
			else if (t == 1 && ok && seq == i)
				got = 1;
			else if (t == 1)
				(*bad)++;
		}
		answered += got;
	}
	return answered;
}

/* X's replies, once its reader is there: how many of seq 1..k came rightly, each once. */
static int x_replies(struct ends *e, dds_instance_handle_t guid, int k, int want, int *bad)
{
	dds_entity_t r = endpoint(e, "5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.58", 0);
	char *seen = calloc((size_t)k + 1, 1);
	int got = 0;
	dds_time_t end = dds_time() + DDS_SECS(30);
	while (got < want && dds_time() < end) {
		int64_t seq;
		int ok, t = take_reply(r, guid, &seq, &ok);
		if (t == 0)
			dds_sleepfor(DDS_MSECS(2));
		else if (t == 1 && ok && seq >= 1 && seq <= k && !seen[seq])
			seen[seq] = 1, got++;
		else if (t == 1)
			(*bad)++;
	}
	dds_sleepfor(DDS_MSECS(200)); /* one more than `want` would come by now */
	int64_t seq;
	int ok, t;
	while ((t = take_reply(r, guid, &seq, &ok)) != 0)
		*bad += t == 1;
	free(seen);
	return got;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (argc < 5) {
		fprintf(stderr, "usage: svc_reply_peer <name> <k> <n> reader|leave|stay [want]\n");
		return 2;
	}
	int k = atoi(argv[2]), n = atoi(argv[3]), want = argc > 5 ? atoi(argv[5]) : k;
	const char *after = argv[4];
	char rq[256], rr[256];
	snprintf(rq, sizeof rq, "rq%sRequest", argv[1]);
	snprintf(rr, sizeof rr, "rr%sReply", argv[1]);
	struct ends e;
	e.pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	e.trq = dds_create_topic(e.pp, &example_interfaces_srv_dds__AddTwoInts_Request__desc, rq,
				 NULL, NULL);
	e.trr = dds_create_topic(e.pp, &example_interfaces_srv_dds__AddTwoInts_Response__desc, rr,
				 NULL, NULL);
	if (e.pp < 0 || e.trq < 0 || e.trr < 0)
		return fprintf(stderr, "svc_reply_peer: DDS setup failed\n"), 1;
	dds_entity_t xw = endpoint(&e, "5a.b.c.d.1.2.3.4.5.6.7.8.0.0.0.58", 1);
	dds_instance_handle_t xguid;
	dds_get_instance_handle(xw, &xguid);
	if (wait_pub(xw, dds_time() + DDS_SECS(30)) < 0)
		return fprintf(stderr, "svc_reply_peer: no server\n"), 1;
	for (int64_t i = 1; i <= k; i++)
		send_call(xw, xguid, i);
	int bad = 0, y = y_calls(&e, n, &bad);
	printf("Y answered %d of %d\n", y, n);
	fflush(stdout);
	int x_ok = 1;
	if (!strcmp(after, "reader")) {
		int x = x_replies(&e, xguid, k, want, &bad);
		printf("X answered %d\n", x);
		x_ok = x == want;
	} else if (!strcmp(after, "leave")) {
		dds_delete(xw);
		printf("X left\n");
	} else {
		printf("X stays\nready\n");
		fflush(stdout);
		while (!stop)
			dds_sleepfor(DDS_MSECS(20));
	}
	printf("bad %d\n", bad);
	dds_delete(e.pp);
	return y == n && x_ok && !bad ? 0 : 1;
}
