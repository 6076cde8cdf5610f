/* Typed output of the zcast tool: the message types zcast ships and those of type libraries, found
 * by a topic's type name and hash, and printed member by member from their introspection tables. */
#ifndef ZCAST_TOOL_TYPED_PRINT_H
#define ZCAST_TOOL_TYPED_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include <zcast/typed.h>

/* The type named `name` ("pkg/Name" or "pkg/msg/Name"): a shipped one, else one of a type library.
 * Returns 0 or ZCAST_ENOENT (zcast_last_error names the search path). */
int zt_type_named(const char *name, const zcast_cdr_type **out);
/* The type with this name and RIHS01 hash: a shipped one, else one of a type library
 * (include/zcast/types.h). Returns 0, ZCAST_ENOENT (unknown) or ZCAST_ETYPE (known by name with
 * another hash: refused); why (why_size bytes) says why not 0, naming both hashes for ZCAST_ETYPE. */
int zt_find_type(const char *name, const uint8_t *hash, const zcast_cdr_type **out, char *why,
		 size_t why_size);
/* What zt_print_typed prints (zcast echo --field, --no-arr). */
struct zt_print_opts {
	const char *field; /* NULL: every member; else only this one ("orientation.x",
			    * "fields[1].name"; a message member: all of its members) */
	bool no_arr;	   /* arrays longer than ZT_NO_ARR_MAX values as "<array, length: N>" */
	unsigned printed;  /* out: members printed by the last call */
};
#define ZT_NO_ARR_MAX 3
/* Whether path names a member of t ("orientation.x", "fields[1].name"; any index). */
bool zt_field_valid(const zcast_cdr_type *t, const char *path);
/* Validates m as a message of t and prints its members ("path: value" lines) as o says (NULL:
 * all). Returns 0 or the error of zcast_typed_read (then nothing is printed). */
int zt_print_typed(const zcast_cdr_type *t, zcast_msg *m, FILE *out, struct zt_print_opts *o);

/* The same as JSON members: "type":"pkg/msg/Name","value":{member: value, ...} (every value;
 * strings as UTF-8, NaN and infinities as null). Returns 0 or the error of zcast_typed_read (then
 * nothing is printed). */
int zt_print_typed_json(const zcast_cdr_type *t, zcast_msg *m, FILE *out);

/* The same as CSV (zcast echo --csv, typed_csv.c): with header, first a row of member paths; then
 * one row of values. Fixed arrays one column per element (unless no_arr shortens them), sequences
 * one cell. Returns 0 or the error of zcast_typed_read (then nothing is printed). */
int zt_print_typed_csv(const zcast_cdr_type *t, zcast_msg *m, FILE *out, bool header, bool no_arr);

#endif
