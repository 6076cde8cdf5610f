/* zcast: the command-line tool. This file dispatches to one command per cmd_*.c file.
 * Subscribers the tool opens are untyped, DROP_OLD and short, so watching a topic never slows
 * its publishers down. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_cmd *const commands[] = {
    &cmd_list, &cmd_info, &cmd_echo, &cmd_hz, &cmd_bw,	   &cmd_delay,
    &cmd_pub,  &cmd_top,  &cmd_gc,   &cmd_rm, &cmd_doctor, &cmd_record, &cmd_play, &cmd_bag, &cmd_interface, &cmd_service, NULL,
};

static void help(FILE *f)
{
	fprintf(f, "usage: zcast [-d DOMAIN] COMMAND [options] [arguments]\n\n"
		   "Inspect and drive zcast topics (zero-copy publish/subscribe on this host).\n\n"
		   "commands:\n");
	for (int i = 0; commands[i]; i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(
	    f, "\n`zcast COMMAND --help` describes a command and its options. Every command takes\n"
	       "-d DOMAIN (default $ZCAST_DOMAIN, else \"default\"); commands that print data take "
	       "--json.\n\n"
	       "exit status:\n"
	       "  0  success\n"
	       "  1  runtime failure (system error, corrupt segment, publish failed)\n"
	       "  2  usage error (unknown option, missing or bad value, bad name)\n"
	       "  3  no such topic\n"
	       "  4  no message arrived for the --timeout given\n"
	       "  5  refused: typed topic without --force (pub), live members (rm)\n"
	       "  6  problems found (doctor), dead members found (gc --dry-run)\n");
}

int main(int argc, char **argv)
{
	struct cli c;
	memset(&c, 0, sizeof c);
	int a = 1;
	/* Options before the command: -d DOMAIN, --help, --version. */
	for (; a < argc && argv[a][0] == '-'; a++) {
		const char *s = argv[a];
		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			help(stdout);
			return CLI_OK;
		}
		if (strcmp(s, "--version") == 0 || strcmp(s, "-V") == 0) {
			printf("zcast %d.%d.%d\n", ZCAST_VERSION_MAJOR, ZCAST_VERSION_MINOR,
			       ZCAST_VERSION_PATCH);
			return CLI_OK;
		}
		if (strcmp(s, "-d") == 0 || strcmp(s, "--domain") == 0) {
			if (a + 1 >= argc) {
				fprintf(stderr, "zcast: option '%s' needs a value\n", s);
				return CLI_EUSAGE;
			}
			c.domain = argv[++a];
			if (zcast_domain_name_valid(c.domain) != 0) {
				fprintf(
				    stderr,
				    "zcast: invalid domain name '%s' (want [A-Za-z0-9_-]{1,32})\n",
				    c.domain);
				return CLI_EUSAGE;
			}
			continue;
		}
		fprintf(stderr, "zcast: unknown option '%s' (see zcast --help)\n", s);
		return CLI_EUSAGE;
	}
	if (a >= argc) {
		help(stderr);
		return CLI_EUSAGE;
	}
	const struct cli_cmd *cmd = NULL;
	for (int i = 0; commands[i]; i++)
		if (strcmp(commands[i]->name, argv[a]) == 0)
			cmd = commands[i];
	if (!cmd) {
		fprintf(stderr, "zcast: unknown command '%s' (see zcast --help)\n", argv[a]);
		return CLI_EUSAGE;
	}
	int r = cli_parse(&c, cmd, argc - a - 1, argv + a + 1);
	if (r == CLI_OK) {
		cli_catch_signals();
		r = cmd->run(&c);
	} else if (r < 0) {
		r = CLI_OK; /* help was printed */
	}
	free(c.pos);
	return r;
}
