/* The zcast-bridge program's lines about service routes (docs/BRIDGE.md "Services"):
 *   zcast-bridge: line 3 service /add zcast_to_dds: active
 *   zcast-bridge: line 3 service /add zcast_to_dds: 1 remote client(s)
 *   zcast-bridge: line 3 service /add zcast_to_dds: calls 10, answered 10, failed 0, dropped 0 */
#include <stdio.h>

#include "svc_cli.h"

#define ZB_CLI_MAX 64

static const char *dir_name(const zcast_bridge_service *s)
{
	return s->dir == ZCAST_BRIDGE_SVC_TO_DDS ? "zcast_to_dds" : "dds_to_zcast";
}

void zb_cli_services_check(const zcast_bridge_config *c)
{
	const zcast_bridge_service *s;
	size_t n = zcast_bridge_config_services(c, &s);
	for (size_t i = 0; i < n; i++) {
		printf("line %d: service %s %s %s max_size=%zu pending=%u timeout_ms=%u", s[i].line,
		       s[i].name, s[i].type->name, dir_name(&s[i]), s[i].max_size, s[i].pending,
		       s[i].timeout_ms);
		if (s[i].dir == ZCAST_BRIDGE_SVC_TO_DDS)
			printf(" parked=%u", s[i].parked);
		printf("\n");
	}
}

int zb_cli_services_poll(zcast_bridge *b, const zcast_bridge_config *c)
{
	static const char *const states[] = {"starting", "standby", "active", "failed"};
	static int shown[ZB_CLI_MAX];
	static uint32_t matched[ZB_CLI_MAX];
	const zcast_bridge_service *s;
	size_t n = zcast_bridge_config_services(c, &s);
	int failed = 0;
	for (size_t i = 0; i < n && i < ZB_CLI_MAX; i++) {
		zcast_bridge_service_stat st;
		if (zcast_bridge_service_stat_get(b, i, &st) < 0)
			continue;
		if (st.state != shown[i] && st.state >= 0 && st.state < 4)
			printf("zcast-bridge: line %d service %s %s: %s\n", s[i].line, s[i].name,
			       dir_name(&s[i]), states[st.state]);
		if (st.matched != matched[i])
			printf("zcast-bridge: line %d service %s %s: %u remote %s\n", s[i].line,
			       s[i].name, dir_name(&s[i]), st.matched,
			       s[i].dir == ZCAST_BRIDGE_SVC_TO_DDS ? "client(s)" : "server(s)");
		shown[i] = st.state;
		matched[i] = st.matched;
		failed |= st.state == ZCAST_BRIDGE_FAILED;
	}
	fflush(stdout);
	return failed;
}

void zb_cli_services_report(zcast_bridge *b, const zcast_bridge_config *c)
{
	const zcast_bridge_service *s;
	size_t n = zcast_bridge_config_services(c, &s);
	for (size_t i = 0; i < n; i++) {
		zcast_bridge_service_stat st;
		if (zcast_bridge_service_stat_get(b, i, &st) == 0)
			printf("zcast-bridge: line %d service %s %s: calls %llu, answered %llu, "
			       "failed %llu, dropped %llu\n",
			       s[i].line, s[i].name, dir_name(&s[i]), (unsigned long long)st.calls,
			       (unsigned long long)st.answered, (unsigned long long)st.failed,
			       (unsigned long long)st.dropped);
	}
}
