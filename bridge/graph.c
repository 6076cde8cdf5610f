/* The bridge as a node of the ROS 2 graph, as rmw_cyclonedds announces one (docs/BRIDGE.md, "A node
 * in the ROS 2 graph"): its participant's USER_DATA is "enclave=/;", and it publishes on
 * "ros_discovery_info" (reliable, transient local, keep last 1) one rmw_dds_common/msg/
 * ParticipantEntitiesInfo: the participant's GID and one node, "/<node name>", with the GIDs of
 * every reader and writer of its routes (a GID is the entity's 16-byte DDS GUID). It is written
 * again whenever a route opens an endpoint. The sample is plain CDR written here:
 *   Gid gid (char[16]); NodeEntitiesInfo[] node_entities_info_seq
 *   NodeEntitiesInfo: string<=256 node_namespace; string<=256 node_name;
 *                     Gid[] reader_gid_seq; Gid[] writer_gid_seq */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

#define ZB_GRAPH_TYPE "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"

int zb_graph_open(struct zcast_bridge *b)
{
	struct ddsi_sertype *st = zb_sertype_new(ZB_GRAPH_TYPE);
	if (!st)
		return -1;
	dds_entity_t tp =
	    dds_create_topic_sertype(b->participant, "ros_discovery_info", &st, NULL, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	if (tp < 0 || !q) {
		dds_delete_qos(q);
		return -1;
	}
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, 1, DDS_LENGTH_UNLIMITED,
				    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
	dds_qset_writer_data_lifecycle(q, false);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	b->graph_sertype = st;
	b->graph_writer = dds_create_writer(b->participant, tp, q, NULL);
	dds_delete_qos(q);
	return b->graph_writer < 0 ? -1 : 0;
}

struct buf {
	uint8_t *d;
	size_t n, cap;
};

static int grow(struct buf *b, size_t k)
{
	if (b->n + k <= b->cap)
		return 0;
	size_t cap = (b->n + k) * 2;
	uint8_t *d = realloc(b->d, cap);
	if (!d)
		return -1;
	b->d = d, b->cap = cap;
	return 0;
}

static void u32(struct buf *b, uint32_t v) /* aligned to 4 from the CDR origin (offset 4) */
{
	while ((b->n - 4) % 4)
		b->d[b->n++] = 0;
	memcpy(b->d + b->n, &v, 4); /* little endian hosts only, as the rest of zcast */
	b->n += 4;
}

static void str(struct buf *b, const char *s)
{
	u32(b, (uint32_t)strlen(s) + 1);
	memcpy(b->d + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}

static void gid(struct buf *b, dds_entity_t e)
{
	dds_guid_t g;
	memset(&g, 0, sizeof g);
	dds_get_guid(e, &g);
	memcpy(b->d + b->n, g.v, 16);
	b->n += 16;
}

/* The route endpoints, readers (want_readers) or writers: count, then their GIDs. Each handle is
 * loaded once and the count is of the GIDs written: routes open while this runs (pool workers), and
 * a count from one pass with the GIDs of another disagreed (a malformed sample). */
static uint32_t gids(struct buf *b, struct zcast_bridge *br, int want_readers)
{
	u32(b, 0); /* the count, filled in below */
	size_t at = b->n - 4;
	uint32_t n = 0;
	for (size_t i = 0; i < br->n_routes; i++) {
		const struct zb_route_rt *rt = &br->routes[i];
		int reader = rt->cfg->dir == ZCAST_BRIDGE_IN;
		dds_entity_t ep = __atomic_load_n(&rt->endpoint, __ATOMIC_ACQUIRE);
		dds_entity_t cu = __atomic_load_n(&rt->catchup, __ATOMIC_ACQUIRE);
		if (reader == want_readers && ep > 0)
			gid(b, ep), n++;
		if (want_readers && reader && cu > 0)
			gid(b, cu), n++;
	}
	memcpy(b->d + at, &n, 4); /* little endian, as u32 */
	return n;
}

/* A bridge of topic routes that holds none of their claims stands by for all of them: it is the
 * node "<node>_standby", so an active bridge and its standby on one host are two nodes of two
 * names, and the standby takes the active one's name when it takes a topic over (zb_claim_granted).
 */
static int standby(struct zcast_bridge *br)
{
	for (size_t i = 0; i < br->n_routes; i++)
		if (atomic_load(&br->routes[i].claim->granted))
			return 0;
	return br->n_routes > 0;
}

/* Each grant wrote a whole sample (every GID of every route) before: a standby taking over 200
 * topics wrote 200, serialized under graph_mu, and its granted threads lingered past the
 * takeover (bridge_standby_nomarker counted 30 threads where 25 is the bound, under ASan). Only
 * the first grant changes the node's name; route opens write their own samples. */
void zb_graph_role_changed(struct zcast_bridge *br)
{
	if (br->graph_writer <= 0)
		return;
	pthread_mutex_lock(&br->graph_mu);
	int changed = br->graph_standby != standby(br);
	pthread_mutex_unlock(&br->graph_mu);
	if (changed)
		zb_graph_publish(br);
}

void zb_graph_publish(struct zcast_bridge *br)
{
	if (br->graph_writer <= 0 || atomic_load(&br->stop))
		return;
	pthread_mutex_lock(&br->graph_mu);
	struct buf b = {NULL, 0, 0};
	if (grow(&b, 64 + strlen(br->cfg->node_name) + 32 * 2 * ZB_MAX_ROUTES) == 0) {
		memcpy(b.d, "\0\1\0\0", 4); /* XCDR1, little endian */
		b.n = 4;
		gid(&b, br->participant);
		u32(&b, 1); /* one node */
		str(&b, "/");
		char name[80];
		br->graph_standby = standby(br);
		snprintf(name, sizeof name, "%s%s", br->cfg->node_name,
			 br->graph_standby ? "_standby" : "");
		str(&b, name);
		uint32_t n = gids(&b, br, 1);
		n += gids(&b, br, 0);
		/* a node is announced with its first endpoint: a sample before it would name a
		 * bridge that holds no claim yet a standby */
		struct ddsi_serdata *sd = n ? zb_serdata_new(br->graph_sertype, b.d, b.n) : NULL;
		if (sd) {
			sd->statusinfo = 0;
			sd->timestamp.v = dds_time();
			if (dds_writecdr(br->graph_writer, sd) < 0)
				fprintf(stderr, "zcast-bridge: ros_discovery_info not written\n");
		}
	}
	free(b.d);
	pthread_mutex_unlock(&br->graph_mu);
}
