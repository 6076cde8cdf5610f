/* zcast top: a live view of every topic of a domain (rate, bandwidth, queue fill, drops, refusals)
 * and of its services (calls/s, pending calls, servers, clients),
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

/* A service's row: calls/s is the rate of its request topic. */
struct svc_row {
	const struct cli_service *s;
	double calls;
};

static void print_services_json(const struct svc_row *v, int n)
{
	printf(",\"services\":[");
	for (int i = 0; i < n; i++) {
		printf("%s{", i ? "," : "");
		cli_service_json(stdout, v[i].s);
		printf(",\"calls_per_s\":%.3f}", v[i].calls);
	}
	printf("]");
}

static void print_services_table(const struct svc_row *v, int n)
{
	if (n)
		printf("\n%-28s %-28s %10s %7s %7s %7s %s\n", "SERVICE", "TYPE", "CALLS/s", "PENDING",
		       "SERVERS", "CLIENTS", "NOTE");
	for (int i = 0; i < n; i++) {
		const struct cli_service *s = v[i].s;
		char name[256], type[64];
		cli_safe_copy(s->name, name, sizeof name);
		cli_safe_copy(s->rq.st.type_name[0] ? s->rq.st.type_name : "(untyped)", type,
			      sizeof type);
		cli_row("%-28s %-28s %10.1f %7llu %7u %7u %s\n", name, type, v[i].calls,
			(unsigned long long)s->pending, s->servers, s->clients,
			s->clients && !s->servers ? "no server" : "");
	}
}

static void print_json(const char *domain, const struct row *rows, int n, const struct svc_row *sv,
		       int ns)
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
	printf("]");
	print_services_json(sv, ns);
	printf("}\n");
}

static void print_table(const char *domain, const struct row *rows, int n, const struct svc_row *sv,
			int ns, double interval, bool tty)
{
	if (tty)
		printf("\033[H\033[2J"); /* home, clear */
	printf("zcast top - domain %s - %d topic%s, %d service%s - every %.1f s%s\n\n", domain, n,
	       n == 1 ? "" : "s", ns, ns == 1 ? "" : "s", interval, tty ? " - q quits" : "");
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
	print_services_table(sv, ns);
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

/* One snapshot: topics (without those services are made of, unless --all), then services. */
static int show(const struct cli *c, const struct cli_topic *now, int n,
		const struct cli_topic *before, int nb, double interval, bool tty)
{
	struct cli_service *sv = NULL;
	int ns = cli_services_of(now, n, &sv);
	struct row *rows = calloc((size_t)n + 1, sizeof *rows);
	struct svc_row *srows = calloc((size_t)(ns > 0 ? ns : 0) + 1, sizeof *srows);
	if (ns < 0 || !rows || !srows) {
		free(sv);
		free(rows);
		free(srows);
		return CLI_EFAIL;
	}
	bool all = cli_flag(c, "all");
	char service[256];
	int k = 0;
	for (int i = 0; i < n; i++)
		if (all || !cli_service_part(now[i].name, service, sizeof service))
			rows[k++] = row_of(&now[i], find(before, nb, now[i].name));
	for (int i = 0; i < ns; i++) {
		srows[i].s = &sv[i];
		srows[i].calls = row_of(&sv[i].rq, find(before, nb, sv[i].rq.name)).rate;
	}
	if (c->json)
		print_json(cli_domain(c), rows, k, srows, ns);
	else
		print_table(cli_domain(c), rows, k, srows, ns, interval, tty);
	fflush(stdout);
	free(rows);
	free(srows);
	free(sv);
	return CLI_OK;
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
		r = show(c, now, n, before, nb, interval, tty);
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
    {"all", 'a', NULL, "also show the topics services are made of (<service>/_rq, _rs/...)"},
    {"interval", 'i', "SECONDS", "refresh every SECONDS (default 1)"},
    {"once", 0, NULL, "print one snapshot (after one interval) and exit"},
    {"iterations", 'n', "N", "print N snapshots and exit (no terminal control)"},
    {0},
};

const struct cli_cmd cmd_top = {
    .name = "top",
    .args = "",
    .summary = "live view of topics (rate, bandwidth, fill, drops) and services (q quits)",
    .details = "BW/s is the rate times the newest message's size (exact for fixed-size messages;\n"
	       "zcast bw measures by receiving). FILL: the fullest subscriber queue. REFUSE/s:\n"
	       "publishes refused by full FULL queues; REFUSING: such subscribers right now.\n"
	       "Services follow: CALLS/s (requests sent), PENDING (requests queued at servers or\n"
	       "taken and not released), SERVERS, CLIENTS; their own topics are shown with --all.\n",
    .opts = opts,
    .min_pos = 0,
    .max_pos = 0,
    .json = true,
    .run = run,
};
