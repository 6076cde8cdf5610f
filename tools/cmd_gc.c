/* zcast gc [TOPIC | --all] [--dry-run]: reclaims members whose processes died (their queued and
 * held messages, loans and records), naming each one; zcast rm TOPIC removes a topic with no live
 * members (also a retained one). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zcast/waitset.h>

#include "cli.h"

struct gc_out {
	const struct cli *c;
	const char *topic;
	int dead, reclaimed;
	bool first_json; /* no JSON element printed yet */
};

static int print_dead(const zcast_member_info *m, void *ctx)
{
	struct gc_out *g = ctx;
	if (m->alive)
		return 0;
	g->dead++;
	const char *why =
	    m->joining ? "died while joining" : "process gone (its liveness lock is free)";
	if (g->c->json) {
		printf("%s{\"topic\":", g->first_json ? "" : ",");
		cli_json_str(stdout, g->topic);
		printf(",\"role\":\"%s\",\"pid\":%d,\"id\":%" PRIu64
		       ",\"reason\":\"%s\",\"held\":%u,"
		       "\"queued\":%u}",
		       cli_role_name(m->role), (int)m->pid, m->id, why, m->held, m->queued);
		g->first_json = false;
	} else {
		printf("%s: dead %s pid %d id %" PRIu64 ": %s", g->topic, cli_role_name(m->role),
		       (int)m->pid, m->id, why);
		if (m->role == ZCAST_ROLE_SUBSCRIBER)
			printf("; releases %u queued and %u held message(s)", m->queued, m->held);
		if (m->role == ZCAST_ROLE_PUBLISHER)
			printf("; returns %u loan(s), its pool goes when its last slot is free",
			       m->slots_loaned);
		printf("\n");
	}
	return 0;
}

/* One topic: list the dead members, then reclaim them unless dry. */
static int gc_topic(struct gc_out *g, const char *topic, bool dry)
{
	const char *domain = cli_domain(g->c);
	g->topic = topic;
	int r = zcast_topic_members(domain, topic, print_dead, g);
	if (r < 0)
		return r;
	if (dry)
		return 0;
	/* Also with nothing dead in sight: gc finishes what a crash left besides members (an owed
	 * wake-up, an orphaned pool whose slots came free). */
	r = zcast_topic_gc(domain, topic);
	if (r == ZCAST_ENOENT)
		return 0; /* removed meanwhile */
	if (r < 0)
		return r;
	g->reclaimed += r;
	if (!g->c->json && r > 0)
		printf("%s: reclaimed %d dead member(s)\n", topic, r);
	return 0;
}

struct all {
	struct gc_out *g;
	bool dry;
	int failed;
};

static int each(const char *topic, void *ctx)
{
	struct all *a = ctx;
	int r = gc_topic(a->g, topic, a->dry);
	if (r < 0 && r != ZCAST_ENOENT) { /* gone meanwhile: nothing to do */
		fprintf(stderr, "zcast gc: %s: %s (%s)\n", topic, zcast_strerror(r),
			cli_error_text());
		a->failed++;
	}
	return 0;
}

static int run_gc(struct cli *c)
{
	bool all = cli_flag(c, "all"), dry = cli_flag(c, "dry-run");
	if (all == (c->npos == 1))
		return cli_usage_error(c, "give a TOPIC or --all");
	zcast_topic_stat st; /* a missing TOPIC is an error before anything is done or printed */
	int e = all ? 0 : zcast_topic_stat_get(cli_domain(c), c->pos[0], &st);
	if (e < 0)
		return cli_fail(c, e);
	struct gc_out g = {c, NULL, 0, 0, true};
	if (c->json)
		printf("{\"dry_run\":%s,\"dead\":[", dry ? "true" : "false");
	int r = 0, failed = 0;
	if (all) {
		struct all a = {&g, dry, 0};
		r = zcast_topic_list(cli_domain(c), each, &a);
		failed = a.failed;
	} else {
		r = gc_topic(&g, c->pos[0], dry);
	}
	/* Doorbell files of wait sets whose process died (not per domain: only dead owners'). */
	int bells = dry ? 0 : zcast_doorbell_gc();
	if (c->json)
		printf("],\"reclaimed\":%d,\"doorbells_removed\":%d}\n", g.reclaimed, bells > 0 ? bells : 0);
	else if (bells > 0)
		printf("removed %d doorbell file(s) of wait sets whose process died\n", bells);
	if (r < 0)
		return cli_fail(c, r);
	if (!c->json && g.dead == 0)
		printf("nothing to reclaim: every member is alive\n");
	else if (!c->json && dry)
		printf("%d dead member(s) would be reclaimed (run without --dry-run)\n", g.dead);
	if (failed)
		return CLI_EFAIL;
	return dry && g.dead ? CLI_EPROBLEMS : CLI_OK;
}

static const struct cli_opt gc_opts[] = {
    {"all", 'a', NULL, "every topic of the domain"},
    {"dry-run", 'n', NULL, "only say what would be reclaimed and why (exit 6 if anything)"},
    {0},
};

const struct cli_cmd cmd_gc = {
    .name = "gc",
    .args = "[TOPIC]",
    .summary = "reclaim members of crashed processes (--dry-run: only tell)",
    .details = "A member is dead when its process no longer holds the lock on its record (the\n"
	       "kernel drops it when a process dies, whatever the PID is reused for). Reclaiming\n"
	       "releases its queued and held messages and loans, and frees its record. Without\n"
	       "--dry-run it also removes the doorbell files of wait sets whose process died\n"
	       "(/dev/shm/zcast-bell.*).\n",
    .opts = gc_opts,
    .min_pos = 0,
    .max_pos = 1,
    .json = true,
    .run = run_gc,
};

static int run_rm(struct cli *c)
{
	int r = zcast_topic_remove(cli_domain(c), c->pos[0]);
	if (r == ZCAST_EBUSY) {
		fprintf(stderr, "zcast rm: %s (zcast info %s shows them)\n", cli_error_text(),
			c->pos[0]);
		return CLI_EREFUSED;
	}
	return r < 0 ? cli_fail(c, r) : CLI_OK;
}

const struct cli_cmd cmd_rm = {
    .name = "rm",
    .args = "TOPIC",
    .summary = "remove a topic (also a retained one) that has no live members",
    .details = "Dead members are reclaimed first. A topic with live members is refused (exit 5).\n",
    .opts = (const struct cli_opt[]){{0}},
    .min_pos = 1,
    .max_pos = 1,
    .json = false,
    .run = run_rm,
};
