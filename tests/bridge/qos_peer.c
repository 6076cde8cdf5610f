/* A plain Cyclone DDS endpoint whose QoS a bridge route cannot match, for the bridge's test of
 * incompatible QoS (qos_audit_test.sh; types by idlc from ros_image.idl):
 *   qos_peer writer <rt/topic> best_effort   a best-effort writer (a reliable reader refuses it)
 *   qos_peer reader <rt/topic> deadline      a reader asking for a 100 ms deadline (the bridge's
 *                                            writers offer none)
 * Exits 0 once Cyclone reports the bridge's endpoint incompatible (printing the policy id), 1 after
 * 20 s without. */
#include <stdio.h>
#include <string.h>

#include <dds/dds.h>

#include "ros_image.h"

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int writer = strcmp(argv[1], "writer") == 0;
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t tp =
	    dds_create_topic(pp, &sensor_msgs_msg_dds__Image__desc, argv[2], NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	if (strcmp(argv[3], "best_effort") == 0)
		dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
	else
		dds_qset_deadline(q, DDS_MSECS(100));
	dds_entity_t e =
	    writer ? dds_create_writer(pp, tp, q, NULL) : dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (e < 0)
		return 1;
	for (int i = 0; i < 400; i++) {
		uint32_t total = 0, policy = 0;
		if (writer) {
			dds_offered_incompatible_qos_status_t s;
			dds_get_offered_incompatible_qos_status(e, &s);
			total = s.total_count, policy = s.last_policy_id;
		} else {
			dds_requested_incompatible_qos_status_t s;
			dds_get_requested_incompatible_qos_status(e, &s);
			total = s.total_count, policy = s.last_policy_id;
		}
		if (total) {
			printf("incompatible %u\n", policy);
			fflush(stdout);
			dds_sleepfor(
			    DDS_SECS(1)); /* the bridge sees it too before this endpoint goes */
			dds_delete(pp);
			return 0;
		}
		dds_sleepfor(DDS_MSECS(50));
	}
	dds_delete(pp);
	return 1;
}
