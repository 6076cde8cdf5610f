/* Typed output of the zcast tool: the message types zcast ships, found by a topic's type name and
 * hash, and printed member by member from their introspection tables. */
#ifndef ZCAST_TOOL_TYPED_PRINT_H
#define ZCAST_TOOL_TYPED_PRINT_H

#include <stdio.h>

#include <zcast/typed.h>

/* The shipped type with this name and RIHS01 hash, or NULL. */
const zcast_cdr_type *zt_known_type(const char *name, const uint8_t *hash);
/* Validates m as a message of t and prints its members ("path: value" lines). Returns 0 or the
 * error of zcast_typed_read (then nothing is printed). */
int zt_print_typed(const zcast_cdr_type *t, zcast_msg *m, FILE *out);

#endif
