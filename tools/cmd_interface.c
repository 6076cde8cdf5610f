/* zcast interface list | show TYPE: the message types the tool knows at run time (the ones zcast
 * ships, then those of the type libraries on $ZCAST_TYPE_PATH), and one type's .msg text,
 * constants and RIHS01 hash. */
#define _GNU_SOURCE
#include <ctype.h>
#include <string.h>
#include <zcast/types.h>

#include "cli.h"
#include "type_text.h"
#include "typed_print.h"
#include "zcast_shipped_types.h" /* every type of msg/ with its .msg text */

struct shipped_text {
	const zcast_cdr_type *type;
	const char *text;
};
static const struct shipped_text shipped[] = {ZCAST_SHIPPED_MSG_TEXTS};
#define N_SHIPPED (sizeof shipped / sizeof shipped[0])

static void json_entry(const zcast_cdr_type *t, const char *library, bool first)
{
	char hash[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(t->hash, hash);
	printf("%s{\"type\":", first ? "" : ",");
	cli_json_str(stdout, t->name);
	printf(",\"hash\":\"%s\",\"library\":", hash);
	if (library)
		cli_json_str(stdout, library);
	else
		printf("null");
}

struct list_state {
	const struct cli *c;
	int n;
};

static bool is_shipped_name(const char *name)
{
	for (size_t i = 0; i < N_SHIPPED; i++)
		if (!strcmp(shipped[i].type->name, name))
			return true;
	return false;
}

static int list_one(const zcast_cdr_type *t, const char *library, void *arg)
{
	struct list_state *s = arg;
	if (library && is_shipped_name(t->name))
		return 0; /* shipped types come first and stay: a library cannot replace them */
	if (s->c->json) {
		json_entry(t, library, s->n == 0);
		printf("}");
	} else {
		cli_row("%-40s %s\n", t->name, library ? library : "(shipped)");
	}
	s->n++;
	return 0;
}

static int list(const struct cli *c)
{
	struct list_state s = {c, 0};
	if (c->json)
		printf("[");
	for (size_t i = 0; i < N_SHIPPED; i++)
		list_one(shipped[i].type, NULL, &s);
	zcast_types_each(list_one, &s);
	if (c->json)
		printf("]\n");
	return CLI_OK;
}

struct found {
	const zcast_cdr_type *t;
	const char *library;
};

static int where_from(const zcast_cdr_type *t, const char *library, void *arg)
{
	struct found *f = arg;
	if (t != f->t)
		return 0;
	f->library = library;
	return 1;
}

/* A constant of the type's own .msg (the text before the first dependency): `TYPE NAME=VALUE`. */
static bool constant_line(const char *line, size_t len, char *type, char *name, char *value,
			  size_t n)
{
	const char *eq = memchr(line, '=', len);
	if (!eq || line[0] == '#' || eq - line >= (long)n)
		return false;
	char head[256];
	snprintf(head, sizeof head, "%.*s", (int)(eq - line), line);
	if (sscanf(head, "%63s %63s", type, name) != 2 || strchr(type, '#'))
		return false;
	size_t vlen = len - (size_t)(eq + 1 - line);
	snprintf(value, n, "%.*s", (int)vlen, eq + 1);
	if (strcmp(type, "string") != 0 && strchr(value, '#'))
		*strchr(value, '#') = '\0'; /* a comment after a number */
	for (size_t k = strlen(value); k && isspace((unsigned char)value[k - 1]); k--)
		value[k - 1] = '\0';
	return true;
}

static void print_constants(const char *text, bool json)
{
	int n = 0;
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= 3 && !strncmp(p, "===", 3))
			break; /* the dependencies' texts follow */
		while (len && isspace((unsigned char)*p))
			p++, len--;
		char type[64], name[64], value[256];
		if (constant_line(p, len, type, name, value, sizeof value)) {
			if (json) {
				printf("%s{\"type\":\"%s\",\"name\":\"%s\",\"value\":", n ? "," : "",
				       type, name);
				cli_json_str(stdout, value + strspn(value, " \t"));
				printf("}");
			} else {
				printf("  %s %s = %s\n", type, name, value + strspn(value, " \t"));
			}
			n++;
		}
		p = end ? end + 1 : NULL;
	}
	if (!json && !n)
		printf("  (none)\n");
}

static int show(const struct cli *c, const char *name)
{
	struct found f = {NULL, NULL};
	if (zt_type_named(name, &f.t) != 0)
		return cli_usage_error(c, "type: %s", cli_error_text());
	zcast_types_each(where_from, &f); /* its library, if it is not shipped */
	const char *text = type_text_of(f.t);
	char hash[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(f.t->hash, hash);
	if (c->json) {
		json_entry(f.t, f.library, true);
		printf(",\"constants\":[");
		print_constants(text, true);
		printf("],\"text\":");
		if (text)
			cli_json_str(stdout, text);
		else
			printf("null");
		printf("}\n");
		return CLI_OK;
	}
	printf("type: %s\nhash: %s\nfrom: %s\nconstants:\n", f.t->name, hash,
	       f.library ? f.library : "(shipped)");
	print_constants(text, false);
	printf("---\n%s", text ? text : "(no .msg text: the library predates zcast_type_texts; "
				       "rebuild it)\n");
	return CLI_OK;
}

static int run(struct cli *c)
{
	const char *verb = c->pos[0];
	if (!strcmp(verb, "list")) {
		if (c->npos != 1)
			return cli_usage_error(c, "list: takes no argument");
		return list(c);
	}
	if (!strcmp(verb, "show")) {
		if (c->npos != 2)
			return cli_usage_error(c, "show: needs TYPE (pkg/msg/Name)");
		return show(c, c->pos[1]);
	}
	return cli_usage_error(c, "verb: '%s' is neither list nor show", verb);
}

const struct cli_cmd cmd_interface = {
    .name = "interface",
    .args = "list | show TYPE",
    .summary = "message types known at run time: list them, show one's .msg text and hash",
    .details = "list: the types zcast ships, then those of the type libraries on $ZCAST_TYPE_PATH\n"
	       "(and the default directory), with where each comes from.\n"
	       "show TYPE (pkg/msg/Name or pkg/Name): its RIHS01 hash, constants and .msg text\n"
	       "(with the texts of the types it uses, as rosbag2 stores them).\n",
    .opts = NULL,
    .min_pos = 1,
    .max_pos = 2,
    .json = true,
    .run = run,
};
