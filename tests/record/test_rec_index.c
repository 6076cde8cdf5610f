/* DIR/metadata.yaml (tools/rec_files.c, rec_index_write): an empty list is written as YAML's []
 * (an empty block list reads as null, not a list, so a recording of no topic had
 * topics_with_message_count: null); and a write that fails (a full disk: the temporary file is
 * /dev/full; a rename that cannot replace metadata.yaml) leaves no metadata.yaml.tmp behind, and
 * the metadata.yaml there before unchanged. */
#include "harness.h"

#include <sys/stat.h>

#include "rec.h"

static char dir[64], path[128], tmp[160];

/* The file's text (at most 4 KiB), or "" when it cannot be read. */
static const char *text_of(const char *p)
{
	static char buf[4096];
	buf[0] = 0;
	FILE *f = fopen(p, "r");
	if (f) {
		buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
		fclose(f);
	}
	return buf;
}

static void empty_lists_are_lists(void)
{
	CHECK_EQ(rec_index_write(dir, NULL, 0, NULL, 0), 0);
	const char *t = text_of(path);
	CHECK(strstr(t, "\n  topics_with_message_count: []\n"));
	CHECK(strstr(t, "\n  relative_file_paths: []\n"));
	CHECK(strstr(t, "\n  files: []\n"));
	struct rec_piece p = {.name = "r_0.mcap", .messages = 0};
	CHECK_EQ(rec_index_write(dir, &p, 1, NULL, 0), 0);
	t = text_of(path);
	CHECK(strstr(t, "\n  topics_with_message_count: []\n"));
	CHECK(strstr(t, "\n  relative_file_paths:\n    - r_0.mcap\n"));
	CHECK(strstr(t, "\n  files:\n    - path: r_0.mcap\n"));
}

static void failed_write_leaves_no_tmp(void)
{
	struct rec_piece p = {.name = "r_0.mcap", .messages = 0};
	struct rec_topic_count tc = {.topic = "/t", .type = "", .encoding = "zcast.raw"};
	CHECK_EQ(rec_index_write(dir, &p, 1, &tc, 1), 0);
	char before[4096];
	snprintf(before, sizeof before, "%s", text_of(path));
	struct stat st;
	/* the disk is full: every write of the temporary file fails (ENOSPC) */
	CHECK_EQ(symlink("/dev/full", tmp), 0);
	CHECK_EQ(rec_index_write(dir, &p, 1, &tc, 1), -1);
	CHECK(lstat(tmp, &st) != 0 && errno == ENOENT);
	CHECK(!strcmp(text_of(path), before));
	/* written, but it cannot replace metadata.yaml (here a directory) */
	char moved[200];
	snprintf(moved, sizeof moved, "%s/old.yaml", dir);
	CHECK_EQ(rename(path, moved), 0);
	CHECK_EQ(mkdir(path, 0755), 0);
	CHECK_EQ(rec_index_write(dir, &p, 1, &tc, 1), -1);
	CHECK(lstat(tmp, &st) != 0 && errno == ENOENT);
	CHECK_EQ(rmdir(path), 0);
	CHECK_EQ(unlink(moved), 0);
}

int main(void)
{
	zt_setup("rec_index", 60);
	snprintf(dir, sizeof dir, "/tmp/zt-rec-index-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/metadata.yaml", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	RUN(empty_lists_are_lists);
	RUN(failed_write_leaves_no_tmp);
	unlink(path);
	unlink(tmp);
	rmdir(dir);
	return 0;
}
