/* rosbag2's offered_qos_profiles, read for what a replay needs: whether the topic was transient
 * local, and how deep its history was. The value is a YAML list, one profile per publisher that
 * rosbag2 saw ("- history: ...\n  depth: ...\n  durability: ..."; deadline and the other
 * durations are nested maps, skipped). rosbag2 writes the policies by name since Iron
 * ("keep_last", "transient_local") and as rmw's enum numbers in Humble: rmw/types.h's
 * rmw_qos_history_policy_e (0 system default, 1 keep last, 2 keep all, 3 unknown) and
 * rmw_qos_durability_policy_e (0 system default, 1 transient local, 2 volatile, 3 unknown,
 * 4 best available). Both forms are read. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rec.h"

struct profile {
	bool transient_local, keep_all;
	unsigned long depth;
};

/* The history a transient-local profile asks for: its depth (at least the last message: Humble
 * writes a depth of 0 with an unknown history); keep all: every message of the channel. At most
 * REC_HISTORY_MAX: each message of a replayed history holds a slot. */
static uint32_t history_of(const struct profile *p, uint64_t messages)
{
	uint64_t h = p->keep_all ? messages : p->depth;
	if (!p->transient_local)
		return 0;
	return h < 1 ? 1 : h > REC_HISTORY_MAX ? REC_HISTORY_MAX : (uint32_t)h;
}

/* "key: value" of one line (after indentation and a list's "- "): true when it is `key`. */
static bool is_key(const char *line, const char *key, const char **value)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n) || line[n] != ':')
		return false;
	*value = line + n + 1 + strspn(line + n + 1, " \t\"'");
	return true;
}

static bool word(const char *v, const char *name, const char *number)
{
	size_t n = strlen(name), k = strlen(number);
	return (!strncmp(v, name, n) && !v[n + strspn(v + n, " \t\"'\r")]) ||
	       (!strncmp(v, number, k) && !v[k + strspn(v + k, " \t\"'\r")]);
}

uint32_t rec_qos_history(const char *yaml, uint64_t messages)
{
	uint32_t deepest = 0;
	struct profile p = {false, false, 0};
	const char *s = yaml ? yaml : "";
	while (*s) {
		size_t len = strcspn(s, "\n");
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), s);
		s += len + (s[len] == '\n');
		const char *l = line + strspn(line, " \t"), *v;
		if (l[0] == '-' &&
		    (l[1] == ' ' || l[1] == '\0')) { /* the next publisher's profile */
			uint32_t h = history_of(&p, messages);
			deepest = h > deepest ? h : deepest;
			memset(&p, 0, sizeof p);
			l += 1 + strspn(l + 1, " \t");
		}
		if (is_key(l, "durability", &v))
			p.transient_local = word(v, "transient_local", "1");
		else if (is_key(l, "history", &v))
			p.keep_all = word(v, "keep_all", "2");
		else if (is_key(l, "depth", &v))
			p.depth = strtoul(v, NULL, 10);
	}
	uint32_t h = history_of(&p, messages);
	return h > deepest ? h : deepest;
}
