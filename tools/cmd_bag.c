/* zcast bag info RECORDING: what ros2 bag info shows (files, size, duration, start and end,
 * messages, per-topic type, count, encoding and drops); zcast bag reindex FILE|DIR...: a summary
 * rebuilt for files whose recorder died (a directory: its pieces and metadata.yaml, rec_reindex.c).
 * Bad files are reported as "file: offset: what". */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rec.h"

struct info_topic {
	char topic[256], type[64], encoding[16];
	uint64_t count, dropped;
	bool drops_known; /* the file's "zcast" metadata counts them (rosbag2's files do not) */
};

struct info {
	uint64_t size, messages, start, end, chunks, zbytes, ubytes;
	bool any, truncated;
	struct info_topic *t;
	int nt, cap;
};

static struct info_topic *topic_of(struct info *in, const char *name)
{
	for (int i = 0; i < in->nt; i++)
		if (!strcmp(in->t[i].topic, name))
			return &in->t[i];
	struct info_topic t;
	memset(&t, 0, sizeof t);
	snprintf(t.topic, sizeof t.topic, "%s", name);
	return cli_append((void **)&in->t, &in->nt, &in->cap, &t, sizeof t) ? &in->t[in->nt - 1]
									    : NULL;
}

static void add_file(struct info *in, const struct bag_reader *r)
{
	in->size += r->size;
	in->chunks += r->chunks;
	in->zbytes += r->chunk_bytes_compressed;
	in->ubytes += r->chunk_bytes_uncompressed;
	in->truncated |= r->truncated;
	if (r->messages) {
		if (!in->any || r->start_time < in->start)
			in->start = r->start_time;
		if (!in->any || r->end_time > in->end)
			in->end = r->end_time;
		in->any = true;
	}
	in->messages += r->messages;
	for (int i = 0; i < r->nchannels; i++) {
		const struct bag_channel *ch = &r->channels[i];
		struct info_topic *t = topic_of(in, ch->topic);
		if (!t)
			continue;
		struct rec_topic_desc d;
		rec_channel_read(r, ch, &d);
		snprintf(t->type, sizeof t->type, "%s", d.type_name);
		snprintf(t->encoding, sizeof t->encoding, "%s", ch->encoding);
		t->count += ch->count;
	}
	for (int i = 0; i < r->nmetadata; i++) {
		if (strcmp(r->metadata[i].name, "zcast"))
			continue;
		for (int k = 0; k < r->metadata[i].nmeta; k++) {
			const char *key = r->metadata[i].meta[2 * k];
			struct info_topic *t =
			    strncmp(key, "dropped:", 8) ? NULL : topic_of(in, key + 8);
			if (!t)
				continue;
			/* counted since the recording began: the last file has the total */
			t->dropped = strtoull(r->metadata[i].meta[2 * k + 1], NULL, 10);
			t->drops_known = true;
		}
	}
}

static void fmt_time(uint64_t ns, char *out, size_t n)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	localtime_r(&s, &tm);
	char day[64];
	strftime(day, sizeof day, "%b %e %Y %H:%M:%S", &tm);
	snprintf(out, n, "%s.%03u (%" PRIu64 ".%09" PRIu64 ")", day,
		 (unsigned)(ns % 1000000000 / 1000000), ns / 1000000000, ns % 1000000000);
}

static void print_info(const struct info *in, const struct rec_piece *p, int np)
{
	char size[32], a[96], b[96];
	cli_fmt_bytes((double)in->size, size, sizeof size);
	printf("Files:             ");
	for (int i = 0; i < np; i++)
		printf("%s%s", i ? "\n                   " : "", p[i].name);
	printf("\nBag size:          %s\nStorage id:        mcap\n", size);
	printf("Duration:          %.9fs\n", in->any ? (double)(in->end - in->start) / 1e9 : 0.0);
	fmt_time(in->start, a, sizeof a);
	fmt_time(in->end, b, sizeof b);
	printf("Start:             %s\nEnd:               %s\n", in->any ? a : "-", in->any ? b : "-");
	printf("Messages:          %" PRIu64 "\n", in->messages);
	printf("Chunks:            %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64 " uncompressed)\n",
	       in->chunks, in->zbytes, in->ubytes);
	if (in->truncated)
		printf("Complete:          no (a recorder died: zcast bag reindex rebuilds the "
		       "summary)\n");
	for (int i = 0; i < in->nt; i++) {
		const struct info_topic *t = &in->t[i];
		char dropped[24] = "unknown"; /* no drop counts in the file (not zcast's, or cut) */
		if (t->drops_known)
			snprintf(dropped, sizeof dropped, "%" PRIu64, t->dropped);
		printf("%s Topic: %s | Type: %s | Count: %" PRIu64
		       " | Serialization Format: %s | Dropped: %s\n",
		       i ? "                  " : "Topic information:", t->topic,
		       t->type[0] ? t->type : "(untyped)", t->count, t->encoding, dropped);
	}
}

/* The same as one JSON object; what is not known (times of an empty recording, the type of an
 * untyped topic, drops a file does not count) is null. */
static void print_json(const struct info *in, const struct rec_piece *p, int np)
{
	printf("{\"files\":[");
	for (int i = 0; i < np; i++) {
		printf("%s", i ? "," : "");
		cli_json_str(stdout, p[i].name);
	}
	printf("],\"bag_size\":%" PRIu64 ",\"storage_id\":\"mcap\",\"duration_ns\":%" PRIu64,
	       in->size, in->any ? in->end - in->start : 0);
	if (in->any)
		printf(",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64, in->start, in->end);
	else
		printf(",\"start_ns\":null,\"end_ns\":null");
	printf(",\"messages\":%" PRIu64 ",\"chunks\":%" PRIu64 ",\"chunk_bytes\":%" PRIu64
	       ",\"chunk_bytes_uncompressed\":%" PRIu64 ",\"complete\":%s,\"topics\":[",
	       in->messages, in->chunks, in->zbytes, in->ubytes, in->truncated ? "false" : "true");
	for (int i = 0; i < in->nt; i++) {
		const struct info_topic *t = &in->t[i];
		printf("%s{\"topic\":", i ? "," : "");
		cli_json_str(stdout, t->topic);
		printf(",\"type\":");
		if (t->type[0])
			cli_json_str(stdout, t->type);
		else
			printf("null");
		printf(",\"count\":%" PRIu64 ",\"serialization_format\":", t->count);
		cli_json_str(stdout, t->encoding);
		if (t->drops_known)
			printf(",\"dropped\":%" PRIu64 "}", t->dropped);
		else
			printf(",\"dropped\":null}");
	}
	printf("]}\n");
}

static int info(struct cli *c)
{
	struct rec_piece *p;
	int np = rec_pieces("bag", c->pos[1], &p);
	if (np < 0)
		return CLI_EFAIL;
	struct info in;
	memset(&in, 0, sizeof in);
	int r = CLI_OK;
	for (int i = 0; i < np && r == CLI_OK; i++) {
		struct bag_reader b;
		if (bag_open(p[i].path, &b) == 0) {
			add_file(&in, &b);
		} else {
			fprintf(stderr, "zcast bag: %s\n", b.err.text);
			r = CLI_EFAIL;
		}
		bag_close(&b);
	}
	if (r == CLI_OK && c->json)
		print_json(&in, p, np);
	else if (r == CLI_OK)
		print_info(&in, p, np);
	free(in.t);
	free(p);
	return r;
}

static int reindex(struct cli *c)
{
	const char *comp = cli_str(c, "compression", NULL);
	if (comp && !strcmp(comp, "none"))
		comp = "";
	for (int i = 1; i < c->npos; i++) {
		struct bag_err e;
		struct stat st;
		if (stat(c->pos[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (rec_reindex_dir(c->pos[i], comp) != 0)
				return CLI_EFAIL;
			continue;
		}
		if (bag_reindex(c->pos[i], comp, &e) != 0) {
			fprintf(stderr, "zcast bag: %s\n", e.text);
			return CLI_EFAIL;
		}
		if (c->json) {
			printf("{\"file\":");
			cli_json_str(stdout, c->pos[i]);
			printf(",\"reindexed\":true}\n");
		} else {
			printf("%s: reindexed\n", c->pos[i]);
		}
	}
	return CLI_OK;
}

static int run(struct cli *c)
{
	const char *comp = cli_str(c, "compression", NULL);
	if (comp && strcmp(comp, "none") && (!comp[0] || !bag_compression_known(comp)))
		return cli_usage_error(c, "--compression: '%s' is not zstd, lz4 or none", comp);
	if (!strcmp(c->pos[0], "info"))
		return c->npos == 2 ? info(c) : cli_usage_error(c, "info: takes one RECORDING");
	if (!strcmp(c->pos[0], "reindex"))
		return reindex(c);
	return cli_usage_error(c, "verb: '%s' is neither info nor reindex", c->pos[0]);
}

static const struct cli_opt opts[] = {
    {"compression", 0, "NAME", "reindex: chunk compression of the rewritten file (default: as it was)"},
    {0},
};

const struct cli_cmd cmd_bag = {
    .name = "bag",
    .args = "info RECORDING | reindex FILE|DIR...",
    .summary = "describe a recording, or rebuild the summary of files whose recorder died",
    .details =
	"info: files, size, duration, start and end, messages, per-topic type, count,\n"
	"encoding and drops (RECORDING: a directory of zcast record, or an .mcap file);\n"
	"drops are \"unknown\" (JSON: null) where the file does not count them (rosbag2's\n"
	"files, and pieces cut short by kill -9).\n"
	"reindex: rewrites each file from its complete chunks with message indexes and a\n"
	"summary (a file cut by kill -9 loses only the chunk being written); a DIR of\n"
	"zcast record: every piece without a summary, and metadata.yaml rewritten from\n"
	"the pieces. A file a recorder is still writing is refused and left as it is.\n",
    .opts = opts,
    .json = true,
    .min_pos = 2,
    .max_pos = CLI_MAX_POS,
    .run = run,
};
