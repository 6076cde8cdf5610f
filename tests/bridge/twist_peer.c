/* A plain Cyclone DDS reader or writer of geometry_msgs/msg/Twist (C types made by idlc from
 * twist.idl) for the bridge's run-time types test.
 *   twist_peer sub <rt/topic> <count> [timeout s]
 *       prints "ready", the USER_DATA its matched writer announces, then "linear.x angular.z" of
 *       each sample; exit 0 once count samples arrived
 *   twist_peer pub <rt/topic> <readers> <count> <linear.x> <USER_DATA>
 *       waits for that many readers, writes count samples announcing USER_DATA ("" for none) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "twist.h"

/* Prints the USER_DATA of the first matched writer (the bridge announces "typehash=RIHS01_..;"). */
static void print_writer_user_data(dds_entity_t r)
{
	dds_instance_handle_t h;
	if (dds_get_matched_publications(r, &h, 1) < 1)
		return;
	dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(r, h);
	void *ud = NULL;
	size_t n = 0;
	if (ep && dds_qget_userdata(ep->qos, &ud, &n) && ud)
		printf("user_data %.*s\n", (int)n, (const char *)ud);
	dds_free(ud);
	if (ep)
		dds_builtintopic_free_endpoint(ep);
	fflush(stdout);
}

/* A reliable, keep-all reader or writer on topic `name`, announcing user_data if not NULL. */
static dds_entity_t endpoint(int writer, const char *name, const char *user_data)
{
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t tp = dds_create_topic(pp, &geometry_msgs_msg_dds__Twist__desc, name, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	if (user_data && *user_data)
		dds_qset_userdata(q, user_data, strlen(user_data));
	dds_entity_t e =
	    writer ? dds_create_writer(pp, tp, q, NULL) : dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (pp < 0 || tp < 0 || e < 0) {
		fprintf(stderr, "twist_peer: DDS setup failed\n");
		exit(1);
	}
	return e;
}

static int pub(const char *name, uint32_t readers, int count, double x, const char *user_data)
{
	dds_entity_t w = endpoint(1, name, user_data);
	dds_publication_matched_status_t st = {0};
	while (st.current_count < readers) {
		dds_get_publication_matched_status(w, &st);
		dds_sleepfor(DDS_MSECS(10));
	}
	for (int i = 0; i < count; i++) {
		geometry_msgs_msg_dds__Twist_ m = {.linear = {.x = x}};
		if (dds_write(w, &m) < 0)
			return fprintf(stderr, "twist_peer: write failed\n"), 1;
	}
	dds_wait_for_acks(w, DDS_SECS(10));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 7 && strcmp(argv[1], "pub") == 0)
		return pub(argv[2], (uint32_t)atoi(argv[3]), atoi(argv[4]), atof(argv[5]), argv[6]);
	if (argc < 4 || strcmp(argv[1], "sub") != 0)
		return fprintf(stderr, "usage: twist_peer sub <rt/topic> <count> [timeout s]\n"
				       "       twist_peer pub <rt/topic> <readers> <count> "
				       "<linear.x> <USER_DATA>\n"), 2;
	int count = atoi(argv[3]);
	dds_time_t end = dds_time() + DDS_SECS(argc > 4 ? atoi(argv[4]) : 20);
	dds_entity_t r = endpoint(0, argv[2], NULL);
	printf("ready\n");
	fflush(stdout);
	int got = 0, shown = 0;
	while (got < count && dds_time() < end) {
		if (!shown) {
			dds_subscription_matched_status_t st;
			dds_get_subscription_matched_status(r, &st);
			if (st.current_count > 0)
				print_writer_user_data(r), shown = 1;
		}
		void *buf[1] = {NULL};
		dds_sample_info_t si;
		if (dds_take(r, buf, &si, 1, 1) == 1 && si.valid_data) {
			const geometry_msgs_msg_dds__Twist_ *m = buf[0];
			printf("%g %g\n", m->linear.x, m->angular.z);
			fflush(stdout);
			got++;
		}
		if (buf[0])
			dds_return_loan(r, buf, 1);
		else
			dds_sleepfor(DDS_MSECS(5));
	}
	dds_delete(dds_get_participant(r));
	return got == count ? 0 : 1;
}
