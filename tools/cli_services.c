/* Services as the tool sees them (docs/SERVICES.md "Topics"): a service <name> is the topic
 * <name>/_rq (clients publish requests, servers subscribe in the BALANCE_RR group "servers") and one
 * response topic <name>/_rs/c<id>_<nonce> per client. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zcast/types.h>

#include "cli.h"
#include "zcast_shipped_types.h" /* ZCAST_SHIPPED_SERVICES (tools/msggen/shipped_types.py) */

#define RQ "/_rq"
#define RS "/_rs/c"

const char *cli_service_part(const char *topic, char *service, size_t n)
{
	size_t len = strlen(topic);
	const char *rs = strstr(topic, RS);
	const char *part = NULL;
	if (len > strlen(RQ) && !strcmp(topic + len - strlen(RQ), RQ))
		part = "requests", len -= strlen(RQ);
	else if (rs && rs > topic && !strchr(rs + strlen(RS), '/'))
		part = "responses", len = (size_t)(rs - topic);
	if (part && len < n) {
		memcpy(service, topic, len);
		service[len] = 0;
		return part;
	}
	return NULL;
}

int cli_services_of(const struct cli_topic *t, int n, struct cli_service **out)
{
	struct cli_service *v = NULL;
	int k = 0, cap = 0;
	for (int i = 0; i < n; i++) {
		struct cli_service s = {0};
		const char *part = cli_service_part(t[i].name, s.name, sizeof s.name);
		if (!part || strcmp(part, "requests") || t[i].err)
			continue;
		s.rq = t[i];
		s.servers = t[i].live_subs;
		s.clients = t[i].live_pubs;
		s.pending = t[i].st.slots_published;
		if (!cli_append((void **)&v, &k, &cap, &s, sizeof s)) {
			free(v);
			return ZCAST_ENOMEM;
		}
	}
	*out = v;
	return k;
}

int cli_services(const char *domain, struct cli_service **out)
{
	struct cli_topic *t;
	int n = cli_topics(domain, &t);
	if (n < 0)
		return n;
	n = cli_services_of(t, n, out);
	free(t);
	return n;
}

static const zcast_service_type *const shipped[] = {ZCAST_SHIPPED_SERVICES};

int cli_service_type_named(const char *name, const zcast_service_type **out)
{
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
		if (zcast_service_name_is(shipped[i]->name, name)) {
			*out = shipped[i];
			return 0;
		}
	return zcast_services_find(name, NULL, out);
}

void cli_service_json(FILE *f, const struct cli_service *s)
{
	fprintf(f, "\"service\":");
	cli_json_str(f, s->name);
	fprintf(f, ",\"type\":");
	cli_json_str(f, s->rq.st.type_name);
	fprintf(f, ",\"type_hash\":\"%s\",\"servers\":%u,\"clients\":%u,\"pending\":%" PRIu64,
		s->rq.type_hash, s->servers, s->clients, s->pending);
}
