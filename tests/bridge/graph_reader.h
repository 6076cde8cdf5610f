/* A reader of ros_discovery_info as ROS 2's graph cache has one (reliable, transient local, keep
 * all; the types made by idlc from ros_graph.idl), for the graph test peers. A negative entity if
 * the participant or the reader could not be made. */
#ifndef ZT_GRAPH_READER_H
#define ZT_GRAPH_READER_H

#include <dds/dds.h>

#include "ros_graph.h"

static dds_entity_t graph_reader(dds_entity_t pp)
{
	dds_entity_t tp =
	    dds_create_topic(pp, &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc,
			     "ros_discovery_info", NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t r = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	return pp < 0 ? pp : tp < 0 ? tp : r;
}

#endif
