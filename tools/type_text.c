/* .msg texts of shipped and run-time types (type_text.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include <zcast/types.h>

#include "type_text.h"
#include "zcast_shipped_types.h" /* every type of msg/ with its .msg text */

struct shipped_text {
	const zcast_cdr_type *type;
	const char *text;
};
static const struct shipped_text shipped[] = {ZCAST_SHIPPED_MSG_TEXTS};

static const char *shipped_text(const char *name, const uint8_t *hash)
{
	/* tables are static: one copy per file, so names and hashes are compared, not pointers */
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
		if (!strcmp(shipped[i].type->name, name) &&
		    !memcmp(shipped[i].type->hash, hash, ZCAST_TYPE_HASH_SIZE))
			return shipped[i].text;
	return NULL;
}

/* `zcast_type_texts` is indexed as `zcast_types` (tools/msggen/emit_lib.py). The library is the
 * one holding the table, already loaded by zcast_types_find / zcast_types_each. */
static const char *library_text(const zcast_cdr_type *t)
{
	Dl_info in;
	if (!dladdr(t, &in) || !in.dli_fname)
		return NULL;
	void *h = dlopen(in.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return NULL;
	const zcast_cdr_type *const *types = dlsym(h, "zcast_types");
	const char *const *texts = dlsym(h, "zcast_type_texts");
	const char *found = NULL;
	for (size_t i = 0; types && texts && types[i] && texts[i] && !found; i++)
		if (types[i] == t)
			found = texts[i];
	dlclose(h); /* drops our reference only: the type library stays loaded */
	return found;
}

const char *type_text_of(const zcast_cdr_type *t)
{
	const char *text = shipped_text(t->name, t->hash);
	return text ? text : library_text(t);
}

const char *type_text_find(const char *name, const uint8_t *hash)
{
	const char *text = shipped_text(name, hash);
	const zcast_cdr_type *t;
	if (text || zcast_types_find(name, hash, &t) != 0)
		return text;
	return library_text(t);
}
