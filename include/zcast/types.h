/* zcast types at run time: message types a program was not built with (docs/TYPED.md, "Types at
 * run time").
 *
 * A type library is a shared object made by zcast_add_type_library() (CMake) from a package's
 * .msg files: it exports `zcast_types`, a NULL-terminated array of `const zcast_cdr_type *` (the
 * generated introspection tables, with their nested types and RIHS01 hashes) and, when it was made
 * from .srv files too, `zcast_services`, a NULL-terminated array of `const zcast_service_type *`
 * (include/zcast/cdr.h). Libraries are found
 * in the directories of $ZCAST_TYPE_PATH (colon-separated, searched in order), then in the
 * default directory under the install prefix (<libdir>/zcast/types). The first library that
 * defines a name wins. Tools put the types they were built with first, so shipped types always
 * stay available.
 */
#ifndef ZCAST_TYPES_H
#define ZCAST_TYPES_H

#include "cdr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The run-time type named `name` ("pkg/msg/Name" or "pkg/Name"). With `hash` (RIHS01, 32 bytes) the
 * type must have that hash: a library type of the same name with another hash is ZCAST_ETYPE, and
 * zcast_last_error names both hashes and the library. Returns 0, ZCAST_ENOENT (no library defines
 * it; zcast_last_error names the path searched) or ZCAST_ETYPE. Loaded libraries stay loaded. */
ZCAST_API int zcast_types_find(const char *name, const uint8_t *hash, const zcast_cdr_type **out);

/* The run-time service type named `name` ("pkg/srv/Name" or "pkg/Name"; a library's
 * `zcast_services`), checked against `hash` (the service's RIHS01) as zcast_types_find does. */
ZCAST_API int zcast_services_find(const char *name, const uint8_t *hash,
				  const zcast_service_type **out);

/* Calls fn for every run-time type (in search order, each name once) with the library's path; stops
 * at and returns fn's first nonzero result. */
ZCAST_API int zcast_types_each(int (*fn)(const zcast_cdr_type *t, const char *library, void *arg),
			       void *arg);

/* Nonzero when `name` ("pkg/Name" or "pkg/msg/Name") names the type whose full name is `full`. */
ZCAST_API int zcast_type_name_is(const char *full, const char *name);

/* Nonzero when `name` ("pkg/Name" or "pkg/srv/Name") names the service type whose full name is
 * `full`. */
ZCAST_API int zcast_service_name_is(const char *full, const char *name);

/* The directories searched, colon-separated (for messages and `zcast interface`). */
ZCAST_API const char *zcast_types_path(void);

#ifdef __cplusplus
}
#endif
#endif
