/* What the DDS service peers in ROS 2's form share (svc_ros_peer.c, svc_reply_peer.c): taking one
 * sample's bytes, and reading a little-endian int64 in them. */
#ifndef SVC_TAKE_H
#define SVC_TAKE_H

#include <stdint.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

/* One sample taken from reader r, its first bytes (at most cap) copied into b: its size, or -1
 * when nothing was there or the sample carried no data. */
static inline int64_t svc_take_bytes(dds_entity_t r, uint8_t *b, uint32_t cap)
{
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t si;
	if (dds_takecdr(r, &sd, 1, &si, DDS_ANY_STATE) <= 0)
		return -1;
	uint32_t size = ddsi_serdata_size(sd);
	if (si.valid_data)
		ddsi_serdata_to_ser(sd, 0, size < cap ? size : cap, b);
	ddsi_serdata_unref(sd);
	return si.valid_data ? (int64_t)size : -1;
}

static inline int64_t svc_le64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return (int64_t)v;
}

#endif
