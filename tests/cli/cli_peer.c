/* A peer for tests/cli_test.sh: the members the zcast tool cannot be itself.
 *   cli_peer sub TOPIC full|drop DEPTH     a subscriber that takes and drops every message
 *   cli_peer typed-pub TOPIC TYPE_NAME     a typed publisher that stays until killed
 * Prints "ready" once joined. Runs until killed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zcast/zcast.h>

static int die(const char *what, int r)
{
	fprintf(stderr, "cli_peer %s: %s (%s)\n", what, zcast_strerror(r), zcast_last_error());
	return 1;
}

static int sub(const char *topic, const char *policy, int depth)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = strcmp(policy, "full") == 0 ? ZCAST_POLICY_FULL : ZCAST_POLICY_DROP_OLD;
	o.queue_depth = (uint32_t)depth;
	zcast_sub *s;
	int r = zcast_sub_open(topic, &o, &s);
	if (r < 0)
		return die("sub", r);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		zcast_msg *m;
		if (zcast_wait(s, -1) == 0 && zcast_take(s, &m) == 0)
			zcast_msg_drop(m);
	}
}

static int typed_pub(const char *topic, const char *type)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = type; /* hash left zero: the tool only cares that the topic has a type */
	zcast_pub *p;
	int r = zcast_pub_open(topic, &o, &p);
	if (r < 0)
		return die("typed-pub", r);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "sub") == 0)
		return sub(argv[2], argv[3], atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "typed-pub") == 0)
		return typed_pub(argv[2], argv[3]);
	fprintf(stderr, "usage: cli_peer sub TOPIC full|drop DEPTH | typed-pub TOPIC TYPE\n");
	return 2;
}
