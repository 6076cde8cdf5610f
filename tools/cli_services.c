/* Services as the tool sees them (docs/SERVICES.md "Topics"): a service <name> is the topic
 * <name>/_rq (clients publish requests, servers subscribe in the BALANCE_RR group "servers") and one
 * response topic <name>/_rs/c<id>_<nonce> per client. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

int cli_services(const char *domain, struct cli_service **out)
{
	struct cli_topic *t;
	int n = cli_topics(domain, &t);
	if (n < 0)
		return n;
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
			free(t);
			return ZCAST_ENOMEM;
		}
	}
	free(t);
	*out = v;
	return k;
}
