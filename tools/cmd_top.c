/* zcast top: a live view of every topic of a domain (rate, bandwidth, queue fill, drops, refusals),
 * refreshed every interval until 'q' or Ctrl-C. With --once / --iterations N it prints that many
 * snapshots without touching the terminal, for scripts. Reads shared memory only: top is not a
 * member of any topic and slows nobody down. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

struct row {
	const struct cli_topic *now;
	double rate, bw, drops, rejects;
};

/* Bandwidth is estimated as rate x the newest message's size: exact for fixed-size messages;
 * `zcast bw` measures it by receiving. */
static struct row row_of(const struct cli_topic *now, const struct cli_topic *before)
{
	struct row r = {now, 0, 0, 0, 0};
	if (!before || before->err || now->err)
		return r;
	int64_t dt = now->when_ns - before->when_ns;
	r.rate = cli_rate(before->st.last_sequence, now->st.last_sequence, dt);
	r.bw = r.rate * (double)now->last_size;
	r.drops = cli_rate(before->dropped, now->dropped, dt);
	r.rejects = cli_rate(before->rejected, now->rejected, dt);
	return r;
}

static const struct cli_topic *find(const struct cli_topic *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static void print_json(const char *domain, const struct row *rows, int n)
{
	printf("{\"domain\":");
	cli_json_str(stdout, domain);
	printf(",\"topics\":[");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		printf("%s{\"topic\":", i ? "," : "");
		cli_json_str(stdout, r->now->name);
		printf(
		    ",\"publishers\":%u,\"subscribers\":%u,\"rate_hz\":%.3f,\"bytes_per_s\":%.0f,"
		    "\"fill\":%.3f,\"drops_per_s\":%.3f,\"refusals_per_s\":%.3f,\"refusing\":%u,"
		    "\"dropped\":%llu,\"rejected\":%llu,\"dead_members\":%u}",
		    r->now->live_pubs, r->now->live_subs, r->rate, r->bw, r->now->fill, r->drops,
		    r->rejects, r->now->refusing, (unsigned long long)r->now->dropped,
		    (unsigned long long)r->now->rejected, r->now->dead);
	}
	printf("]}\n");
}

static void print_table(const char *domain, const struct row *rows, int n, double interval,
			bool tty)
{
	if (tty)
		printf("\033[H\033[2J"); /* home, clear */
	printf("zcast top - domain %s - %d topic%s - every %.1f s%s\n\n", domain, n,
	       n == 1 ? "" : "s", interval, tty ? " - q quits" : "");
	printf("%-28s %4s %4s %10s %11s %5s %8s %8s %s\n", "TOPIC", "PUB", "SUB", "RATE(Hz)",
	       "BW/s", "FILL", "DROP/s", "REFUSE/s", "NOTE");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char bw[32], note[64] = "";
		cli_fmt_bytes(r->bw, bw, sizeof bw);
		if (r->now->refusing)
			snprintf(note, sizeof note, "%u REFUSING ", r->now->refusing);
		if (!r->now->live_pubs)
			strcat(note, "no publisher ");
		if (r->now->dead)
			strcat(note, "dead members");
		cli_row("%-28s %4u %4u %10.1f %11s %4.0f%% %8.1f %8.1f %s\n", r->now->name,
			r->now->live_pubs, r->now->live_subs, r->rate, bw, r->now->fill * 100,
			r->drops, r->rejects, note);
	}
	fflush(stdout);
}

/* Waits up to ns for the interval to pass; true when the user pressed q. */
static bool wait_key(int64_t ns, bool tty)
{
	int64_t end = cli_now_ns() + ns;
	while (!cli_stop) {
		int64_t left = end - cli_now_ns();
		if (left <= 0)
			return false;
		if (!tty) {
			cli_sleep_ns(left);
			continue;
		}
		struct pollfd p = {0, POLLIN, 0};
		if (poll(&p, 1, (int)(left / 1000000) + 1) > 0) {
			char ch;
			if (read(0, &ch, 1) != 1 || ch == 'q' || ch == 'Q')
				return true;
		}
	}
	return false;
}

static int run(struct cli *c)
{
	const char *domain = cli_domain(c);
	double interval = cli_double(c, "interval", 1, 0.05, 3600);
	long iterations = cli_flag(c, "once") ? 1 : cli_long(c, "iterations", 0, 0, 1000000000);
	bool tty = iterations == 0 && isatty(0) && isatty(1);
	struct termios saved;
	if (tty && tcgetattr(0, &saved) == 0) {
		struct termios raw = saved;
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(0, TCSANOW, &raw);
	} else {
		tty = false;
	}
	struct cli_topic *before = NULL;
	int nb = cli_topics(domain, &before), r = CLI_OK;
	if (nb < 0) {
		r = cli_fail(c, nb);
		nb = 0;
	}
	for (long it = 0; r == CLI_OK && !cli_stop && (iterations == 0 || it < iterations); it++) {
		if (wait_key((int64_t)(interval * 1e9), tty))
			break;
		struct cli_topic *now = NULL;
		int n = cli_topics(domain, &now);
		if (n < 0) {
			r = cli_fail(c, n);
			break;
		}
		struct row *rows = calloc((size_t)n + 1, sizeof *rows);
		if (!rows) {
			free(now);
			r = CLI_EFAIL;
			break;
		}
		for (int i = 0; i < n; i++)
			rows[i] = row_of(&now[i], find(before, nb, now[i].name));
		if (c->json)
			print_json(domain, rows, n);
		else
			print_table(domain, rows, n, interval, tty);
		fflush(stdout);
		free(rows);
		free(before);
		before = now;
		nb = n;
	}
	free(before);
	if (tty) {
		tcsetattr(0, TCSANOW, &saved);
		printf("\n");
	}
	return r;
}

static const struct cli_opt opts[] = {
    {"interval", 'i', "SECONDS", "refresh every SECONDS (default 1)"},
    {"once", 0, NULL, "print one snapshot (after one interval) and exit"},
    {"iterations", 'n', "N", "print N snapshots and exit (no terminal control)"},
    {0},
};

const struct cli_cmd cmd_top = {
    .name = "top",
    .args = "",
    .summary = "live view of all topics: rates, bandwidth, fill, drops, refusals (q quits)",
    .details = "BW/s is the rate times the newest message's size (exact for fixed-size messages;\n"
	       "zcast bw measures by receiving). FILL: the fullest subscriber queue. REFUSE/s:\n"
	       "publishes refused by full FULL queues; REFUSING: such subscribers right now.\n",
    .opts = opts,
    .min_pos = 0,
    .max_pos = 0,
    .json = true,
    .run = run,
};
