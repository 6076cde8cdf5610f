/* Interface between the typed benchmark and its Cyclone DDS translation unit. */
#ifndef ZBT_CYCLONE_H
#define ZBT_CYCLONE_H
#include <stddef.h>
#include <stdint.h>

typedef struct zbt_image {
	int32_t sec;
	uint32_t nanosec;
	const char *frame_id, *encoding;
	uint32_t height, width, step, len;
	const uint8_t *data;
} zbt_image;

/* Serializes with Cyclone (into its own buffer) and copies header + CDR into out (if it fits).
 * Returns the message size. */
size_t zbt_cyc_serialize(const zbt_image *img, void *out, size_t cap);
/* Validates and deserializes a message (header + CDR) into Cyclone's C type, then frees it.
 * *stamp: the header stamp in ns. */
int zbt_cyc_deserialize(const void *msg, size_t size, uint64_t *sink, int64_t *stamp);
#endif
