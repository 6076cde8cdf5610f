/* A plain Cyclone DDS reader of ros_discovery_info for graph_names_audit_test.sh: for <secs>
 * seconds it reads the ParticipantEntitiesInfo samples, then prints one line per participant that
 * announced a node, as ROS 2's graph (`ros2 node list`) would list it: "<namespace><name>".
 *   graph_names_peer <secs> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_reader.h"

#define MAX_PARTICIPANTS 16

int main(int argc, char **argv)
{
	if (argc != 2)
		return fprintf(stderr, "usage: graph_names_peer <secs>\n"), 2;
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	dds_entity_t r = graph_reader(pp);
	if (r < 0)
		return fprintf(stderr, "graph_names_peer: DDS setup failed\n"), 1;
	uint8_t gid[MAX_PARTICIPANTS][16];
	char name[MAX_PARTICIPANTS][520];
	int n_seen = 0;
	for (dds_time_t end = dds_time() + DDS_SECS(atoi(argv[1])); dds_time() < end;
	     dds_sleepfor(DDS_MSECS(50))) {
		void *s[16] = {NULL};
		dds_sample_info_t si[16];
		int n = dds_take(r, s, si, 16, 16);
		for (int i = 0; i < n; i++) {
			const rmw_dds_common_msg_dds__ParticipantEntitiesInfo_ *m = s[i];
			if (!si[i].valid_data || m->node_entities_info_seq._length == 0)
				continue;
			const rmw_dds_common_msg_dds__NodeEntitiesInfo_ *node =
			    &m->node_entities_info_seq._buffer[0];
			int k = 0;
			while (k < n_seen && memcmp(gid[k], m->gid.data, 16) != 0)
				k++;
			if (k == MAX_PARTICIPANTS)
				continue;
			memcpy(gid[k], m->gid.data, 16);
			snprintf(name[k], sizeof name[k], "%s%s", node->node_namespace,
				 node->node_name);
			n_seen += k == n_seen;
		}
		if (n > 0)
			dds_return_loan(r, s, n);
	}
	for (int k = 0; k < n_seen; k++)
		printf("%s\n", name[k]);
	dds_delete(pp);
	return 0;
}
