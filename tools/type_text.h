/* The .msg text of a type the tool knows, as rosbag2 stores it (the type's .msg, then each
 * dependency's after a line of '=' and `MSG: pkg/Name`): the shipped types' texts compiled in, a
 * run-time type's from its type library's `zcast_type_texts` (include/zcast/types.h). */
#ifndef ZCAST_TOOL_TYPE_TEXT_H
#define ZCAST_TOOL_TYPE_TEXT_H

#include <zcast/cdr.h>

/* The text of table t (a shipped type, or one of a loaded type library), or NULL: a library made
 * before zcast_type_texts existed has none. */
const char *type_text_of(const zcast_cdr_type *t);
/* The text of the type named `name` with RIHS01 `hash`: shipped, else from the first type library
 * on $ZCAST_TYPE_PATH defining it with that hash. NULL when none does. */
const char *type_text_find(const char *name, const uint8_t *hash);

#endif
