/* A plain Cyclone DDS reader of ros_discovery_info (its C types made by idlc from ros_graph.idl) for
 * the bridge's graph test: waits for the ParticipantEntitiesInfo of the node <name> and checks it
 * as ROS 2's graph cache reads it: the node "/<name>" with <readers> reader and <writers> writer
 * GIDs, each the GUID of a discovered reader / writer of a "rt/..." topic; its participant GID the
 * GUID of a discovered participant whose USER_DATA is "enclave=/;". With <topic>, one of the
 * writers must be on that DDS topic (remapping).
 *   graph_peer <name> <readers> <writers> [<topic>]   (exit 0: all as expected; 20 s at most) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "graph_reader.h"

static dds_entity_t pp;

/* The builtin-topic sample of the entity with this GUID (NULL if not discovered); caller frees. */
static void *find(dds_entity_t builtin, const uint8_t gid[16], dds_entity_t *rd)
{
	if (!*rd)
		*rd = dds_create_reader(pp, builtin, NULL, NULL);
	void *s[64] = {NULL};
	dds_sample_info_t si[64];
	int n = dds_read(*rd, s, si, 64, 64);
	void *hit = NULL;
	for (int i = 0; i < n && !hit; i++) {
		const dds_guid_t *key = builtin == DDS_BUILTIN_TOPIC_DCPSPARTICIPANT
					    ? &((dds_builtintopic_participant_t *)s[i])->key
					    : &((dds_builtintopic_endpoint_t *)s[i])->key;
		if (si[i].valid_data && memcmp(key->v, gid, 16) == 0) {
			if (builtin == DDS_BUILTIN_TOPIC_DCPSPARTICIPANT) {
				void *ud;
				size_t sz;
				const dds_builtintopic_participant_t *p = s[i];
				hit = dds_qget_userdata(p->qos, &ud, &sz) && sz >= 10 &&
					      memcmp(ud, "enclave=/;", 10) == 0
					  ? (void *)1
					  : NULL;
				dds_free(ud);
			} else {
				hit = strdup(((dds_builtintopic_endpoint_t *)s[i])->topic_name);
			}
		}
	}
	if (n > 0)
		dds_return_loan(*rd, s, n);
	return hit;
}

/* 1 if every GID is a discovered endpoint on an "rt/" topic (and one on `topic`, if given). */
static int endpoints_ok(dds_entity_t builtin, dds_entity_t *rd,
			const dds_sequence_rmw_dds_common_msg_dds__Gid_ *seq, const char *topic,
			int *found_topic)
{
	for (uint32_t i = 0; i < seq->_length; i++) {
		char *t = find(builtin, seq->_buffer[i].data, rd);
		if (!t || strncmp(t, "rt/", 3) != 0) {
			free(t);
			return 0;
		}
		*found_topic |= topic && strcmp(t, topic) == 0;
		free(t);
	}
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: graph_peer <name> <readers> <writers> [<topic>]\n"), 2;
	const char *name = argv[1], *topic = argc > 4 ? argv[4] : NULL;
	uint32_t want_r = (uint32_t)atoi(argv[2]), want_w = (uint32_t)atoi(argv[3]);
	const char *dom = getenv("ZB_DDS_DOMAIN");
	pp = dds_create_participant(dom ? (dds_domainid_t)atoi(dom) : DDS_DOMAIN_DEFAULT, NULL,
				    NULL);
	dds_entity_t r = graph_reader(pp);
	if (r < 0)
		return fprintf(stderr, "graph_peer: DDS setup failed\n"), 1;
	dds_entity_t rp = 0, rpub = 0, rsub = 0;
	char last[256] = "no ParticipantEntitiesInfo of the node";
	for (dds_time_t end = dds_time() + DDS_SECS(20); dds_time() < end;
	     dds_sleepfor(DDS_MSECS(50))) {
		void *s[16] = {NULL};
		dds_sample_info_t si[16];
		int n = dds_read(r, s, si, 16, 16);
		int ok = 0;
		for (int i = 0; i < n && !ok; i++) {
			const rmw_dds_common_msg_dds__ParticipantEntitiesInfo_ *m = s[i];
			if (!si[i].valid_data || m->node_entities_info_seq._length != 1)
				continue;
			const rmw_dds_common_msg_dds__NodeEntitiesInfo_ *node =
			    &m->node_entities_info_seq._buffer[0];
			if (strcmp(node->node_name, name) != 0)
				continue;
			int found_topic = 0;
			snprintf(last, sizeof last, "node %s%s: %u readers, %u writers",
				 node->node_namespace, node->node_name,
				 node->reader_gid_seq._length, node->writer_gid_seq._length);
			ok = strcmp(node->node_namespace, "/") == 0 &&
			     node->reader_gid_seq._length == want_r &&
			     node->writer_gid_seq._length == want_w &&
			     find(DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, m->gid.data, &rp) &&
			     endpoints_ok(DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, &rsub,
					  &node->reader_gid_seq, NULL, &found_topic) &&
			     endpoints_ok(DDS_BUILTIN_TOPIC_DCPSPUBLICATION, &rpub,
					  &node->writer_gid_seq, topic, &found_topic) &&
			     (!topic || found_topic);
		}
		if (n > 0)
			dds_return_loan(r, s, n);
		if (ok) {
			printf("ok: %s\n", last);
			dds_delete(pp);
			return 0;
		}
	}
	printf("FAIL: %s (want %u readers, %u writers%s%s)\n", last, want_r, want_w,
	       topic ? ", a writer on " : "", topic ? topic : "");
	dds_delete(pp);
	return 1;
}
