/* Strict argument parsing: every command declares its options; anything else is an error (exit 2).
 * Options may come before or after positional arguments; "--name=value" and "--name value" both
 * work; "--" ends the options; a lone "-" is a positional argument. -d/--domain, -h/--help and (for
 * commands that print data) --json are accepted by every command. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_opt common_opts[] = {
    {"domain", 'd', "DOMAIN", "zcast domain (default $ZCAST_DOMAIN, else \"default\")"},
    {"help", 'h', NULL, "show this help"},
    {"json", 0, NULL, "machine-readable output (JSON; one object per line for streams)"},
};

int cli_usage_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "zcast %s: ", c->cmd->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see zcast %s --help)\n", c->cmd->name);
	va_end(ap);
	return CLI_EUSAGE;
}

static int n_opts(const struct cli_cmd *cmd)
{
	int n = 0;
	while (cmd->opts && cmd->opts[n].name)
		n++;
	return n;
}

static void print_opt(FILE *f, const struct cli_opt *o)
{
	char head[64], shrt[8] = "    ";
	if (o->shrt)
		snprintf(shrt, sizeof shrt, "-%c, ", o->shrt);
	snprintf(head, sizeof head, "%s--%s%s%s", shrt, o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
	fprintf(f, "  %-26s %s\n", head, o->help);
}

void cli_cmd_help(const struct cli_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: zcast %s [options]%s%s\n\n%s\n", cmd->name, cmd->args[0] ? " " : "",
		cmd->args, cmd->summary);
	if (cmd->details)
		fprintf(f, "\n%s", cmd->details);
	fprintf(f, "\noptions:\n");
	for (int i = 0; i < n_opts(cmd); i++)
		print_opt(f, &cmd->opts[i]);
	print_opt(f, &common_opts[0]);
	if (cmd->json)
		print_opt(f, &common_opts[2]);
	print_opt(f, &common_opts[1]);
	fprintf(
	    f,
	    "\nexit status: 0 ok, 1 failure, 2 usage error, 3 no such topic (see zcast --help)\n");
}

/* Index of the option `arg` names (long "--x" or short "-x"); -1 common --json, -2 --help, -3
 * --domain, -4 unknown. */
static int find_opt(const struct cli_cmd *cmd, const char *arg, size_t len, bool is_long)
{
	int n = n_opts(cmd);
	for (int i = 0; i < n; i++) {
		const struct cli_opt *o = &cmd->opts[i];
		if (is_long ? strlen(o->name) == len && strncmp(o->name, arg, len) == 0
			    : o->shrt && len == 1 && arg[0] == o->shrt)
			return i;
	}
	for (int i = 0; i < 3; i++) {
		const struct cli_opt *o = &common_opts[i];
		if (i == 2 && !cmd->json)
			continue;
		if (is_long ? strlen(o->name) == len && strncmp(o->name, arg, len) == 0
			    : o->shrt && len == 1 && arg[0] == o->shrt)
			return -3 + i; /* domain -3, help -2, json -1 */
	}
	return -4;
}

/* The names every command uses, checked before it runs: a TOPIC argument (the first, for the
 * commands whose usage starts with it) and a domain from $ZCAST_DOMAIN (-d is checked as parsed). */
static int check_names(struct cli *c)
{
	const char *a = c->cmd->args;
	bool topic_first = !strncmp(a, "TOPIC", 5) && (a[5] == 0 || a[5] == ' ');
	if ((topic_first || !strcmp(a, "[TOPIC]")) && c->npos > 0 &&
	    zcast_topic_name_valid(c->pos[0]) != 0)
		return cli_usage_error(c,
				       "TOPIC: invalid topic name '%s' (want /name[/name...], each "
				       "name [A-Za-z_][A-Za-z0-9_]*, at most 200 bytes)",
				       c->pos[0]);
	const char *env = getenv("ZCAST_DOMAIN");
	if (!c->domain && env && *env && zcast_domain_name_valid(env) != 0)
		return cli_usage_error(
		    c, "ZCAST_DOMAIN: invalid domain name '%s' (want [A-Za-z0-9_-]{1,32})", env);
	return CLI_OK;
}

int cli_parse(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv)
{
	c->cmd = cmd;
	c->pos = calloc((size_t)argc + 1, sizeof *c->pos); /* every argument could be one */
	if (!c->pos) {
		fprintf(stderr, "zcast %s: out of memory\n", cmd->name);
		return CLI_EFAIL;
	}
	bool opts_done = false;
	for (int a = 0; a < argc; a++) {
		const char *s = argv[a];
		if (opts_done || s[0] != '-' || s[1] == 0) {
			if (c->npos >= cmd->max_pos)
				return cli_usage_error(c, "unexpected argument '%s'", s);
			c->pos[c->npos++] = s;
			continue;
		}
		if (strcmp(s, "--") == 0) {
			opts_done = true;
			continue;
		}
		bool is_long = s[1] == '-';
		const char *name = s + (is_long ? 2 : 1);
		const char *eq = is_long ? strchr(name, '=') : NULL;
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		int i = find_opt(cmd, name, len, is_long);
		if (i == -4)
			return cli_usage_error(c, "unknown option '%s'", s);
		bool takes = i >= 0 ? cmd->opts[i].arg != NULL : i == -3;
		const char *v = "";
		if (takes) {
			if (eq)
				v = eq + 1;
			else if (a + 1 < argc)
				v = argv[++a];
			else
				return cli_usage_error(c, "option '%s' needs a value", s);
		} else if (eq) {
			return cli_usage_error(c, "option '--%.*s' takes no value", (int)len, name);
		}
		if (i == -2) {
			cli_cmd_help(cmd, stdout);
			return -1;
		}
		if (i == -3) {
			if (zcast_domain_name_valid(v) != 0)
				return cli_usage_error(
				    c, "invalid domain name '%s' (want [A-Za-z0-9_-]{1,32})", v);
			c->domain = v;
		} else if (i == -1) {
			c->json = true;
		} else {
			c->val[i] = v;
		}
	}
	if (c->npos < cmd->min_pos)
		return cli_usage_error(c, "missing argument: %s", cmd->args);
	return check_names(c);
}

static int index_of(const struct cli *c, const char *name)
{
	for (int i = 0; i < n_opts(c->cmd); i++)
		if (strcmp(c->cmd->opts[i].name, name) == 0)
			return i;
	fprintf(stderr, "zcast %s: internal error: no option --%s\n", c->cmd->name, name);
	abort();
}

bool cli_flag(const struct cli *c, const char *name)
{
	return c->val[index_of(c, name)] != NULL;
}

const char *cli_str(const struct cli *c, const char *name, const char *dflt)
{
	const char *v = c->val[index_of(c, name)];
	return v ? v : dflt;
}

/* A numeric option's value (whole numbers only if `whole`); a bad one ends the program (exit 2). */
static double number(const struct cli *c, const char *name, double dflt, double min, double max,
		     bool whole)
{
	const char *v = cli_str(c, name, NULL);
	if (!v)
		return dflt;
	char *end;
	errno = 0;
	double x = whole ? (double)strtoll(v, &end, 10) : strtod(v, &end);
	if (errno || end == v || *end || !isfinite(x) || x < min || x > max) {
		cli_usage_error(c, "--%s: '%s' is not %s from %.15g to %.15g", name, v,
				whole ? "a whole number" : "a number", min, max);
		exit(CLI_EUSAGE);
	}
	return x;
}

long cli_long(const struct cli *c, const char *name, long dflt, long min, long max)
{
	return (long)number(c, name, (double)dflt, (double)min, (double)max, true);
}

double cli_double(const struct cli *c, const char *name, double dflt, double min, double max)
{
	return number(c, name, dflt, min, max, false);
}
