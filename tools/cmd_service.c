/* zcast service list | info NAME | call NAME TYPE [VALUES]: the services of a domain, one
 * service's servers, clients and pending calls, and a call with a typed request given as YAML flow
 * values (as `zcast pub` takes them), printing the typed response. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zcast/typed_service.h>
#include <zcast/types.h>

#include "cli.h"
#include "typed_print.h"
#include "typed_values.h"
static int list(struct cli *c)
{
	struct cli_service *v;
	int n = cli_services(cli_domain(c), &v);
	if (n < 0)
		return cli_fail(c, n);
	if (c->json)
		printf("[");
	else
		cli_row("%-32s %-28s %7s %7s %7s\n", "SERVICE", "TYPE", "SERVERS", "CLIENTS",
			"PENDING");
	for (int i = 0; i < n; i++) {
		if (c->json) {
			printf("%s{", i ? "," : "");
			cli_service_json(stdout, &v[i]);
			printf("}");
			continue;
		}
		const char *type = v[i].rq.st.type_name[0] ? v[i].rq.st.type_name : "(untyped)";
		cli_row("%-32s %-28s %7u %7u %7" PRIu64 "\n", cli_safe(v[i].name), cli_safe((char *)type),
			v[i].servers, v[i].clients, v[i].pending);
	}
	if (c->json)
		printf("]\n");
	free(v);
	return CLI_OK;
}

struct members {
	int n;
	bool json;
};

/* One live member of the request topic: a server (subscriber) or a client (publisher). */
static int member(const zcast_member_info *m, void *ctx)
{
	struct members *ms = ctx;
	if (m->role == ZCAST_ROLE_TOOL || !m->alive)
		return 0;
	char comm[64];
	cli_proc_name(m->pid, comm, sizeof comm);
	bool server = m->role == ZCAST_ROLE_SUBSCRIBER;
	uint32_t pending = server ? m->queued + m->held : m->slots_published;
	if (ms->json) {
		printf("%s{\"role\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%d,\"process\":",
		       ms->n ? "," : "", server ? "server" : "client", m->id, (int)m->pid);
		cli_json_str(stdout, comm);
		printf(",\"pending\":%u}", pending);
	} else {
		cli_row("  %-7s id %-6" PRIu64 " pid %-7d %-16s %s %u\n", server ? "server" : "client",
			m->id, (int)m->pid, comm, server ? "queued+taken" : "pending", pending);
	}
	ms->n++;
	return 0;
}

static int info(struct cli *c)
{
	if (c->npos != 2)
		return cli_usage_error(c, "info NAME: one service name");
	if (zcast_topic_name_valid(c->pos[1]) != 0)
		return cli_usage_error(c, "NAME: '%s' is not a valid service name", c->pos[1]);
	char rq[512];
	snprintf(rq, sizeof rq, "%s/_rq", c->pos[1]);
	struct cli_topic t;
	int r = cli_topic_read(cli_domain(c), rq, &t);
	if (r == ZCAST_ENOENT || (r == 0 && t.err == ZCAST_ENOENT)) {
		fprintf(stderr, "zcast service: no service %s\n", c->pos[1]);
		return CLI_ENOTOPIC;
	}
	if (r < 0 || t.err)
		return cli_fail(c, r < 0 ? r : t.err);
	struct cli_service s = {.rq = t, .servers = t.live_subs, .clients = t.live_pubs,
				.pending = t.st.slots_published};
	snprintf(s.name, sizeof s.name, "%s", c->pos[1]);
	struct members ms = {0, c->json};
	if (c->json) {
		printf("{");
		cli_service_json(stdout, &s);
		printf(",\"members\":[");
	} else {
		printf("service: %s\ntype:    %s %s\nservers: %u\nclients: %u\npending: %" PRIu64
		       " (requests queued at servers or taken and not yet released)\n",
		       cli_safe(s.name), t.st.type_name[0] ? cli_safe(t.st.type_name) : "(untyped)",
		       t.type_hash, s.servers, s.clients, s.pending);
	}
	r = zcast_topic_members(cli_domain(c), rq, member, &ms);
	if (c->json)
		printf("]}\n");
	return r < 0 ? cli_fail(c, r) : CLI_OK;
}

/* Sends the request payload (req_len bytes at data) and prints the response. */
static int call_with(struct cli *c, const zcast_service_type *s, const uint8_t *data, size_t len)
{
	double timeout = cli_double(c, "timeout", 5, 0, 1e6);
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.domain = cli_domain(c);
	o.request_size = len;
	o.slot_count = 1;
	zcast_typed_service_opts(&o, s);
	zcast_client *cli;
	zcast_msg *req, *resp;
	int e = zcast_client_open(c->pos[1], &o, &cli);
	if (e < 0)
		return cli_fail(c, e);
	if ((e = zcast_request_loan(cli, len, &req)) == 0) {
		memcpy(zcast_service_data(req), data, len);
		e = zcast_client_call(cli, req, (int64_t)(timeout * 1e9), &resp); /* consumes req */
	}
	if (e == 0) {
		e = zt_print_payload(s->response, zcast_service_data(resp), zcast_service_size(resp),
				     stdout, NULL);
		zcast_msg_drop(resp);
	}
	int r = e == ZCAST_ETIMEDOUT ? (fprintf(stderr, "zcast service: no response within %gs\n",
						timeout), CLI_ETIMEOUT)
		: e < 0 ? cli_fail(c, e) : CLI_OK;
	zcast_client_close(cli);
	return r;
}

static int call(struct cli *c)
{
	if (c->npos < 3)
		return cli_usage_error(c, "call NAME TYPE [VALUES]: NAME and TYPE are required");
	if (zcast_topic_name_valid(c->pos[1]) != 0)
		return cli_usage_error(c, "NAME: '%s' is not a valid service name", c->pos[1]);
	const zcast_service_type *s;
	if (cli_service_type_named(c->pos[2], &s) < 0)
		return cli_usage_error(c, "TYPE: %s is not a service type zcast knows (%s)",
				       c->pos[2], cli_error_text());
	char err[512];
	uint8_t *data;
	size_t len;
	if (zt_values_serialize(s->request, c->npos > 3 ? c->pos[3] : "", &data, &len, err,
				sizeof err) < 0)
		return cli_usage_error(c, "VALUES: %s", err);
	int r = call_with(c, s, data, len);
	free(data);
	return r;
}

static int run(struct cli *c)
{
	const char *sub = c->pos[0];
	if (!strcmp(sub, "list"))
		return c->npos == 1 ? list(c) : cli_usage_error(c, "list takes no arguments");
	if (!strcmp(sub, "info"))
		return info(c);
	if (!strcmp(sub, "call"))
		return call(c);
	return cli_usage_error(c, "'%s': expected list, info or call", sub);
}

static const struct cli_opt opts[] = {
    {"timeout", 't', "SECONDS", "call: wait this long for a server and its response (default 5)"},
    {0},
};

const struct cli_cmd cmd_service = {
    .name = "service",
    .args = "list | info NAME | call NAME TYPE [VALUES]",
    .summary = "list services, show one's servers, clients and pending calls, call one",
    .details =
	"call: TYPE is a service type (pkg/srv/Name or pkg/Name, shipped or from a type library\n"
	"on $ZCAST_TYPE_PATH); VALUES the request in YAML flow style as ros2 service call takes\n"
	"it: '{data: true}'; members not given keep their defaults. The response is printed\n"
	"member by member. A server of another service type refuses the call (exit 1).\n",
    .opts = opts,
    .min_pos = 1,
    .max_pos = 4,
    .json = true,
    .run = run,
};
