/* The pieces of a recording: DIR/<name>_<N>.mcap, numbered from 0 as rosbag2 names them, and
 * DIR/metadata.yaml, rosbag2's index of them (files, times, topics and counts). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec.h"

static void yaml_time(FILE *f, const char *indent, const char *key, const char *unit, uint64_t v)
{
	fprintf(f, "%s%s:\n%s  %s: %" PRIu64 "\n", indent, key, indent, unit, v);
}

int rec_index_write(const char *dir, const struct rec_piece *pieces, int npieces,
		    const struct rec_topic_count *topics, int ntopics)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof path, "%s/metadata.yaml", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	uint64_t start = 0, end = 0, total = 0;
	for (int i = 0; i < npieces; i++) {
		const struct rec_piece *p = &pieces[i];
		if (p->messages && (!total || p->start < start))
			start = p->start;
		if (p->messages && p->end > end)
			end = p->end;
		total += p->messages;
	}
	fprintf(f, "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n");
	yaml_time(f, "  ", "duration", "nanoseconds", total ? end - start : 0);
	yaml_time(f, "  ", "starting_time", "nanoseconds_since_epoch", start);
	/* An empty list is [] ("key:" with no items is null to a YAML reader, not a list). */
	fprintf(f, "  message_count: %" PRIu64 "\n  topics_with_message_count:%s\n", total,
		ntopics ? "" : " []");
	for (int i = 0; i < ntopics; i++)
		fprintf(f,
			"    - topic_metadata:\n        name: %s\n        type: %s\n"
			"        serialization_format: %s\n        offered_qos_profiles: \"\"\n"
			"      message_count: %" PRIu64 "\n",
			topics[i].topic, topics[i].type[0] ? topics[i].type : "zcast/raw",
			topics[i].encoding, topics[i].messages);
	fprintf(f, "  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:%s\n",
		npieces ? "" : " []");
	for (int i = 0; i < npieces; i++)
		fprintf(f, "    - %s\n", pieces[i].name);
	fprintf(f, "  files:%s\n", npieces ? "" : " []");
	for (int i = 0; i < npieces; i++) {
		const struct rec_piece *p = &pieces[i];
		fprintf(f, "    - path: %s\n", p->name);
		yaml_time(f, "      ", "starting_time", "nanoseconds_since_epoch", p->start);
		yaml_time(f, "      ", "duration", "nanoseconds", p->messages ? p->end - p->start : 0);
		fprintf(f, "      message_count: %" PRIu64 "\n", p->messages);
	}
	bool ok = !ferror(f);
	ok &= fclose(f) == 0;
	if (ok && rename(tmp, path) == 0)
		return 0;
	unlink(tmp); /* a full disk, say: no half-written file left beside the last good one */
	return -1;
}

/* The number after the last '_' of a file name (rosbag2's piece number), or -1. */
static long piece_number(const char *name)
{
	const char *u = strrchr(name, '_');
	if (!u)
		return -1;
	char *end;
	long n = strtol(u + 1, &end, 10);
	return end != u + 1 && !strcmp(end, ".mcap") ? n : -1;
}

static int by_number(const void *a, const void *b)
{
	const struct rec_piece *x = a, *y = b;
	long nx = piece_number(x->name), ny = piece_number(y->name);
	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x->name, y->name);
}

int rec_pieces(const char *cmd, const char *path, struct rec_piece **out)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "zcast %s: %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	struct rec_piece p, *v = NULL;
	int n = 0, cap = 0;
	if (!S_ISDIR(st.st_mode)) {
		memset(&p, 0, sizeof p);
		snprintf(p.path, sizeof p.path, "%s", path);
		const char *slash = strrchr(path, '/');
		snprintf(p.name, sizeof p.name, "%s", slash ? slash + 1 : path);
		*out = malloc(sizeof p);
		if (!*out)
			return -1;
		**out = p;
		return 1;
	}
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".mcap"))
			continue;
		memset(&p, 0, sizeof p);
		snprintf(p.name, sizeof p.name, "%s", e->d_name);
		snprintf(p.path, sizeof p.path, "%s/%s", path, e->d_name);
		if (!cli_append((void **)&v, &n, &cap, &p, sizeof p))
			break;
	}
	if (d)
		closedir(d);
	if (!n) {
		fprintf(stderr, "zcast %s: %s: no .mcap files in this directory\n", cmd, path);
		free(v);
		return -1;
	}
	qsort(v, (size_t)n, sizeof *v, by_number);
	*out = v;
	return n;
}
