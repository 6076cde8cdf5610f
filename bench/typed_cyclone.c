/* The "standard copy" of the typed benchmark: Cyclone DDS's serializer on Cyclone's C type of
 * sensor_msgs/Image (its own translation unit: Cyclone's generated type has our generated type's
 * name). */
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_cdrstream.h>

#include "sensor_msgs/msg/Image.h"
#include "typed_cyclone.h"

size_t zbt_cyc_serialize(const zbt_image *img, void *out, size_t cap)
{
	sensor_msgs_msg_Image m;
	memset(&m, 0, sizeof m);
	m.header.stamp.sec = img->sec;
	m.header.stamp.nanosec = img->nanosec;
	m.header.frame_id = (char *)img->frame_id;
	m.height = img->height, m.width = img->width, m.step = img->step;
	m.encoding = (char *)img->encoding;
	m.data._buffer = (uint8_t *)img->data;
	m.data._length = m.data._maximum = img->len;
	dds_ostreamLE_t os;
	dds_ostreamLE_init(&os, 0, 1);
	dds_stream_writeLE(&os, (const char *)&m, sensor_msgs_msg_Image_desc.m_ops);
	size_t n = os.x.m_index;
	if (n + 4 <= cap) { /* header + stream: the serialized message copied into the loan */
		uint8_t *o = out;
		o[0] = 0, o[1] = 1, o[2] = 0, o[3] = 0;
		memcpy(o + 4, os.x.m_buffer, n);
	}
	dds_ostreamLE_fini(&os);
	return n + 4;
}

int zbt_cyc_deserialize(const void *msg, size_t size, uint64_t *sink, int64_t *stamp)
{
	if (size < 4)
		return -1;
	char *copy = malloc(size - 4); /* normalize works in place: never on shared memory */
	memcpy(copy, (const char *)msg + 4, size - 4);
	uint32_t off = 0;
	if (!dds_stream_normalize_data(copy, &off, (uint32_t)(size - 4), false, 1,
				       sensor_msgs_msg_Image_desc.m_ops)) {
		free(copy);
		return -1;
	}
	sensor_msgs_msg_Image m;
	memset(&m, 0, sizeof m);
	dds_istream_t is;
	dds_istream_init(&is, (uint32_t)(size - 4), copy, 1);
	dds_stream_read(&is, (void *)&m, sensor_msgs_msg_Image_desc.m_ops);
	*stamp = (int64_t)m.header.stamp.sec * 1000000000 + m.header.stamp.nanosec;
	*sink += m.data._length ? m.data._buffer[m.data._length - 1] : 0;
	dds_istream_fini(&is);
	dds_stream_free_sample(&m, sensor_msgs_msg_Image_desc.m_ops);
	free(copy);
	return 0;
}
