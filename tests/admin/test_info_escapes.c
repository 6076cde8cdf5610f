/* Issue 22, item 8: the tool prints nothing a member wrote raw. A member can write any bytes into
 * the names the tool shows (a worker group's name, the topic's type name, its own process name), for
 * instance terminal escape sequences that retitle the window or clear the screen of whoever runs
 * `zcast info`. The output of `zcast info`, `zcast info --json` and `zcast list` must hold no control
 * byte (ESC, BEL, ...) other than newline, and no byte of 0x7f and above. The tool is $ZCAST_TOOL. */
#include <sys/prctl.h>

#include "zt_hostile.h"

#define EVIL "\x1b]0;owned\x07\x1b[2J\x9b"

static int member_main(void *arg)
{
	int *ready = arg;
	CHECK_EQ(prctl(PR_SET_NAME, "ev" EVIL), 0);
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_BALANCE_RR;
	o.group = "workers";
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/esc/t", &o, &s), 0);
	zt_signal(ready[1]);
	while (pause() < 0 || s)
		;
	return 0;
}

/* Runs the tool with `args` and fails on any unsafe byte of its output. */
static void check_output(const char *args)
{
	const char *t = getenv("ZCAST_TOOL");
	CHECK(t && access(t, X_OK) == 0);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' -d %s %s 2>&1", t, zt_domain(), args);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	int c, n = 0, bad = 0;
	while ((c = fgetc(f)) != EOF) {
		n++;
		if ((c < 0x20 && c != '\n') || c >= 0x7f) {
			if (!bad)
				fprintf(stderr, "zcast %s: byte 0x%02x at %d\n", args, c, n);
			bad++;
		}
	}
	pclose(f);
	printf("zcast %s: %d bytes, %d unsafe\n", args, n, bad);
	CHECK(n > 0);
	CHECK_EQ(bad, 0);
}

int main(void)
{
	zt_setup("escapes", 60);
	zcast_pub *p = zt_open_pub("/esc/t", 64, 4);
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	pid_t member = zt_fork(member_main, ready);
	zt_await(ready[0]);
	struct zc_topic_hdr *h = zt_map_topic("/esc/t", NULL);
	struct zc_group_rec *g = (struct zc_group_rec *)((char *)h + h->off_groups);
	uint32_t k = 0;
	while (k < h->max_groups && strcmp(g[k].name, "workers") != 0)
		k++;
	CHECK(k < h->max_groups);
	snprintf(g[k].name, sizeof g[k].name, "w" EVIL);
	snprintf(h->type_name, sizeof h->type_name, "t" EVIL);
	check_output("info /esc/t");
	check_output("info --json /esc/t");
	check_output("list");
	kill(member, SIGKILL);
	zt_wait(member);
	zcast_pub_close(p);
	return 0;
}
