/* Typed values from the command line: `zcast pub TOPIC TYPE VALUES` takes VALUES in YAML flow style
 * as `ros2 topic pub` does ('{data: hi}', nested maps, [arrays], 'quoted' or "quoted" strings; the
 * outer braces may be left out); members not given keep their declared defaults. */
#ifndef ZCAST_TOOL_TYPED_VALUES_H
#define ZCAST_TOOL_TYPED_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include <zcast/typed.h>

/* Parses text as a message of t and serializes it as a typed payload (4 reserved bytes, the
 * encapsulation header, the CDR stream) into *out (malloc'ed, *len bytes). Returns 0, or -1 with
 * err (errn bytes) saying what is wrong and where ("member pose.x: 'a' is not a float64"). */
int zt_values_serialize(const zcast_cdr_type *t, const char *text, uint8_t **out, size_t *len,
			char *err, size_t errn);

#endif
