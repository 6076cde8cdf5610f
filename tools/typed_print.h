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
/* The same for a typed payload of n bytes at p (a service request or response, say). */
int zt_print_payload(const zcast_cdr_type *t, const uint8_t *p, size_t n, FILE *out,
		     struct zt_print_opts *o);

/* The same as JSON members: "type":"pkg/msg/Name","value":{member: value, ...} (every value;
 * strings as UTF-8, NaN and infinities as null). Returns 0 or the error of zcast_typed_read (then
 * nothing is printed). */
int zt_print_typed_json(const zcast_cdr_type *t, zcast_msg *m, FILE *out);

/* The values of an array or sequence member f (n of them, the first at offset o of r) as a JSON
 * array. */
void zt_json_values(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_field *f, uint32_t o,
		    uint32_t n);

/* The reader slot of stamp.sec of t's std_msgs/Header member (one named "header" first, else the
 * first Header at the top), or -1 when t has none (zcast delay). */
long zt_stamp_slot(const zcast_cdr_type *t);
/* That stamp of m (a message of t) in nanoseconds; 0 or the error of zcast_typed_read. */
int zt_read_stamp(const zcast_cdr_type *t, long slot, zcast_msg *m, int64_t *ns);

/* CSV (zcast echo --csv, RFC 4180): one column per member path ("header.stamp.sec"; a single nested
 * message is expanded, an array or sequence is one cell holding its values as a JSON array, or
 * "<sequence, length: N>" with no_arr when longer than ZT_NO_ARR_MAX). */
void zt_csv_header(const zcast_cdr_type *t, FILE *out);
/* One row of m's members, in zt_csv_header's order; returns 0 or the error of zcast_typed_read
 * (then nothing is printed). */
int zt_print_typed_csv(const zcast_cdr_type *t, zcast_msg *m, FILE *out, bool no_arr);

#endif
