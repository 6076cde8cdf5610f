/* zcast-bridge: runs the routes of a config file until SIGINT or SIGTERM (docs/BRIDGE.md).
 * Prints one line per route when it becomes active or stands by, and its counters at exit. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <dds/dds.h>

#include "shipped_types.h"
#include "svc_cli.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int usage(void)
{
	fprintf(
	    stderr,
	    "usage: zcast-bridge [--check] <config file>\n"
	    "  --check  parse the file, print the routes and exit\n"
	    "config lines (docs/BRIDGE.md):\n"
	    "  dds_domain <N>\n"
	    "  zcast_domain <name>\n"
	    "  threads <N>   (worker threads for the routes; 0: a thread per route)\n"
	    "  node <name>\n"
	    "  cpu_latency_us <N>   (0..10000 us, held on /dev/cpu_dma_latency; needs root)\n"
	    "  out|in <topic> <pkg/msg/Type> "
	    "reliable|best_effort|default|sensor_data|transient_local\n"
	    "    [depth=N] [history=N] [max_size=N] [slots=N] [catchup=N] [ros_name=/x]\n"
	    "  service <name> <pkg/srv/Type> zcast_to_dds|dds_to_zcast [max_size=N] [pending=N] "
	    "[timeout_ms=N] [parked=N] [ros_name=/x]\n");
	return 2;
}

/* Each route keeps two files open (its claim file, its topic), so a bridge of some hundred routes
 * needs more descriptors than the usual soft limit of 1024 (systemd's services and most shells):
 * it raises its soft limit, at most to the hard one. Beyond that its routes fail, naming why. */
static void raise_fd_limit(size_t routes)
{
	struct rlimit rl;
	rlim_t want = 256 + 4 * (rlim_t)routes;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/* The policies a ROS 2 profile or a bridge route can disagree on, as ROS 2 names them. */
static const char *policy_name(uint32_t id)
{
	switch (id) {
	case DDS_DURABILITY_QOS_POLICY_ID:
		return "DURABILITY";
	case DDS_DEADLINE_QOS_POLICY_ID:
		return "DEADLINE";
	case DDS_LIVELINESS_QOS_POLICY_ID:
		return "LIVELINESS";
	case DDS_RELIABILITY_QOS_POLICY_ID:
		return "RELIABILITY";
	case DDS_DATA_REPRESENTATION_QOS_POLICY_ID:
		return "DATA_REPRESENTATION";
	default:
		return "another policy";
	}
}

static const char *state_name(int s)
{
	static const char *const names[] = {"starting", "standby", "active", "failed"};
	return s >= 0 && s < 4 ? names[s] : "?";
}

int main(int argc, char **argv)
{
	int check = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = 1;
		else if (argv[i][0] == '-' || path)
			return usage();
		else
			path = argv[i];
	}
	if (!path)
		return usage();
	zcast_bridge_config *c = zcast_bridge_config_new();
	char err[512];
	if (!c || zcast_bridge_add_shipped_types(c) < 0) {
		fprintf(stderr, "zcast-bridge: out of memory\n");
		return 1;
	}
	if (zcast_bridge_config_load(c, path, err, sizeof err) < 0) {
		fprintf(stderr, "zcast-bridge: %s\n", err);
		zcast_bridge_config_free(c);
		return 1;
	}
	const zcast_bridge_route *r;
	size_t n = zcast_bridge_config_routes(c, &r);
	if (check) {
		for (size_t i = 0; i < n; i++)
			printf("line %d: %s %s %s %s depth=%u history=%u max_size=%zu\n", r[i].line,
			       r[i].dir == ZCAST_BRIDGE_OUT ? "out" : "in", r[i].topic,
			       r[i].type->name, r[i].reliable ? "reliable" : "best_effort",
			       r[i].depth, r[i].history, r[i].max_size);
		zb_cli_services_check(c);
		if (zcast_bridge_config_cpu_latency(c) >= 0)
			printf("cpu_latency_us %d: held on /dev/cpu_dma_latency while the "
			       "bridge runs\n",
			       zcast_bridge_config_cpu_latency(c));
		zcast_bridge_config_free(c);
		return 0;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	raise_fd_limit(n);
	zcast_bridge *b;
	if (zcast_bridge_start(c, &b, err, sizeof err) < 0) {
		fprintf(stderr, "zcast-bridge: %s\n", err);
		zcast_bridge_config_free(c);
		return 1;
	}
	if (zcast_bridge_config_cpu_latency(c) >= 0) {
		printf("zcast-bridge: cpu_latency_us %d: held on /dev/cpu_dma_latency until exit\n",
		       zcast_bridge_config_cpu_latency(c));
		fflush(stdout);
	}
	/* sized from the config: a literal size would overflow once the route limit grows */
	int *shown = calloc(n ? n : 1, sizeof *shown);
	uint32_t *matched = calloc(n ? n : 1, sizeof *matched);
	uint32_t *refused = calloc(n ? n : 1, sizeof *refused);
	if (!shown || !matched || !refused) {
		fprintf(stderr, "zcast-bridge: out of memory\n");
		free(shown), free(matched), free(refused);
		zcast_bridge_stop(b);
		zcast_bridge_config_free(c);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		shown[i] = ZCAST_BRIDGE_STARTING;
	int failed = 0;
	for (unsigned rounds = 0; !stop && !failed; rounds++) {
		for (size_t i = 0; i < n; i++) {
			zcast_bridge_stat st;
			zcast_bridge_stat_get(b, i, &st);
			if (st.state != shown[i]) {
				printf("zcast-bridge: line %d %s %s: %s\n", r[i].line,
				       r[i].dir == ZCAST_BRIDGE_OUT ? "out" : "in", r[i].topic,
				       state_name(st.state));
				fflush(stdout);
				shown[i] = st.state;
				failed |= st.state == ZCAST_BRIDGE_FAILED;
			}
			if (st.matched != matched[i]) {
				printf("zcast-bridge: line %d %s %s: %u remote %s\n", r[i].line,
				       r[i].dir == ZCAST_BRIDGE_OUT ? "out" : "in", r[i].topic,
				       st.matched,
				       r[i].dir == ZCAST_BRIDGE_OUT ? "reader(s)" : "writer(s)");
				fflush(stdout);
				matched[i] = st.matched;
			}
			/* as ROS 2 warns: a remote endpoint of this topic that will never match
			 * (asked once a second: a status read per route costs as much as the rest)
			 */
			uint32_t nref = refused[i], policy = 0;
			if (rounds % 50 == 0)
				zcast_bridge_refused_get(b, i, &nref, &policy);
			if (nref != refused[i]) {
				printf("zcast-bridge: line %d %s %s: refused %u remote %s so far: "
				       "incompatible QoS (%s)\n",
				       r[i].line, r[i].dir == ZCAST_BRIDGE_OUT ? "out" : "in",
				       r[i].topic, nref,
				       r[i].dir == ZCAST_BRIDGE_OUT ? "reader(s)" : "writer(s)",
				       policy_name(policy));
				fflush(stdout);
				refused[i] = nref;
			}
		}
		failed |= zb_cli_services_poll(b, c);
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		zcast_bridge_stat st;
		zcast_bridge_stat_get(b, i, &st);
		printf("zcast-bridge: line %d %s %s: forwarded %llu, resent %llu, skipped %llu, "
		       "dropped %llu\n",
		       r[i].line, r[i].dir == ZCAST_BRIDGE_OUT ? "out" : "in", r[i].topic,
		       (unsigned long long)st.forwarded, (unsigned long long)st.resent,
		       (unsigned long long)st.skipped, (unsigned long long)st.dropped);
	}
	zb_cli_services_report(b, c);
	free(shown), free(matched), free(refused);
	zcast_bridge_stop(b);
	zcast_bridge_config_free(c);
	return failed ? 1 : 0;
}
