/* The config file: one route per line, "#" comments, errors name file:line (docs/BRIDGE.md).
 *
 *   dds_domain 0
 *   zcast_domain robot
 *   out /camera/image sensor_msgs/msg/Image reliable history=4 max_size=8M
 *   in  /cmd_vel      std_msgs/msg/String   best_effort depth=1
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "zcast/types.h"

/* The default node name, zcast_bridge_<host>: one bridge per host is one node of its own name in
 * the ROS 2 graph. The host name's characters a node name cannot have become '_'. */
static void default_node_name(char *out, size_t cap)
{
	char host[65] = "";
	int n = snprintf(out, cap, "zcast_bridge");
	if (gethostname(host, sizeof host - 1) != 0 || !host[0])
		return;
	snprintf(out + n, cap - (size_t)n, "_%s", host);
	for (char *p = out + n + 1; *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = '_';
}

zcast_bridge_config *zcast_bridge_config_new(void)
{
	zcast_bridge_config *c = calloc(1, sizeof(zcast_bridge_config));
	if (c) {
		default_node_name(c->node_name, sizeof c->node_name);
		c->threads = -1; /* the default (pool.c) */
		c->cpu_latency_us = -1; /* no request */
	}
	return c;
}

void zcast_bridge_config_free(zcast_bridge_config *c)
{
	free(c);
}

int zcast_bridge_config_add_type(zcast_bridge_config *c, const zcast_cdr_type *type)
{
	if (!type || !type->name || c->n_types == ZB_MAX_TYPES)
		return ZCAST_EINVAL;
	c->types[c->n_types++] = type;
	return 0;
}

size_t zcast_bridge_config_routes(const zcast_bridge_config *c, const zcast_bridge_route **routes)
{
	*routes = c->routes;
	return c->n_routes;
}

int zcast_bridge_config_cpu_latency(const zcast_bridge_config *c)
{
	return c->cpu_latency_us;
}

struct pos {
	const char *name;
	int line;
	char *err;
	size_t errlen;
};

static int fail(const struct pos *p, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ZCAST_EINVAL;
}

/* A count or size: decimal, optional K/M/G suffix (powers of 1024), within [lo, hi]. */
static int number(const struct pos *p, const char *key, const char *s, uint64_t lo, uint64_t hi,
		  uint64_t *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return fail(p, "%s=%s: not a number", key, s);
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end == 'K')
		mul = 1024, end++;
	else if (*end == 'M')
		mul = 1024 * 1024, end++;
	else if (*end == 'G')
		mul = 1024 * 1024 * 1024, end++;
	if (errno || *end || v > hi / mul || v * mul < lo || v * mul > hi)
		return fail(p, "%s=%s: expected a number from %llu to %llu", key, s,
			    (unsigned long long)lo, (unsigned long long)hi);
	*out = v * mul;
	return 0;
}

/* A registered type ("pkg/msg/Name" or "pkg/Name"), else one of the run-time type libraries
 * (include/zcast/types.h): a user's type needs no C and no rebuilt bridge. NULL: zcast_last_error
 * says why (not found on the path searched). */
static const zcast_cdr_type *find_type(const zcast_bridge_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_types; i++)
		if (zcast_type_name_is(c->types[i]->name, name))
			return c->types[i];
	const zcast_cdr_type *t = NULL;
	return zcast_types_find(name, NULL, &t) == 0 ? t : NULL;
}

/* "key=value" options after the QoS word; *seen collects the keys given (each at most once). */
static int route_option(const struct pos *p, zcast_bridge_route *r, char *w, unsigned *seen)
{
	static const char *const keys[] = {"depth", "history", "max_size", "slots", "catchup",
					   "ros_name"};
	char *eq = strchr(w, '=');
	if (!eq)
		return fail(p, "\"%s\": expected key=value (depth, history, max_size, slots, catchup, ros_name)", w);
	*eq = 0;
	for (unsigned k = 0; k < 6; k++)
		if (strcmp(w, keys[k]) == 0 && (*seen & (1u << k)))
			return fail(p, "%s given twice", w);
		else if (strcmp(w, keys[k]) == 0)
			*seen |= 1u << k;
	const char *v = eq + 1;
	uint64_t n;
	int e;
	if (strcmp(w, "depth") == 0) {
		if ((e = number(p, w, v, 1, 1024, &n)) < 0)
			return e;
		r->depth = (uint32_t)n;
	} else if (strcmp(w, "history") == 0) {
		if ((e = number(p, w, v, 0, 64, &n)) < 0)
			return e;
		r->history = (uint32_t)n;
	} else if (strcmp(w, "max_size") == 0) {
		if ((e = number(p, w, v, 64, (uint64_t)1 << 30, &n)) < 0)
			return e;
		r->max_size = (size_t)n;
	} else if (strcmp(w, "ros_name") == 0) {
		if (zcast_topic_name_valid(v) < 0 || strlen(v) >= sizeof r->dds_topic)
			return fail(p, "ros_name=%s: bad topic name (/name/...: letters, digits, _)",
				    v);
		snprintf(r->dds_topic, sizeof r->dds_topic, "%s", v);
	} else if (strcmp(w, "catchup") == 0) {
		if ((e = number(p, w, v, 0, 65536, &n)) < 0)
			return e;
		r->catchup = (uint32_t)n;
	} else if (strcmp(w, "slots") == 0) {
		if ((e = number(p, w, v, 2, 4096, &n)) < 0)
			return e;
		r->slots = (uint32_t)n;
	} else {
		return fail(p, "unknown option \"%s\" (depth, history, max_size, slots, catchup, ros_name)", w);
	}
	return 0;
}

/* The ROS 2 name a route has on DDS (its topic unless ros_name= remaps it). */
static const char *dds_name(const zcast_bridge_route *r)
{
	return r->dds_topic[0] ? r->dds_topic : r->topic;
}

static int route_line(zcast_bridge_config *c, const struct pos *p, char **w, int n)
{
	if (n < 4)
		return fail(p, "expected: in|out <topic> <pkg/msg/Type> reliable|best_effort "
			       "[depth=N] [history=N] [max_size=N] [slots=N] [catchup=N] [ros_name=/x]");
	if (c->n_routes == ZB_MAX_ROUTES)
		return fail(p, "more than %d routes", ZB_MAX_ROUTES);
	zcast_bridge_route *r = &c->routes[c->n_routes];
	memset(r, 0, sizeof *r);
	r->line = p->line;
	r->dir = strcmp(w[0], "out") == 0 ? ZCAST_BRIDGE_OUT : ZCAST_BRIDGE_IN;
	if (zcast_topic_name_valid(w[1]) < 0 || strlen(w[1]) >= sizeof r->topic)
		return fail(p, "bad topic name \"%s\" (/name/...: letters, digits, _)", w[1]);
	snprintf(r->topic, sizeof r->topic, "%s", w[1]);
	for (size_t i = 0; i < c->n_routes; i++)
		if (c->routes[i].dir == r->dir && strcmp(c->routes[i].topic, r->topic) == 0)
			return fail(p, "%s %s repeats line %d", w[0], w[1], c->routes[i].line);
	if (!(r->type = find_type(c, w[2])))
		return fail(p, "unknown type \"%s\" (neither shipped nor in a type library: %s)",
			    w[2], zcast_last_error());
	/* ROS 2's profiles by name: default (reliable, volatile, keep last 10), sensor_data (best
	 * effort, keep last 5), transient_local (reliable, transient local, keep last 1) */
	uint32_t depth = 0, history = 0;
	if (strcmp(w[3], "reliable") == 0 || strcmp(w[3], "default") == 0 ||
	    strcmp(w[3], "transient_local") == 0)
		r->reliable = 1;
	else if (strcmp(w[3], "best_effort") != 0 && strcmp(w[3], "sensor_data") != 0)
		return fail(p,
			    "unknown QoS \"%s\" (reliable, best_effort, default, sensor_data, "
			    "transient_local)",
			    w[3]);
	if (strcmp(w[3], "default") == 0)
		depth = 10;
	else if (strcmp(w[3], "sensor_data") == 0)
		depth = 5;
	else if (strcmp(w[3], "transient_local") == 0)
		history = 1;
	r->depth = depth ? depth : r->reliable ? 16 : 1;
	r->history = history;
	r->max_size = 64 * 1024;
	r->slots = 0;
	unsigned seen = 0;
	for (int i = 4; i < n; i++) {
		int e = route_option(p, r, w[i], &seen);
		if (e < 0)
			return e;
	}
	/* a best-effort writer keeps nothing a reader could ask for again: a catchup there would
	 * promise a resend that never happens */
	if ((seen & (1u << 4)) && !r->reliable && r->catchup)
		return fail(p, "catchup=%u: only a reliable route resends (this one is %s)",
			    r->catchup, w[3]);
	for (size_t i = 0; i < c->n_routes; i++) /* one topic, one type, whatever the direction */
		if (strcmp(c->routes[i].topic, r->topic) == 0 && c->routes[i].type != r->type)
			return fail(p, "%s has type %s on line %d", r->topic,
				    c->routes[i].type->name, c->routes[i].line);
	/* the same on the DDS side, where ros_name= can bring two zcast topics together: one DDS
	 * topic of two types would match neither type's remote endpoints */
	for (size_t i = 0; i < c->n_routes; i++)
		if (strcmp(dds_name(&c->routes[i]), dds_name(r)) == 0 &&
		    c->routes[i].type != r->type)
			return fail(p, "DDS topic rt%s has type %s on line %d", dds_name(r),
				    c->routes[i].type->name, c->routes[i].line);
	/* what a receiving bridge that restarts gets again: 1024 messages, at most ~64 MiB */
	if (!(seen & (1u << 4)) && r->reliable) { /* catchup not given */
		size_t fit = ((size_t)64 << 20) / r->max_size;
		r->catchup = fit > 1024 ? 1024 : fit < 16 ? 16 : (uint32_t)fit;
	}
	if (!r->slots) /* room for the queue, the history and what is being written */
		r->slots = r->depth + r->history + 4;
	/* an in route's zcast pool is slots x max_size of /dev/shm, memory taken at start */
	if (r->dir == ZCAST_BRIDGE_IN && (uint64_t)r->slots * r->max_size > ZB_MAX_POOL)
		return fail(
		    p,
		    "slots x max_size = %u x %zu bytes: an in route's pool is at most 4G of "
		    "/dev/shm (lower depth=, history=, slots= or max_size=)",
		    r->slots, r->max_size);
	c->n_routes++;
	return 0;
}

/* A ROS 2 node name: [A-Za-z_][A-Za-z0-9_]* */
static int node_name_valid(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A line that sets the whole bridge (dds_domain, zcast_domain, threads, node, cpu_latency_us) may
 * come once: a second one would silently win over the first. */
static int once(zcast_bridge_config *c, const struct pos *p, int k, const char *keyword)
{
	if (c->global_line[k])
		return fail(p, "%s given twice (first on line %d)", keyword, c->global_line[k]);
	c->global_line[k] = p->line;
	return 0;
}

/* A line for the whole bridge of one number from 0 to hi ("threads 4"), once per file: k is its
 * global_line slot, hint follows the expected form in the error. */
static int bridge_number(zcast_bridge_config *c, const struct pos *p, char **w, int n, int k,
			 uint64_t hi, const char *hint, uint64_t *out)
{
	if (once(c, p, k, w[0]) < 0)
		return ZCAST_EINVAL;
	if (n != 2)
		return fail(p, "expected: %s <0..%llu>%s", w[0], (unsigned long long)hi, hint);
	return number(p, w[0], w[1], 0, hi, out);
}

static int parse_line(zcast_bridge_config *c, const struct pos *p, char *s)
{
	char *hash = strchr(s, '#');
	if (hash)
		*hash = 0;
	char *w[16];
	int n = 0;
	for (char *t = strtok(s, " \t\r"); t; t = strtok(NULL, " \t\r")) {
		if (n == 16)
			return fail(p, "too many words");
		w[n++] = t;
	}
	if (n == 0)
		return 0;
	uint64_t v;
	int e;
	if (strcmp(w[0], "dds_domain") == 0) {
		if ((e = bridge_number(c, p, w, n, 0, ZB_MAX_DDS_DOMAIN, "", &v)) < 0)
			return e;
		c->dds_domain = (uint32_t)v;
		c->dds_domain_set = 1;
		return 0;
	}
	if (strcmp(w[0], "zcast_domain") == 0) {
		if (once(c, p, 1, "zcast_domain") < 0)
			return ZCAST_EINVAL;
		if (n != 2 || zcast_domain_name_valid(w[1]) < 0)
			return fail(p, "expected: zcast_domain <name> ([A-Za-z0-9_-]{1,32})");
		snprintf(c->zcast_domain, sizeof c->zcast_domain, "%s", w[1]);
		return 0;
	}
	if (strcmp(w[0], "threads") == 0) {
		if ((e = bridge_number(c, p, w, n, 2, ZB_MAX_THREADS, " (0: a thread per route)",
				       &v)) < 0)
			return e;
		c->threads = (int)v;
		return 0;
	}
	if (strcmp(w[0], "node") == 0) {
		if (once(c, p, 3, "node") < 0)
			return ZCAST_EINVAL;
		if (n != 2 || !node_name_valid(w[1]) || strlen(w[1]) >= sizeof c->node_name)
			return fail(p, "expected: node <name> (ROS 2 node name: a letter or _, then "
				       "letters, digits, _)");
		snprintf(c->node_name, sizeof c->node_name, "%s", w[1]);
		return 0;
	}
	if (strcmp(w[0], "cpu_latency_us") == 0) { /* cpu_latency.c */
		if ((e = bridge_number(c, p, w, n, 4, ZB_MAX_CPU_LATENCY_US, "", &v)) < 0)
			return e;
		c->cpu_latency_us = (int)v;
		return 0;
	}
	if (strcmp(w[0], "in") == 0 || strcmp(w[0], "out") == 0)
		return route_line(c, p, w, n);
	char why[400];
	if (strcmp(w[0], "service") == 0) /* svc_config.c */
		return zb_svc_config_line(c, w, n, p->line, why, sizeof why) < 0 ? fail(p, "%s", why)
										  : 0;
	return fail(p,
		    "unknown keyword \"%s\" (in, out, service, dds_domain, zcast_domain, node, "
		    "threads, cpu_latency_us)",
		    w[0]);
}

/* Parses len bytes of text: a NUL byte inside is an error, not the end of the file. */
static int parse_text(zcast_bridge_config *c, const char *name, const char *text, size_t len,
		      char *err, size_t errlen)
{
	struct pos p = {name, 1, err, errlen};
	const char *nul = memchr(text, 0, len);
	if (nul) {
		for (const char *q = text; q < nul; q++)
			p.line += *q == '\n';
		return fail(&p, "NUL byte (not a text file?)");
	}
	p.line = 0;
	const char *s = text;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char line[1024];
		p.line++;
		if (n >= sizeof line)
			return fail(&p, "line longer than %zu bytes", sizeof line - 1);
		memcpy(line, s, n);
		line[n] = 0;
		int e = parse_line(c, &p, line);
		if (e < 0)
			return e;
		s += n + (nl ? 1 : 0);
	}
	if (c->n_routes == 0 && c->n_services == 0) {
		p.line++;
		return fail(&p, "no routes (add a line: out|in <topic> <type> reliable|best_effort, or "
				"service <name> <pkg/srv/Type> zcast_to_dds|dds_to_zcast)");
	}
	return 0;
}

int zcast_bridge_config_parse(zcast_bridge_config *c, const char *name, const char *text, char *err,
			      size_t errlen)
{
	return parse_text(c, name, text, strlen(text), err, errlen);
}

int zcast_bridge_config_load(zcast_bridge_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ZCAST_EINVAL;
	}
	char *text = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = len + 65536);
			if (!t) {
				free(text), fclose(f);
				return ZCAST_ENOMEM;
			}
			text = t;
		}
		size_t k = fread(text + len, 1, 4096, f);
		len += k;
		if (k < 4096)
			break;
	}
	int rerr = ferror(f) ? errno : 0;
	fclose(f);
	text[len] = 0;
	if (rerr) {
		snprintf(err, errlen, "%s: %s", path, strerror(rerr));
		free(text);
		return ZCAST_EINVAL;
	}
	int e = parse_text(c, path, text, len, err, errlen);
	free(text);
	uint32_t d;
	if (e == 0 && !c->dds_domain_set && zb_ros_domain_id(&d, err, errlen) < 0)
		e = ZCAST_EINVAL;
	return e;
}

int zb_ros_domain_id(uint32_t *d, char *err, size_t errlen)
{
	const char *e = getenv("ROS_DOMAIN_ID");
	*d = 0;
	if (!e || !*e) /* ROS 2: unset or empty is domain 0 */
		return 0;
	char *end;
	errno = 0;
	/* base 0 as rcl: 010 is 8 there too, so both sides agree on the domain */
	unsigned long v = isdigit((unsigned char)*e) ? strtoul(e, &end, 0) : 0;
	if (!isdigit((unsigned char)*e) || errno || *end || v > ZB_MAX_DDS_DOMAIN) {
		snprintf(err, errlen,
			 "ROS_DOMAIN_ID=\"%.40s\": expected a number from 0 to %d (as ROS 2)", e,
			 ZB_MAX_DDS_DOMAIN);
		return ZCAST_EINVAL;
	}
	*d = (uint32_t)v;
	return 0;
}
