/* The QoS mapping (docs/BRIDGE.md):
 *   reliable     <-> zcast FULL      : RELIABLE, KEEP_ALL (nothing is dropped; a full queue pushes
 *                                      back to the writer)
 *   best_effort  <-> zcast DROP_OLD  : BEST_EFFORT, KEEP_LAST depth
 *   history=N    <-> zcast history N : TRANSIENT_LOCAL, the newest N kept for late joiners
 *   catchup=N    (reliable OUT)      : TRANSIENT_LOCAL, the newest N kept for a receiving bridge that
 *                                      restarts (its catch-up reader, route_in.c)
 * The same QoS on both ends of the route, plus the type hash in USER_DATA as ROS 2 announces it. */
#include <string.h>

#include "internal.h"

dds_qos_t *zb_route_qos(const zcast_bridge_route *r, uint64_t src)
{
	dds_qos_t *q = dds_create_qos();
	if (!q)
		return NULL;
	if (r->reliable) {
		/* a writer waits at most 1 s for room, then the route retries (route_out.c) */
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	} else {
		dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, (int32_t)r->depth);
	}
	uint32_t keep = r->history;
	if (r->dir == ZCAST_BRIDGE_OUT && r->reliable && r->catchup > keep)
		keep = r->catchup;
	if (keep) {
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
		/* Cyclone keeps this many samples for late joiners (on top of unacknowledged ones)
		 */
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, (int32_t)keep,
					    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED,
					    DDS_LENGTH_UNLIMITED);
	} else {
		dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	}
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	/* a bridge never reads what it writes itself (loop avoidance, docs/BRIDGE.md) */
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
	/* a writer that goes does not dispose the (one, keyless) instance: as rmw_cyclonedds, so a
	 * reader sees no "not alive" state when a bridge hands over */
	dds_qset_writer_data_lifecycle(q, false);
	char ud[256];
	zb_user_data(r->type, src, ud);
	dds_qset_userdata(q, ud, strlen(ud));
	return q;
}

dds_qos_t *zb_catchup_qos(const zcast_bridge_route *r)
{
	zcast_bridge_route tl = *r;
	tl.history = 1; /* transient local: the sending bridges' kept messages reach it */
	return zb_route_qos(&tl, 0);
}
