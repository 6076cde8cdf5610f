/* ROS 2's DDS conventions (as rmw_cyclonedds uses them): topic "rt/<name>", type
 * "<pkg>::msg::dds_::<Type>_", and the type hash in the endpoints' USER_DATA. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int zb_dds_topic_name(const char *topic, char *out, size_t cap)
{
	/* a zcast topic starts with "/": "/chatter" -> "rt/chatter" */
	int n = snprintf(out, cap, "rt%s", topic);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

int zb_dds_type_name(const char *ros_type, char *out, size_t cap)
{
	/* "pkg/msg/Type" -> "pkg::msg::dds_::Type_" */
	const char *a = strchr(ros_type, '/');
	const char *b = a ? strchr(a + 1, '/') : NULL;
	if (!a || !b || strchr(b + 1, '/'))
		return -1;
	int n = snprintf(out, cap, "%.*s::%.*s::dds_::%s_", (int)(a - ros_type), ros_type,
			 (int)(b - a - 1), a + 1, b + 1);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

void zb_user_data(const zcast_cdr_type *t, uint64_t src, char out[256])
{
	char h[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(t->hash, h);
	int n = snprintf(out, 256, "typehash=%s;", h);
	if (src && n > 0 && n < 256)
		snprintf(out + n, 256 - (size_t)n, "zcastsrc=%016llx;", (unsigned long long)src);
}

int zb_user_data_value(const char *ud, size_t n, const char *key, const char **v, size_t *vn)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k + 1 <= n; i++) {
		if ((i == 0 || ud[i - 1] == ';') && memcmp(ud + i, key, k) == 0 && ud[i + k] == '=') {
			const char *s = ud + i + k + 1, *end = memchr(s, ';', (size_t)(ud + n - s));
			if (!end) /* every pair ends with ';' (rmw_dds_common's encoding) */
				return 0;
			*v = s, *vn = (size_t)(end - s);
			return 1;
		}
	}
	return 0;
}
