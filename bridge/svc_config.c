/* "service" config lines (docs/BRIDGE.md "Services"):
 *
 *   service /add example_interfaces/srv/AddTwoInts zcast_to_dds
 *   service /set std_srvs/srv/SetBool dds_to_zcast timeout_ms=2000 pending=32
 *
 * zcast_to_dds: a zcast server of the name is called by DDS / ROS 2 clients; dds_to_zcast: a DDS /
 * ROS 2 server is called by zcast clients. Types: registered ones (the program registers every
 * service zcast ships), else the run-time type libraries' (zcast_services_find). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "zcast/service.h"
#include "zcast/types.h"

int zcast_bridge_config_add_service_type(zcast_bridge_config *c, const zcast_service_type *type)
{
	if (!type || !type->name || !type->request || !type->response ||
	    c->n_svc_types == ZB_MAX_TYPES)
		return ZCAST_EINVAL;
	c->svc_types[c->n_svc_types++] = type;
	return 0;
}

size_t zcast_bridge_config_services(const zcast_bridge_config *c,
				    const zcast_bridge_service **services)
{
	*services = c->services;
	return c->n_services;
}

static int why_fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return ZCAST_EINVAL;
}

static const zcast_service_type *find_service_type(const zcast_bridge_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_svc_types; i++)
		if (zcast_service_name_is(c->svc_types[i]->name, name))
			return c->svc_types[i];
	const zcast_service_type *t = NULL;
	return zcast_services_find(name, NULL, &t) == 0 ? t : NULL;
}

/* The ROS 2 name a service has on DDS (its name unless ros_name= remaps it). */
static const char *dds_name(const zcast_bridge_service *s)
{
	return s->dds_name[0] ? s->dds_name : s->name;
}

/* A decimal in [lo, hi], with an optional K or M suffix (powers of 1024). */
static int option_number(const char *key, const char *v, unsigned long lo, unsigned long hi,
			 unsigned long *out, char *why, size_t cap)
{
	char *end;
	errno = 0;
	unsigned long n = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
	unsigned long mul = 1;
	if (v[0] >= '0' && v[0] <= '9' && (*end == 'K' || *end == 'M'))
		mul = *end++ == 'K' ? 1024 : 1024 * 1024;
	if (v[0] < '0' || v[0] > '9' || errno || *end || n > hi / mul || n * mul < lo)
		return why_fail(why, cap, "%s=%s: expected a number from %lu to %lu", key, v, lo, hi);
	*out = n * mul;
	return 0;
}

static int service_option(zcast_bridge_service *s, char *w, unsigned *seen, char *why, size_t cap)
{
	static const char *const keys[] = {"max_size", "pending", "timeout_ms", "parked", "ros_name"};
	char *eq = strchr(w, '=');
	unsigned k = 0;
	if (eq)
		*eq = 0;
	while (k < 5 && strcmp(w, keys[k]) != 0)
		k++;
	if (!eq || k == 5)
		return why_fail(why, cap, "\"%s\": expected max_size=, pending=, timeout_ms=, parked= "
				"or ros_name=", w);
	if (*seen & (1u << k))
		return why_fail(why, cap, "%s given twice", w);
	*seen |= 1u << k;
	const char *v = eq + 1;
	unsigned long n = 0;
	if (k == 4) {
		if (zcast_topic_name_valid(v) < 0 || strlen(v) > ZCAST_SERVICE_NAME_MAX)
			return why_fail(why, cap, "ros_name=%s: bad service name", v);
		snprintf(s->dds_name, sizeof s->dds_name, "%s", v);
		return 0;
	}
	static const unsigned long lo[] = {64, 1, 1, 1}, hi[] = {64ul << 20, 1024, 3600000, 4096};
	int e = option_number(w, v, lo[k], hi[k], &n, why, cap);
	if (e < 0)
		return e;
	if (k == 0)
		s->max_size = n;
	else if (k == 1)
		s->pending = (uint32_t)n;
	else if (k == 2)
		s->timeout_ms = (uint32_t)n;
	else
		s->parked = (uint32_t)n;
	return 0;
}

int zb_svc_config_line(zcast_bridge_config *c, char **w, int n, int line, char *why, size_t cap)
{
	if (n < 4)
		return why_fail(why, cap,
				"expected: service <name> <pkg/srv/Type> zcast_to_dds|dds_to_zcast "
				"[max_size=N] [pending=N] [timeout_ms=N] [parked=N] [ros_name=/x]");
	if (c->n_services == ZB_MAX_SERVICES)
		return why_fail(why, cap, "more than %d services", ZB_MAX_SERVICES);
	zcast_bridge_service *s = &c->services[c->n_services];
	memset(s, 0, sizeof *s);
	s->line = line;
	if (zcast_topic_name_valid(w[1]) < 0 || strlen(w[1]) > ZCAST_SERVICE_NAME_MAX)
		return why_fail(why, cap, "bad service name \"%s\" (/name/...: letters, digits, _)",
				w[1]);
	snprintf(s->name, sizeof s->name, "%s", w[1]);
	for (size_t i = 0; i < c->n_services; i++)
		if (strcmp(c->services[i].name, s->name) == 0)
			return why_fail(why, cap, "service %s repeats line %d", s->name,
					c->services[i].line);
	if (!(s->type = find_service_type(c, w[2])))
		return why_fail(why, cap, "unknown service type \"%s\" (neither shipped nor in a type "
				"library: %s)", w[2], zcast_last_error());
	if (strcmp(w[3], "zcast_to_dds") == 0)
		s->dir = ZCAST_BRIDGE_SVC_TO_DDS;
	else if (strcmp(w[3], "dds_to_zcast") == 0)
		s->dir = ZCAST_BRIDGE_SVC_FROM_DDS;
	else
		return why_fail(why, cap, "unknown direction \"%s\" (zcast_to_dds, dds_to_zcast)",
				w[3]);
	s->max_size = 64 * 1024;
	s->pending = 8; /* a zcast server answers 8 calls of one client at once by default (slot_count) */
	s->timeout_ms = 10000;
	/* Replies wait for a reader only while a new client's discovery lags its first request: a
	 * burst of new clients (one call each as soon as they see the service) can park one each. */
	s->parked = 256;
	unsigned seen = 0;
	for (int i = 4; i < n; i++) {
		int e = service_option(s, w[i], &seen, why, cap);
		if (e < 0)
			return e;
	}
	if (s->dir == ZCAST_BRIDGE_SVC_FROM_DDS && (seen & (1u << 3)))
		return why_fail(why, cap, "parked= is for zcast_to_dds (replies to DDS clients)");
	/* the bridge's zcast client has 2 x pending calls (svc_to_dds.c), a client at most 512 */
	if (s->dir == ZCAST_BRIDGE_SVC_TO_DDS && s->pending > 256)
		return why_fail(why, cap, "pending=%u: at most 256 for zcast_to_dds", s->pending);
	/* one line per DDS name too: two servers of one name answer each DDS call twice */
	for (size_t i = 0; i < c->n_services; i++)
		if (strcmp(dds_name(&c->services[i]), dds_name(s)) == 0)
			return why_fail(why, cap, "DDS service %s is also on line %d", dds_name(s),
					c->services[i].line);
	c->n_services++;
	return 0;
}
