/* zcast pub TOPIC [TEXT]: publishes a text (with its terminating NUL) or the bytes of a file or of
 * stdin, at a rate, a number of times. Refuses a typed topic unless --force: raw bytes written
 * into a topic whose subscribers expect a type would be misread by them.
 * zcast pub TOPIC TYPE [VALUES]: publishes a typed message (typed_values.h) as a publisher of TYPE. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <zcast/waitset.h>

#include "cli.h"
#include "typed_print.h"
#include "typed_values.h"

/* Reads all of f into a malloc'ed buffer. */
static int slurp(FILE *f, uint8_t **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	uint8_t *b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		uint8_t *g = realloc(b, cap * 2);
		if (!g)
			free(b);
		b = g;
		cap *= 2;
	}
	if (!b || ferror(f)) {
		free(b);
		return -1;
	}
	*out = b;
	*len = n;
	return 0;
}

/* The typed payload of TYPE [VALUES] (pos[1], pos[2]). */
static int typed_payload(const struct cli *c, const zcast_cdr_type *t, uint8_t **data, size_t *len)
{
	char err[512];
	if (zt_values_serialize(t, c->npos > 2 ? c->pos[2] : "", data, len, err, sizeof err) < 0)
		return cli_usage_error(c, "VALUES: %s", err);
	return CLI_OK;
}

/* TYPE given (pos[1] names a type, or a third argument is there): its table, else NULL. */
static int typed_arg(const struct cli *c, const zcast_cdr_type **t)
{
	*t = NULL;
	if (c->npos < 2 || !strchr(c->pos[1], '/') || cli_str(c, "file", NULL))
		return CLI_OK;
	if (zt_type_named(c->pos[1], t) == 0)
		return CLI_OK;
	if (c->npos > 2)
		return cli_usage_error(c, "TYPE: %s is not a type zcast ships (%s)", c->pos[1],
				       zcast_last_error());
	return CLI_OK; /* a text that only looks like a type name */
}

/* --wait-matching N: until N subscribers are matched (or Ctrl-C). */
static void wait_matching(zcast_pub *p, long n)
{
	while (!cli_stop && n > 0 && zcast_pub_matched(p) < n)
		cli_sleep_ns(10 * 1000 * 1000);
}

static int load_payload(const struct cli *c, uint8_t **data, size_t *len)
{
	const char *file = cli_str(c, "file", NULL);
	const char *text = c->npos > 1 ? c->pos[1] : NULL;
	if ((file != NULL) == (text != NULL))
		return cli_usage_error(c, "give either TEXT or --file FILE (- for stdin)");
	if (text) {
		*len = strlen(text) + 1;
		*data = (uint8_t *)strdup(text);
		return *data ? CLI_OK : CLI_EFAIL;
	}
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "zcast pub: --file: %s: cannot open: %m\n", file);
		return CLI_EFAIL;
	}
	int r = slurp(f, data, len);
	if (r < 0) /* before fclose, which may change errno */
		fprintf(stderr, "zcast pub: --file: %s: cannot read: %m\n", file);
	if (f != stdin)
		fclose(f);
	return r < 0 ? CLI_EFAIL : CLI_OK;
}

/* CLI_EREFUSED when the topic has a type and --force was not given. */
static int check_untyped(const struct cli *c, const char *topic, bool force)
{
	zcast_topic_stat st;
	if (zcast_topic_stat_get(cli_domain(c), topic, &st) != 0 || !st.type_name[0] || force)
		return CLI_OK;
	fprintf(stderr,
		"zcast pub: topic %s has type %s; raw bytes would be misread by its subscribers "
		"(use --force to publish anyway)\n",
		topic, cli_safe(st.type_name));
	return CLI_EREFUSED;
}

static int run(struct cli *c)
{
	const char *topic = c->pos[0];
	double rate = cli_double(c, "rate", 1, 0, 1e7);
	long count = cli_flag(c, "once") ? 1 : cli_long(c, "count", 0, 0, 1000000000000L);
	count = cli_long(c, "times", count, 1, 1000000000000L);
	long matching = cli_long(c, "wait-matching", 0, 0, 1000000);
	double timeout = cli_double(c, "timeout", 1, 0, 1e6);
	bool force = cli_flag(c, "force");
	uint32_t history = (uint32_t)cli_long(c, "history", 0, 0, 4096);
	uint8_t *data = NULL;
	size_t len = 0;
	const zcast_cdr_type *t;
	int r = typed_arg(c, &t);
	if (r != CLI_OK)
		return r;
	r = t ? typed_payload(c, t, &data, &len) : load_payload(c, &data, &len);
	if (r != CLI_OK)
		return r;
	if (!t && (r = check_untyped(c, topic, force)) != CLI_OK) {
		free(data);
		return r;
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = cli_domain(c);
	o.slot_size = len ? len : 1;
	o.history_depth = history;
	o.slot_count = 8 + o.history_depth; /* history holds slots */
	if (t) { /* a publisher of the type: subscribers of another type are refused at the join */
		o.type_name = t->name;
		memcpy(o.type_hash, t->hash, ZCAST_TYPE_HASH_SIZE);
	}
	zcast_pub *p;
	if ((r = zcast_pub_open(topic, &o, &p)) < 0) {
		free(data);
		return cli_fail(c, r);
	}
	/* The topic may have been created typed between the check and our join. */
	if (!t && (r = check_untyped(c, topic, force)) != CLI_OK) {
		zcast_pub_close(p);
		free(data);
		return r;
	}
	wait_matching(p, matching);
	int64_t period = rate > 0 ? (int64_t)(1e9 / rate) : 0, next = cli_now_ns();
	int64_t wait_ns = (int64_t)(timeout * 1e9);
	long sent = 0, refused = 0;
	r = CLI_OK;
	for (long i = 0; !cli_stop && (count == 0 || i < count); i++) {
		zcast_msg *m;
		int e = zcast_loan_wait(p, len, wait_ns, &m);
		if (e == 0) {
			memcpy(zcast_msg_data(m), data, len);
			if ((e = zcast_publish_wait(p, m, wait_ns)) < 0)
				zcast_msg_drop(m);
		}
		if (e == ZCAST_ETIMEDOUT || e == ZCAST_EAGAIN || e == ZCAST_ENOSLOT) {
			if (refused++ == 0)
				fprintf(
				    stderr,
				    "zcast pub: publish refused: %s (zcast info %s shows who)\n",
				    cli_error_text(), topic);
		} else if (e < 0) {
			r = cli_fail(c, e);
			break;
		} else {
			sent++;
		}
		if (count && i + 1 >= count)
			break; /* no period to wait after the last one */
		next += period;
		int64_t now = cli_now_ns();
		if (period && next > now)
			cli_sleep_ns(next - now);
	}
	zcast_pub_close(p);
	free(data);
	if (refused) {
		fprintf(stderr, "zcast pub: %ld of %ld publishes refused\n", refused,
			sent + refused);
		if (r == CLI_OK)
			r = CLI_EFAIL;
	}
	return r;
}

static const struct cli_opt opts[] = {
    {"rate", 'r', "HZ", "messages per second (default 1; 0: as fast as possible)"},
    {"count", 'n', "N", "publish N times (default: until Ctrl-C)"},
    {"once", 0, NULL, "publish once (same as -n 1)"},
    {"times", 0, "N", "publish N times (same as -n N, as ros2 topic pub says it)"},
    {"wait-matching", 0, "N", "first wait until N subscribers are matched (so --once is not lost)"},
    {"file", 'f', "FILE", "publish the bytes of FILE ('-': stdin) instead of TEXT"},
    {"timeout", 't', "SECONDS", "wait this long for a free slot / room in FULL queues (default 1)"},
    {"history", 0, "N", "keep the last N messages for late joiners (echo --history)"},
    {"force", 0, NULL, "publish raw bytes even into a typed topic"},
    {0},
};

const struct cli_cmd cmd_pub = {
    .name = "pub",
    .args = "TOPIC [TEXT | TYPE [VALUES]]",
    .summary = "publish a typed message, a text or binary data (file or stdin), at a rate (default 1 Hz)",
    .details =
	"TYPE VALUES: a message of TYPE (pkg/msg/Name, shipped or from a type library on\n"
	"$ZCAST_TYPE_PATH) with VALUES in YAML flow style as ros2 topic pub takes them:\n"
	"'{header: {frame_id: cam}, data: [1, 2]}'; members not given keep their defaults.\n"
	"TEXT is sent with its terminating NUL byte. A publish that a FULL subscriber\n"
	"refuses for --timeout is counted; any refusal makes the exit status 1. A topic with\n"
	"a type name is refused (exit 5) unless --force.\n",
    .opts = opts,
    .min_pos = 1,
    .max_pos = 3,
    .json = false,
    .run = run,
};
