/* Types at run time (include/zcast/types.h): type libraries found on $ZCAST_TYPE_PATH and the
 * default directory, loaded once (dlopen) and kept for the life of the process. */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zcast/types.h>

#include "os_internal.h"

#ifndef ZCAST_TYPES_DIR
#define ZCAST_TYPES_DIR "/usr/local/lib/zcast/types"
#endif

struct type_lib {
	const zcast_cdr_type *const *types;
	const zcast_service_type *const *services; /* NULL: the library has none */
	char *path;
};

static pthread_mutex_t types_lock = PTHREAD_MUTEX_INITIALIZER;
static struct type_lib *libs; /* in search order */
static size_t n_libs;
static char search_path[4096];
static int scanned;

static void load_lib(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const zcast_cdr_type *const *types = h ? dlsym(h, "zcast_types") : NULL;
	struct type_lib *grown = types ? realloc(libs, (n_libs + 1) * sizeof *libs) : NULL;
	char *copy = grown ? strdup(path) : NULL;
	if (grown)
		libs = grown;
	if (!copy) {
		if (h && !types)
			fprintf(stderr, "zcast: %s exports no zcast_types: not a type library\n",
				path);
		return; /* h stays open: closing code that may run constructors is not worth it */
	}
	libs[n_libs++] = (struct type_lib){types, dlsym(h, "zcast_services"), copy};
}

/* Every *.so in dir, in name order (the same order on every run). */
static void scan_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		char path[4096];
		if (len > 3 && !strcmp(names[i]->d_name + len - 3, ".so") &&
		    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < (int)sizeof path)
			load_lib(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* Loads the libraries once; called with types_lock held. */
static void scan(void)
{
	if (scanned)
		return;
	scanned = 1;
	const char *env = getenv("ZCAST_TYPE_PATH");
	snprintf(search_path, sizeof search_path, "%s%s%s", env && *env ? env : "",
		 env && *env ? ":" : "", ZCAST_TYPES_DIR);
	char *copy = strdup(search_path), *save = NULL;
	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
		scan_dir(d);
	free(copy);
}

const char *zcast_types_path(void)
{
	pthread_mutex_lock(&types_lock);
	scan();
	pthread_mutex_unlock(&types_lock);
	return search_path;
}

/* Nonzero when `name` is `full` or its short form pkg/Name (full: pkg<kind>Name, kind "/msg/"). */
static int name_is(const char *full, const char *name, const char *kind)
{
	if (!strcmp(full, name))
		return 1;
	const char *slash = strchr(name, '/');
	if (!slash || strchr(slash + 1, '/'))
		return 0;
	size_t pkg = (size_t)(slash - name);
	return !strncmp(full, name, pkg) && !strncmp(full + pkg, kind, 5) &&
	       !strcmp(full + pkg + 5, slash + 1);
}

int zcast_type_name_is(const char *full, const char *name)
{
	return name_is(full, name, "/msg/");
}

int zcast_service_name_is(const char *full, const char *name)
{
	return name_is(full, name, "/srv/");
}

/* The first library type named `name`, or NULL; *lib its library. */
static const zcast_cdr_type *first_named(const char *name, const struct type_lib **lib)
{
	for (size_t i = 0; i < n_libs; i++)
		for (const zcast_cdr_type *const *t = libs[i].types; *t; t++)
			if (zcast_type_name_is((*t)->name, name)) {
				*lib = &libs[i];
				return *t;
			}
	return NULL;
}

/* ZCAST_ETYPE: the library's `what` of this name has another hash than the one `what` has. */
static int other_version(const char *what, const char *name, const uint8_t *want,
			 const uint8_t *have, const char *path)
{
	const char *whose = strcmp(what, "type") ? "the service" : "the topic";
	char w[ZCAST_TYPE_HASH_STR_SIZE], h[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(want, w);
	zcast_type_hash_str(have, h);
	return zc_err(ZCAST_ETYPE, "%s %s: %s has %s, %s has %s (another version)", what, name,
		      whose, w, path, h);
}

int zcast_types_find(const char *name, const uint8_t *hash, const zcast_cdr_type **out)
{
	if (!name || !out)
		return zc_err(ZCAST_EINVAL, "zcast_types_find: NULL argument");
	pthread_mutex_lock(&types_lock);
	scan();
	const struct type_lib *lib = NULL;
	const zcast_cdr_type *t = first_named(name, &lib);
	pthread_mutex_unlock(&types_lock);
	if (!t)
		return zc_err(ZCAST_ENOENT, "type %s: in no type library on %s", name, search_path);
	if (hash && memcmp(hash, t->hash, ZCAST_TYPE_HASH_SIZE))
		return other_version("type", t->name, hash, t->hash, lib->path);
	*out = t;
	return 0;
}

int zcast_types_each(int (*fn)(const zcast_cdr_type *t, const char *library, void *arg), void *arg)
{
	pthread_mutex_lock(&types_lock);
	scan();
	size_t n = n_libs;
	pthread_mutex_unlock(&types_lock); /* entries below n never change */
	for (size_t i = 0; i < n; i++)
		for (const zcast_cdr_type *const *t = libs[i].types; *t; t++) {
			const struct type_lib *first = NULL;
			pthread_mutex_lock(&types_lock);
			first_named((*t)->name, &first);
			pthread_mutex_unlock(&types_lock);
			int r = first == &libs[i] ? fn(*t, libs[i].path, arg) : 0;
			if (r)
				return r;
		}
	return 0;
}

/* The first library service named `name` ("pkg/srv/Name" or "pkg/Name"), or NULL. */
static const zcast_service_type *first_service(const char *name, const struct type_lib **lib)
{
	for (size_t i = 0; i < n_libs; i++)
		for (const zcast_service_type *const *s = libs[i].services; s && *s; s++)
			if (zcast_service_name_is((*s)->name, name)) {
				*lib = &libs[i];
				return *s;
			}
	return NULL;
}

int zcast_services_find(const char *name, const uint8_t *hash, const zcast_service_type **out)
{
	if (!name || !out)
		return zc_err(ZCAST_EINVAL, "zcast_services_find: NULL argument");
	pthread_mutex_lock(&types_lock);
	scan();
	const struct type_lib *lib = NULL;
	const zcast_service_type *s = first_service(name, &lib);
	pthread_mutex_unlock(&types_lock);
	if (!s)
		return zc_err(ZCAST_ENOENT, "service type %s: in no type library on %s", name,
			      search_path);
	if (hash && memcmp(hash, s->hash, ZCAST_TYPE_HASH_SIZE))
		return other_version("service type", s->name, hash, s->hash, lib->path);
	*out = s;
	return 0;
}
