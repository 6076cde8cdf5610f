/* zcast list: topics of a domain with type, members and rate, then its services (their own topics
 * only with --all); --domains: the domains in use. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <zcast/types.h>

#include "cli.h"

struct domain_count {
	char name[40];
	int topics;
};

/* Domains are the <domain> of /dev/shm/zcast.<domain>.<topic> (a domain has no '.'). */
static int list_domains(const struct cli *c)
{
	DIR *d = opendir("/dev/shm");
	if (!d) {
		perror("zcast list: /dev/shm");
		return CLI_EFAIL;
	}
	struct domain_count v[256];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "zcast.", 6) != 0)
			continue;
		const char *dom = e->d_name + 6, *dot = strchr(dom, '.');
		if (!dot || dot - dom >= (long)sizeof v[0].name)
			continue;
		char name[40];
		snprintf(name, sizeof name, "%.*s", (int)(dot - dom), dom);
		if (zcast_domain_name_valid(name) != 0)
			continue;
		int i = 0;
		while (i < n && strcmp(v[i].name, name) != 0)
			i++;
		if (i == n) {
			if (n == (int)(sizeof v / sizeof v[0]))
				continue;
			snprintf(v[n].name, sizeof v[n].name, "%s", name);
			v[n++].topics = 0;
		}
		v[i].topics += dot[1] != '@'; /* pool segments are not topics */
	}
	closedir(d);
	if (c->json)
		printf("[");
	for (int i = 0; i < n; i++) {
		if (c->json) {
			printf("%s{\"domain\":", i ? "," : "");
			cli_json_str(stdout, v[i].name);
			printf(",\"topics\":%d}", v[i].topics);
		} else {
			printf("%-34s %d topic%s\n", v[i].name, v[i].topics,
			       v[i].topics == 1 ? "" : "s");
		}
	}
	if (c->json)
		printf("]\n");
	return CLI_OK;
}

static void print_json(const struct cli_topic *t, const struct cli_topic *later, double rate)
{
	printf("{\"topic\":");
	cli_json_str(stdout, t->name);
	char service[256];
	const char *part = cli_service_part(t->name, service, sizeof service);
	if (part) { /* a topic of a service (zcast service list) */
		printf(",\"service\":");
		cli_json_str(stdout, service);
		printf(",\"service_part\":\"%s\"", part);
	}
	if (t->err) {
		printf(",\"error\":");
		cli_json_str(stdout, zcast_strerror(t->err));
		printf("}");
		return;
	}
	printf(",\"type\":");
	cli_json_str(stdout, later->st.type_name);
	printf(",\"type_hash\":\"%s\",\"publishers\":%u,\"subscribers\":%u,\"dead_members\":%u,"
	       "\"no_publisher\":%s,\"retained\":%s,\"rate_hz\":",
	       later->type_hash, later->live_pubs, later->live_subs, later->dead,
	       later->live_pubs ? "false" : "true", later->st.retain ? "true" : "false");
	if (rate < 0)
		printf("null}");
	else
		printf("%.3f}", rate);
}

static void print_text(const struct cli_topic *t, const struct cli_topic *later, double rate, int w)
{
	if (t->err) {
		printf("%-*s  (%s)\n", w, t->name, zcast_strerror(t->err));
		return;
	}
	char r[32] = "-";
	if (rate >= 0)
		snprintf(r, sizeof r, "%.1f", rate);
	const char *type = later->st.type_name[0] ? later->st.type_name : "(untyped)";
	cli_row("%-*s  %-20s %4u %4u %9s  %s%s%s\n", w, t->name, type, later->live_pubs,
		later->live_subs, r, later->live_pubs ? "" : "NO PUBLISHER ",
		later->dead ? "DEAD MEMBERS " : "", later->st.retain ? "retained" : "");
}

/* Keeps the topics whose type is `type` ("pkg/msg/Name" or "pkg/Name"), in order; returns how many. */
static int keep_type(struct cli_topic *a, int n, const char *type)
{
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (!a[i].err && zcast_type_name_is(a[i].st.type_name, type))
			a[kept++] = a[i];
	return kept;
}

/* The same for services ("pkg/srv/Name" or "pkg/Name"). */
static int keep_service_type(struct cli_service *v, int n, const char *type)
{
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (zcast_service_name_is(v[i].rq.st.type_name, type))
			v[kept++] = v[i];
	return kept;
}

/* Drops the topics a service is made of (shown as their service; --all keeps them). */
static int drop_service_topics(struct cli_topic *a, int n)
{
	int kept = 0;
	char service[256];
	for (int i = 0; i < n; i++)
		if (!cli_service_part(a[i].name, service, sizeof service))
			a[kept++] = a[i];
	return kept;
}

static void print_services(const struct cli *c, const struct cli_service *v, int n)
{
	if (c->json) {
		printf("],\"services\":[");
		for (int i = 0; i < n; i++) {
			printf("%s{", i ? "," : "");
			cli_service_json(stdout, &v[i]);
			printf(",\"no_server\":%s}", v[i].clients && !v[i].servers ? "true" : "false");
		}
		printf("]}\n");
		return;
	}
	if (n) {
		printf("\n");
		cli_row("%-32s %-28s %7s %7s  %s\n", "SERVICE", "TYPE", "SERVERS", "CLIENTS", "FLAGS");
	}
	for (int i = 0; i < n; i++) {
		char name[256], type[64];
		cli_safe_copy(v[i].name, name, sizeof name);
		cli_safe_copy(v[i].rq.st.type_name[0] ? v[i].rq.st.type_name : "(untyped)", type,
			      sizeof type);
		cli_row("%-32s %-28s %7u %7u  %s\n", name, type, v[i].servers, v[i].clients,
			v[i].clients && !v[i].servers ? "NO SERVER" : "");
	}
}

static void print_topics(const struct cli *c, const struct cli_topic *a, const struct cli_topic *b,
			 int n, double window)
{
	int w = 24;
	for (int i = 0; i < n; i++)
		if ((int)strlen(a[i].name) > w)
			w = (int)strlen(a[i].name);
	if (c->json) {
		printf("{\"domain\":");
		cli_json_str(stdout, cli_domain(c));
		printf(",\"topics\":[");
	} else {
		cli_row("%-*s  %-20s %4s %4s %9s  %s\n", w, "TOPIC", "TYPE", "PUBS", "SUBS",
			"RATE(Hz)", "FLAGS");
	}
	for (int i = 0; i < n; i++) {
		const struct cli_topic *later = b[i].err ? &a[i] : &b[i];
		double rate = window > 0 && !b[i].err
				  ? cli_rate(a[i].st.last_sequence, b[i].st.last_sequence,
					     b[i].when_ns - a[i].when_ns)
				  : -1;
		if (c->json) {
			printf("%s", i ? "," : "");
			print_json(&a[i], later, rate);
		} else {
			print_text(&a[i], later, rate, w);
		}
	}
}

static int run(struct cli *c)
{
	if (cli_flag(c, "domains"))
		return list_domains(c);
	const char *type = cli_str(c, "type", NULL);
	if (type && !strchr(type, '/'))
		return cli_usage_error(c, "--type: '%s' is not pkg/msg/Name or pkg/Name", type);
	double window = cli_double(c, "window", 0.5, 0, 60);
	const char *domain = cli_domain(c);
	struct cli_topic *a = NULL, *b = NULL;
	struct cli_service *sv = NULL;
	int n = cli_topics(domain, &a);
	if (n < 0)
		return cli_fail(c, n);
	int ns = cli_services_of(a, n, &sv);
	/* The rate is the sequence advance over the window, read again for the same names. */
	b = calloc((size_t)n + 1, sizeof *b);
	if (!b || ns < 0) {
		free(a);
		free(b);
		return CLI_EFAIL;
	}
	if (!cli_flag(c, "all"))
		n = drop_service_topics(a, n);
	if (type) {
		n = keep_type(a, n, type);
		ns = keep_service_type(sv, ns, type);
	}
	if (window > 0 && n > 0)
		cli_sleep_ns((int64_t)(window * 1e9));
	for (int i = 0; i < n; i++)
		if (window > 0 && !a[i].err)
			cli_topic_read(domain, a[i].name, &b[i]);
		else
			b[i] = a[i];
	print_topics(c, a, b, n, window);
	print_services(c, sv, ns);
	free(a);
	free(b);
	free(sv);
	return CLI_OK;
}

static const struct cli_opt opts[] = {
    {"all", 'a', NULL, "also list the topics services are made of (<service>/_rq, _rs/...)"},
    {"domains", 0, NULL, "list the domains in use (with their topic counts) instead"},
    {"type", 't', "TYPE", "only the topics of this type (pkg/msg/Name or pkg/Name)"},
    {"window", 'w', "SECONDS", "measure rates over this long (default 0.5; 0: no rates)"},
    {0},
};

const struct cli_cmd cmd_list = {
    .name = "list",
    .args = "",
    .summary = "list the topics and services of a domain: type, members, rate",
    .details = "FLAGS: NO PUBLISHER marks a topic nobody publishes on (a subscriber created it: a\n"
	       "misspelled name?); DEAD MEMBERS: crashed members not yet reclaimed (zcast gc).\n"
	       "Services follow, one line each (servers, clients; NO SERVER: clients wait for\n"
	       "one); the topics a service is made of are listed with --all. --json gives\n"
	       "{\"domain\", \"topics\": [...], \"services\": [...]}.\n",
    .opts = opts,
    .min_pos = 0,
    .max_pos = 0,
    .json = true,
    .run = run,
};
