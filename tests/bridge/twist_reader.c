/* A plain Cyclone DDS reader of geometry_msgs/msg/Twist (C types made by idlc from twist.idl) for
 * the bridge's run-time types test: prints the type hash its matched writer announces in USER_DATA,
 * then "linear.x angular.z" of each sample.
 *   twist_reader <rt/topic> <count> [timeout s]   (exit 0 once count samples arrived) */
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

int main(int argc, char **argv)
{
	if (argc < 3)
		return fprintf(stderr, "usage: twist_reader <rt/topic> <count> [timeout s]\n"), 2;
	int count = atoi(argv[2]);
	dds_time_t end = dds_time() + DDS_SECS(argc > 3 ? atoi(argv[3]) : 20);
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t tp =
	    dds_create_topic(pp, &geometry_msgs_msg_dds__Twist__desc, argv[1], NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t r = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (pp < 0 || tp < 0 || r < 0)
		return fprintf(stderr, "twist_reader: DDS setup failed\n"), 1;
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
	dds_delete(pp);
	return got == count ? 0 : 1;
}
