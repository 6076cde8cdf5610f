/* The Cyclone DDS side of the conformance test, in its own translation unit (Cyclone's generated C
 * types have the same names as ours). Re-encodes a CDR body with Cyclone's own code: validate
 * (normalize), deserialize into Cyclone's C type, serialize as little-endian XCDR1. */
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_cdrstream.h>

#include "conformance.h"

#define CYC_TYPES(X)                                                                               \
	X(builtin_interfaces_msg_Time)                                                             \
	X(std_msgs_msg_Empty) X(std_msgs_msg_String) X(std_msgs_msg_Header)                        \
	    X(sensor_msgs_msg_Image) X(sensor_msgs_msg_PointField) X(sensor_msgs_msg_PointCloud2)  \
		X(sensor_msgs_msg_Imu) X(geometry_msgs_msg_Vector3)                                \
		    X(geometry_msgs_msg_Quaternion) X(zcast_test_msg_Corner)                       \
			X(zcast_test_msg_Nested) X(zcast_test_msg_Fixed)

#define CYC_DECLARE(n) extern const dds_topic_descriptor_t n##_desc;
CYC_TYPES(CYC_DECLARE)
#define CYC_ENTRY(n) &n##_desc,
static const dds_topic_descriptor_t *const descs[] = {CYC_TYPES(CYC_ENTRY)};

int cyc_reencode(unsigned type, const uint8_t *cdr, uint32_t size, uint8_t **out,
		 uint32_t *out_size)
{
	if (type >= sizeof descs / sizeof descs[0])
		return -3;
	const dds_topic_descriptor_t *d = descs[type];
	char *copy = malloc(size ? size : 1);
	memcpy(copy, cdr, size);
	uint32_t off = 0;
	if (!dds_stream_normalize_data(copy, &off, size, false, 1, d->m_ops) || off != size) {
		free(copy);
		return -1; /* Cyclone refuses the encoding */
	}
	void *sample = calloc(1, d->m_size);
	dds_istream_t is;
	dds_istream_init(&is, size, copy, 1);
	dds_stream_read(&is, sample, d->m_ops);
	dds_ostreamLE_t os;
	dds_ostreamLE_init(&os, 0, 1);
	dds_stream_writeLE(&os, sample, d->m_ops);
	*out_size = os.x.m_index;
	*out = malloc(os.x.m_index ? os.x.m_index : 1);
	memcpy(*out, os.x.m_buffer, os.x.m_index);
	dds_ostreamLE_fini(&os);
	dds_istream_fini(&is);
	dds_stream_free_sample(sample, d->m_ops);
	free(sample);
	free(copy);
	return 0;
}
