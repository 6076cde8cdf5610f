/* zcast echo TOPIC: prints messages as they arrive, with their age and delivery latency. The
 * payload goes through the printer registered for the topic's type (printers.c). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "typed_print.h"

struct echo {
	const struct cli_printer *printer;
	const zcast_cdr_type *typed; /* a known type: printed member by member */
	bool resolved;		     /* typed looked up (at the first message: by then a typed
				      * publisher's join has set the topic's type) */
	const char *domain, *topic;
	struct cli_print_opts po;
	bool json;
	bool csv;     /* --csv: a header row, then one row per message (typed topics only) */
	bool csv_head; /* the header row is out */
	struct zt_print_opts zo; /* --field, --no-arr */
	int bad;		 /* CLI_EUSAGE when --field names no member of the topic's type */
};

/* The topic's type among the known ones (shipped, type libraries), once. */
static void resolve_type(struct echo *e)
{
	zcast_topic_stat st;
	memset(&st, 0, sizeof st);
	e->resolved = true;
	zcast_topic_stat_get(e->domain, e->topic, &st);
	e->printer = cli_printer_for(st.type_name);
	char why[512];
	if (st.type_name[0] &&
	    zt_find_type(st.type_name, st.type_hash, &e->typed, why, sizeof why) == ZCAST_ETYPE)
		fprintf(stderr, "zcast echo: refused: %s; printing raw bytes\n", why);
	const char *field = e->zo.field;
	if (field && (!e->typed || !zt_field_valid(e->typed, field))) {
		fprintf(stderr, "zcast echo: --field: '%s' is no member of %s\n", field,
			e->typed ? e->typed->name : "an untyped topic (or a type the tool does not know)");
		e->bad = CLI_EUSAGE;
	}
	if (e->csv && !e->typed) {
		fprintf(stderr, "zcast echo: --csv: %s is untyped (or of a type the tool does not "
				"know): use --json or --hex\n", e->topic);
		e->bad = CLI_EUSAGE;
	}
}

/* A CSV row: echo's columns, then the members (typed_csv.c); a message that is not a valid one of
 * the type is reported on stderr and skipped, so every row has the header's columns. */
static void print_csv(struct echo *e, zcast_msg *m, const zcast_msg_info *in, int64_t latency)
{
	if (!e->csv_head) {
		zt_csv_header(e->typed, stdout);
		e->csv_head = true;
	}
	char *row = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&row, &n);
	int err = f ? zt_print_typed_csv(e->typed, m, f, e->zo.no_arr) : ZCAST_ENOMEM;
	if (f)
		fclose(f);
	if (err == 0)
		printf("%" PRIu64 ",%" PRId64 ",%" PRId64 "%s\n", in->sequence, in->publish_time_ns,
		       latency, row);
	else
		fprintf(stderr, "zcast echo: #%" PRIu64 " is not a valid %s: %s\n", in->sequence,
			e->typed->name, cli_error_text());
	free(row);
	fflush(stdout);
}

static void print_msg(struct echo *e, zcast_msg *m, int64_t taken_ns, bool history)
{
	if (!e->resolved)
		resolve_type(e);
	if (e->bad)
		return;
	zcast_msg_info in;
	memset(&in, 0, sizeof in);
	zcast_msg_info_get(m, &in);
	const uint8_t *p = zcast_msg_data(m);
	size_t n = zcast_msg_size(m);
	int64_t latency = taken_ns - in.publish_time_ns, age = cli_now_ns() - in.publish_time_ns;
	if (e->csv) {
		print_csv(e, m, &in, latency);
		return;
	}
	if (e->json) {
		printf("{\"sequence\":%" PRIu64 ",\"size\":%zu,\"publisher_id\":%" PRIu64
		       ",\"publish_time_ns\":%" PRId64 ",\"latency_ns\":%" PRId64
		       ",\"age_ns\":%" PRId64 ",\"history\":%s,",
		       in.sequence, n, in.publisher_id, in.publish_time_ns, latency, age,
		       history ? "true" : "false");
		if (!e->typed || e->po.hex || zt_print_typed_json(e->typed, m, stdout) != 0)
			e->printer->json(stdout, p, n, &e->po);
		printf("}\n");
	} else {
		char lat[32], ag[32];
		cli_fmt_ns((double)latency, lat, sizeof lat);
		cli_fmt_ns((double)age, ag, sizeof ag);
		printf("#%" PRIu64 "  %zu B  from %" PRIu64 "  latency %s  age %s%s ", in.sequence,
		       n, in.publisher_id, lat, ag, history ? "  (history)" : "");
		if (e->typed && !e->po.hex) {
			printf("%s\n", e->typed->name);
			fflush(stdout);
			if (zt_print_typed(e->typed, m, stdout, &e->zo) == 0)
				return;
			printf("  (not a valid %s: %s)\n ", e->typed->name, cli_error_text());
		}
		e->printer->text(stdout, p, n, &e->po);
	}
	fflush(stdout);
}

static int run(struct cli *c)
{
	const char *topic = c->pos[0];
	long count = cli_flag(c, "once") ? 1 : cli_long(c, "count", 0, 0, 1000000000);
	long history = cli_long(c, "history", 0, 0, 4096);
	double timeout = cli_double(c, "timeout", 0, 0, 1e6);
	struct echo e = {.json = c->json};
	e.po.hex = cli_flag(c, "hex");
	e.po.max_bytes = (size_t)cli_long(c, "bytes", e.po.hex ? 256 : 64, 0, 1L << 40);
	e.zo.field = cli_str(c, "field", NULL);
	e.zo.no_arr = cli_flag(c, "no-arr");
	e.csv = cli_flag(c, "csv");
	if (e.csv && (c->json || e.po.hex || e.zo.field))
		return cli_usage_error(c, "--csv: not with --json, --hex or --field");
	if (e.zo.field && (c->json || e.po.hex))
		return cli_usage_error(c, "--field: prints text only (not with --json or --hex)");
	if (e.zo.field && !e.zo.field[0])
		return cli_usage_error(c, "--field: empty member path");
	struct cli_watch w;
	int r = cli_watch_open(&w, c, topic, (uint32_t)history);
	if (r != CLI_OK)
		return r;
	e.domain = w.domain, e.topic = topic;
	int64_t limit = timeout > 0 ? (int64_t)(timeout * 1e9) : -1, last = w.joined_ns;
	long seen = 0;
	r = CLI_OK;
	while (!cli_stop && !e.bad && (count == 0 || seen < count)) {
		if (limit >= 0 && cli_now_ns() - last >= limit) {
			fprintf(stderr, "zcast echo: nothing received on %s for %g s\n", topic,
				timeout);
			r = CLI_ETIMEOUT;
			break;
		}
		if (cli_watch_wait(&w, 200000000) != 0)
			continue;
		zcast_msg *m;
		bool from_history;
		while ((count == 0 || seen < count) && cli_watch_take(&w, &m, &from_history) == 0) {
			last = cli_now_ns();
			print_msg(&e, m, last, from_history);
			zcast_msg_drop(m);
			seen++;
		}
	}
	cli_watch_close(&w);
	return e.bad ? e.bad : r;
}

static const struct cli_opt opts[] = {
    {"count", 'n', "N", "stop after N messages (default: until Ctrl-C)"},
    {"once", 0, NULL, "stop after one message (same as -n 1)"},
    {"history", 0, "N", "first print up to N messages the topic kept for late joiners"},
    {"hex", 'x', NULL, "hex dump of the payload"},
    {"bytes", 0, "N", "print at most N payload bytes (default 64, with --hex 256; 0: all)"},
    {"timeout", 't', "SECONDS", "give up (exit 4) when no message arrived for SECONDS"},
    {"field", 0, "PATH", "print only this member (orientation.x, fields[1].name)"},
    {"no-arr", 0, NULL, "arrays of more than 3 values as <sequence, length: N>"},
    {"csv", 0, NULL, "typed topics as CSV: a header of member paths, then a row per message"},
    {0},
};

const struct cli_cmd cmd_echo = {
    .name = "echo",
    .args = "TOPIC",
    .summary = "print messages of a topic (sequence, size, latency, age, payload)",
    .details =
	"Latency: publish to receive. Age: publish to print. Messages from the topic's\n"
	"history are marked (history). echo joins as a DROP_OLD subscriber with a short queue\n"
	"(a quarter of the smallest publisher's pool): a slow terminal makes echo skip\n"
	"messages, never slows a publisher. While the topic has no publisher echo says so on\n"
	"stderr and names similar topics (a typo?).\n",
    .opts = opts,
    .min_pos = 1,
    .max_pos = 1,
    .json = true,
    .run = run,
};
