/* Topic snapshots (list, top, doctor), similar-name hints and the watching subscriber (echo, hz,
 * bw, delay). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int add_member(const zcast_member_info *m, void *ctx)
{
	struct cli_topic *t = ctx;
	if (!m->alive) {
		t->dead++;
		return 0;
	}
	if (m->role == ZCAST_ROLE_PUBLISHER) {
		t->live_pubs++;
		if (m->last_sequence == t->st.last_sequence || !t->last_size)
			t->last_size = m->last_size;
	} else if (m->role == ZCAST_ROLE_SUBSCRIBER) {
		t->live_subs++;
		t->dropped += m->dropped;
		t->rejected += m->rejected;
		t->refusing += (uint32_t)m->refusing;
		double fill = m->depth ? (double)m->queued / m->depth : 0;
		if (fill > t->fill)
			t->fill = fill;
	}
	return 0;
}

int cli_topic_read(const char *domain, const char *name, struct cli_topic *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	t->when_ns = cli_now_ns();
	t->err = zcast_topic_stat_get(domain, name, &t->st);
	if (t->err == 0) {
		cli_type_hash(&t->st, t->type_hash, sizeof t->type_hash);
		int r = zcast_topic_members(domain, name, add_member, t);
		if (r < 0)
			t->err = r;
	}
	return t->err;
}

struct names {
	char (*v)[256];
	int n, cap;
};

static int collect(const char *topic, void *ctx)
{
	struct names *ns = ctx;
	char name[256];
	snprintf(name, sizeof name, "%s", topic);
	return !cli_append((void **)&ns->v, &ns->n, &ns->cap, name, sizeof name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct cli_topic *)a)->name, ((const struct cli_topic *)b)->name);
}

int cli_topics(const char *domain, struct cli_topic **out)
{
	struct names ns = {0};
	int r = zcast_topic_list(domain, collect, &ns);
	*out = NULL;
	if (r < 0) {
		free(ns.v);
		return r;
	}
	struct cli_topic *t = calloc((size_t)ns.n + 1, sizeof *t);
	if (!t) {
		free(ns.v);
		return ZCAST_ENOMEM;
	}
	for (int i = 0; i < ns.n; i++)
		cli_topic_read(domain, ns.v[i], &t[i]); /* a topic gone meanwhile keeps its error */
	free(ns.v);
	qsort(t, (size_t)ns.n, sizeof *t, by_name);
	*out = t;
	return ns.n;
}

double cli_rate(uint64_t before, uint64_t after, int64_t dt_ns)
{
	return dt_ns > 0 && after >= before ? (double)(after - before) * 1e9 / (double)dt_ns : 0;
}

/* Edit distance, for "did you mean" hints (names are at most 200 bytes). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = malloc((lb + 1) * sizeof *row);
	if (!row)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

struct similar {
	const char *topic;
	FILE *f;
	int shown;
};

static int print_if_similar(const char *name, void *ctx)
{
	struct similar *s = ctx;
	size_t len = strlen(s->topic), limit = len / 4 > 2 ? len / 4 : 2;
	const char *last = strrchr(s->topic, '/'), *their_last = strrchr(name, '/');
	bool same_leaf = last && their_last && strcmp(last, their_last) == 0;
	if (strcmp(name, s->topic) == 0 || (distance(name, s->topic) > limit && !same_leaf))
		return 0;
	fprintf(s->f, "%s  %s\n", s->shown++ ? "            " : "  did you mean:", name);
	return s->shown >= 5;
}

void cli_similar_topics(const char *domain, const char *topic, FILE *f)
{
	struct similar s = {topic, f, 0};
	zcast_topic_list(domain, print_if_similar, &s);
}

/* Says on stderr when the topic has no publisher (at start and whenever that changes). */
static void check_publishers(struct cli_watch *w)
{
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(w->domain, w->topic, &st);
	int has = r == 0 && st.publishers > 0;
	if (has == w->had_publisher)
		return;
	if (!has) {
		fprintf(stderr, "zcast %s: topic %s has no publisher in domain %s%s; waiting\n",
			w->cmd, w->topic, w->domain,
			r == ZCAST_ENOENT	? " (the topic does not exist yet)"
			: w->had_publisher == 1 ? " any more"
						: "");
		if (w->had_publisher == -1)
			cli_similar_topics(w->domain, w->topic, stderr);
	} else if (w->had_publisher == 0) {
		fprintf(stderr, "zcast %s: a publisher joined %s\n", w->cmd, w->topic);
	}
	w->had_publisher = has;
}

static int smallest_pool(const zcast_member_info *m, void *ctx)
{
	uint32_t *min = ctx;
	if (m->role == ZCAST_ROLE_PUBLISHER && m->alive && m->slot_count && m->slot_count < *min)
		*min = m->slot_count;
	return 0;
}

uint32_t cli_watch_depth(const char *domain, const char *topic)
{
	uint32_t min = UINT32_MAX;
	zcast_topic_members(domain, topic, smallest_pool, &min);
	if (min == UINT32_MAX)
		return 2;
	return min / 4 < 1 ? 1 : min / 4 > 16 ? 16 : min / 4;
}

int cli_watch_open(struct cli_watch *w, const struct cli *c, const char *topic, uint32_t history)
{
	memset(w, 0, sizeof *w);
	w->domain = cli_domain(c);
	w->topic = topic;
	w->cmd = c->cmd->name;
	w->had_publisher = -1;
	if (zcast_topic_name_valid(topic) != 0)
		return cli_usage_error(
		    c, "invalid topic name '%s' (want /name[/name...], letters, digits, _)", topic);
	check_publishers(w); /* before joining: our join creates a missing topic */
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = w->domain;
	o.policy = ZCAST_POLICY_DROP_OLD;
	zcast_topic_stat st;
	memset(&st, 0, sizeof st);
	bool known = zcast_topic_stat_get(w->domain, topic, &st) == 0;
	uint32_t asked = history;
	/* "Up to N": the topic can keep no more than its capacity (asking for more would make the
	 * join fail). Not clamped to the length seen now: a message published before the open
	 * lengthens it, and asking for the old length would leave out the oldest. */
	if (known && history > st.history_capacity)
		history = st.history_capacity;
	/* What it keeps fits one queue, or we say why not. */
	if (known && st.max_queue_depth && history > st.max_queue_depth) {
		if (st.history_len > st.max_queue_depth)
			return cli_usage_error(c,
					       "--history %u: the topic keeps %u messages, but a "
					       "subscriber queue holds at most %u (its max_queue_depth)",
					       asked, st.history_len, st.max_queue_depth);
		history = st.max_queue_depth;
	}
	o.history = history;
	/* Room for the whole history plus live traffic: a slow first take must not let live
	 * messages push out the history we asked for (DROP_OLD drops the oldest first). */
	uint64_t depth = (uint64_t)cli_watch_depth(w->domain, topic) + history;
	if (known && st.max_queue_depth && depth > st.max_queue_depth)
		depth = st.max_queue_depth > history ? st.max_queue_depth : history;
	o.queue_depth = (uint32_t)depth;
	o.max_held = history + 1;
	/* Before the open: `timeout` counts from here. */
	int64_t joining_ns = cli_now_ns();
	int r = zcast_sub_open(topic, &o, &w->sub);
	if (r < 0)
		return cli_fail(c, r);
	w->joined_ns = joining_ns;
	w->next_check_ns = w->joined_ns + 1000000000;
	/* The open queued the history first, oldest first (zcast_sub_stat's count). Taken at once,
	 * so that live messages arriving while we are descheduled cannot push it out of the
	 * DROP_OLD queue; held until printed: the slots are the ones the history keeps anyway. */
	zcast_sub_stat ss;
	if (history > 0 && zcast_sub_stat_get(w->sub, &ss) == 0 && ss.history > 0) {
		w->early = calloc(ss.history, sizeof *w->early);
		if (!w->early) {
			cli_watch_close(w);
			return cli_fail(c, ZCAST_ENOMEM);
		}
		while (w->n_early < ss.history && zcast_take(w->sub, &w->early[w->n_early]) == 0)
			w->n_early++;
		/* Drops take the oldest first: as many history messages as were dropped are gone,
		 * and as many live ones were taken in their place. */
		uint64_t dropped = zcast_sub_stat_get(w->sub, &ss) == 0 ? ss.dropped : 0;
		w->n_history = dropped < w->n_early ? w->n_early - (uint32_t)dropped : 0;
	}
	return CLI_OK;
}

int cli_watch_take(struct cli_watch *w, zcast_msg **m, bool *from_history)
{
	bool early = w->next_early < w->n_early;
	if (from_history)
		*from_history = early && w->next_early < w->n_history;
	if (early) {
		*m = w->early[w->next_early++];
		return 0;
	}
	return zcast_take(w->sub, m);
}

int cli_watch_wait(struct cli_watch *w, int64_t timeout_ns)
{
	if (w->next_early < w->n_early || zcast_sub_queued(w->sub) > 0)
		return 0;
	int r = zcast_wait(w->sub, timeout_ns);
	int64_t now = cli_now_ns();
	if (now >= w->next_check_ns) {
		check_publishers(w);
		w->next_check_ns = now + 1000000000;
	}
	return r;
}

void cli_watch_close(struct cli_watch *w)
{
	while (w->next_early < w->n_early)
		zcast_msg_drop(w->early[w->next_early++]);
	free(w->early);
	w->early = NULL;
	if (w->sub)
		zcast_sub_close(w->sub);
	w->sub = NULL;
}
