/* Files of the domain's naming that are not (yet) readable topics. A topic file that has just
 * appeared may not be whole yet, and is looked at again soon; a file that never becomes one (left
 * by a crashed creator, or junk) must not keep an idle recorder listing /dev/shm every 20 ms: each
 * name's next look backs off from REC_RETRY_FIRST_NS, doubling up to REC_RETRY_MAX_NS, and a name
 * still not a topic REC_JUNK_SAY_NS after it was first seen is named on stderr, once. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec.h"

#define REC_RETRY_FIRST_NS 20000000
#define REC_RETRY_MAX_NS 1000000000
#define REC_JUNK_SAY_NS 1000000000

struct pending_name {
	char name[256];
	int64_t first, next, delay;
	bool said, listed;
};

static struct pending_name *find(struct rec_pending *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return &p->v[i];
	return NULL;
}

bool rec_pending_due(struct rec_pending *p, const char *name, int64_t now)
{
	struct pending_name *e = find(p, name);
	if (e)
		e->listed = true;
	return !e || now >= e->next;
}

void rec_pending_failed(struct rec_pending *p, const char *name, const char *why, int64_t now)
{
	struct pending_name *e = find(p, name);
	if (!e) {
		struct pending_name fresh;
		memset(&fresh, 0, sizeof fresh);
		snprintf(fresh.name, sizeof fresh.name, "%s", name);
		fresh.first = now;
		fresh.listed = true;
		if (!cli_append((void **)&p->v, &p->n, &p->cap, &fresh, sizeof fresh))
			return; /* out of memory: looked at again at the next scan, as before */
		e = &p->v[p->n - 1];
	}
	e->delay = e->delay ? e->delay * 2 : REC_RETRY_FIRST_NS;
	if (e->delay > REC_RETRY_MAX_NS)
		e->delay = REC_RETRY_MAX_NS;
	e->next = now + e->delay;
	if (!e->said && now - e->first >= REC_JUNK_SAY_NS) {
		fprintf(stderr, "%szcast record: %s: not a readable topic (%s)\n",
			isatty(2) ? "\r\033[K" : "", name, why);
		e->said = true;
	}
}

void rec_pending_forget(struct rec_pending *p, const char *name)
{
	struct pending_name *e = find(p, name);
	if (e)
		*e = p->v[--p->n];
}

int64_t rec_pending_sweep(struct rec_pending *p)
{
	int64_t next = INT64_MAX;
	for (int i = 0; i < p->n;) {
		if (!p->v[i].listed) { /* gone from /dev/shm (or recorded): nothing to look at */
			p->v[i] = p->v[--p->n];
			continue;
		}
		p->v[i].listed = false;
		if (p->v[i].next < next)
			next = p->v[i].next;
		i++;
	}
	return next;
}

void rec_pending_free(struct rec_pending *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}
