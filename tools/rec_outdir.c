/* The directory a new recording goes into (zcast record -o DIR): created, or one that exists and
 * is empty. A directory holding anything is refused: the pieces of the new run would overwrite
 * the old run's first pieces one by one and leave its later ones in place, one recording made of
 * two runs. Its pieces are named after the last component of its real path, as rosbag2 names
 * them: "run1/", "run1//" and a link to run1 give run1_N.mcap, "." the current directory's name
 * (the name as written gave "run1/_N.mcap" and "._N.mcap"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rec.h"

/* 1: dir holds nothing but "." and ".."; 0: it holds something; -1: it cannot be read (errno). */
static int is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int empty = 1;
	errno = 0;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	int err = errno;
	closedir(d);
	errno = err;
	return empty && err ? -1 : empty;
}

/* The last component of dir's real path into base (n bytes, at most 180 of it). */
static int base_name(const char *dir, char *base, size_t n)
{
	char real[PATH_MAX];
	if (!realpath(dir, real)) {
		fprintf(stderr, "zcast record: --output: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	const char *last = strrchr(real, '/') + 1; /* a real path is absolute */
	snprintf(base, n, "%.180s", *last ? last : "zcast_bag"); /* "/": refused as not empty */
	return 0;
}

static int make(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	struct stat st;
	if (errno != EEXIST || stat(dir, &st) != 0) {
		fprintf(stderr, "zcast record: --output: %s: cannot create: %s\n", dir,
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "zcast record: --output: %s: cannot create: %s\n", dir,
			strerror(ENOTDIR));
		return -1;
	}
	int empty = is_empty(dir);
	if (empty < 0)
		fprintf(stderr, "zcast record: --output: %s: cannot read: %s\n", dir,
			strerror(errno));
	else if (!empty)
		fprintf(stderr,
			"zcast record: --output: %s: already exists and is not empty (a recording "
			"goes into a new or empty directory)\n",
			dir);
	return empty == 1 ? 0 : -1;
}

int rec_outdir_name(const char *dir, char *name, size_t n)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= n)
		return -1;
	memcpy(name, dir, len);
	name[len] = 0;
	return 0;
}

int rec_outdir_make(const char *dir, char *base, size_t n)
{
	return make(dir) == 0 ? base_name(dir, base, n) : -1;
}
