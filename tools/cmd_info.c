/* zcast info TOPIC: the topic's type, limits and slots, and one row per member, with the
 * subscribers that refuse publishes right now. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct members {
	zcast_member_info *v;
	int n, cap;
};

static int collect(const zcast_member_info *m, void *ctx)
{
	struct members *ms = ctx;
	return !cli_append((void **)&ms->v, &ms->n, &ms->cap, m, sizeof *m);
}

static const char *status(const zcast_member_info *m)
{
	if (!m->alive)
		return "dead";
	return m->joining ? "joining" : m->draining ? "draining" : "alive";
}

static void member_json(const zcast_member_info *m)
{
	char comm[64];
	cli_proc_name(m->alive ? m->pid : 0, comm, sizeof comm);
	printf("{\"role\":\"%s\",\"index\":%u,\"id\":%" PRIu64 ",\"pid\":%d,\"process\":",
	       cli_role_name(m->role), m->index, m->id, (int)m->pid);
	cli_json_str(stdout, comm);
	printf(",\"status\":\"%s\",\"alive\":%s", status(m), m->alive ? "true" : "false");
	if (m->role == ZCAST_ROLE_SUBSCRIBER) {
		printf(",\"policy\":\"%s\",\"group\":", cli_policy_name(m->policy));
		cli_json_str(stdout, m->group);
		printf(",\"queued\":%u,\"depth\":%u,\"held\":%u,\"delivered\":%" PRIu64
		       ",\"dropped\":%" PRIu64 ",\"rejected\":%" PRIu64 ",\"refusing\":%s",
		       m->queued, m->depth, m->held, m->delivered, m->dropped, m->rejected,
		       m->refusing ? "true" : "false");
	} else if (m->role == ZCAST_ROLE_PUBLISHER) {
		printf(",\"slot_size\":%" PRIu64
		       ",\"slots\":%u,\"slots_loaned\":%u,\"slots_published\":%u,"
		       "\"history_depth\":%u,\"last_sequence\":%" PRIu64 ",\"last_size\":%" PRIu64,
		       m->slot_size, m->slot_count, m->slots_loaned, m->slots_published,
		       m->history_depth, m->last_sequence, m->last_size);
	}
	printf("}");
}

static void member_row(const zcast_member_info *m)
{
	char comm[64], fill[32] = "-", detail[96] = "";
	cli_proc_name(m->alive ? m->pid : 0, comm, sizeof comm);
	if (m->role == ZCAST_ROLE_SUBSCRIBER) {
		snprintf(fill, sizeof fill, "%u/%u", m->queued, m->depth);
		snprintf(detail, sizeof detail, "%" PRIu64 "/%" PRIu64 "/%" PRIu64 " held %u%s%s",
			 m->delivered, m->dropped, m->rejected, m->held,
			 m->group[0] ? " group " : "", m->group);
	} else if (m->role == ZCAST_ROLE_PUBLISHER) {
		char sz[24];
		cli_fmt_bytes((double)m->slot_size, sz, sizeof sz);
		snprintf(fill, sizeof fill, "%u/%u", m->slots_loaned + m->slots_published,
			 m->slot_count);
		snprintf(detail, sizeof detail, "slots of %s, history %u", sz, m->history_depth);
	}
	cli_row("  %-4s %7d %-15s %-10s %-9s %-26s %-8s%s\n", cli_role_name(m->role), (int)m->pid,
		comm, cli_policy_name(m->policy), fill, detail, status(m),
		m->refusing ? "  REFUSING" : "");
}

static void text_header(const char *topic, const zcast_topic_stat *st)
{
	char hash[80], type[sizeof st->type_name];
	cli_type_hash(st, hash, sizeof hash);
	printf("topic:        %s\n", topic);
	printf("type:         %s (hash %s)\n",
	       st->type_name[0] ? cli_safe_copy(st->type_name, type, sizeof type) : "(untyped)", hash);
	printf("publishers:   %u of %u\n", st->publishers, st->max_publishers);
	printf("subscribers:  %u of %u\n", st->subscribers, st->max_subscribers);
	printf("queue depth:  up to %u\n", st->max_queue_depth);
	printf("history:      %u kept (capacity %u)%s\n", st->history_len, st->history_capacity,
	       st->retain ? ", retained" : "");
	printf("sequence:     %" PRIu64 "\n", st->last_sequence);
	printf("pools:        %u, slots %" PRIu64 " (free %" PRIu64 ", loaned %" PRIu64
	       ", published %" PRIu64 ")\n",
	       st->pools, st->slots_total, st->slots_free, st->slots_loaned, st->slots_published);
}

static int run(struct cli *c)
{
	const char *topic = c->pos[0], *domain = cli_domain(c);
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(domain, topic, &st);
	if (r < 0)
		return cli_fail(c, r);
	struct members ms = {0};
	if ((r = zcast_topic_members(domain, topic, collect, &ms)) < 0) {
		free(ms.v);
		return cli_fail(c, r);
	}
	int refusing = 0;
	for (int i = 0; i < ms.n; i++)
		refusing += ms.v[i].refusing;
	if (c->json) {
		char hash[80];
		cli_type_hash(&st, hash, sizeof hash);
		printf("{\"topic\":");
		cli_json_str(stdout, topic);
		printf(",\"domain\":");
		cli_json_str(stdout, domain);
		printf(",\"type\":");
		cli_json_str(stdout, st.type_name);
		printf(",\"type_hash\":\"%s\",\"publishers\":%u,\"subscribers\":%u,\"max_"
		       "publishers\":%u,"
		       "\"max_subscribers\":%u,\"max_queue_depth\":%u,\"history_len\":%u,"
		       "\"history_capacity\":%u,\"retained\":%s,\"last_sequence\":%" PRIu64
		       ",\"pools\":%u,"
		       "\"slots_total\":%" PRIu64 ",\"slots_free\":%" PRIu64
		       ",\"slots_loaned\":%" PRIu64 ",\"slots_published\":%" PRIu64
		       ",\"refusing\":%d,\"members\":[",
		       hash, st.publishers, st.subscribers, st.max_publishers, st.max_subscribers,
		       st.max_queue_depth, st.history_len, st.history_capacity,
		       st.retain ? "true" : "false", st.last_sequence, st.pools, st.slots_total,
		       st.slots_free, st.slots_loaned, st.slots_published, refusing);
		for (int i = 0; i < ms.n; i++) {
			printf("%s", i ? "," : "");
			member_json(&ms.v[i]);
		}
		printf("]}\n");
	} else {
		text_header(topic, &st);
		printf("members:\n  %-4s %7s %-15s %-10s %-9s %-26s %s\n", "ROLE", "PID", "PROCESS",
		       "POLICY", "FILL", "DELIV/DROP/REJ | POOL", "STATUS");
		for (int i = 0; i < ms.n; i++)
			member_row(&ms.v[i]);
		if (refusing)
			printf("%d subscriber%s refusing publishes now (queue full, and FULL "
			       "policy or a "
			       "full worker group): publishes to this topic fail until %s\n",
			       refusing, refusing == 1 ? " is" : "s are",
			       refusing == 1 ? "it takes" : "they take");
	}
	free(ms.v);
	return CLI_OK;
}

const struct cli_cmd cmd_info = {
    .name = "info",
    .args = "TOPIC",
    .summary = "show a topic's type, limits, slots and one row per member",
    .details =
	"Member rows: role, pid, process name, policy, FILL (subscribers: queued/depth;\n"
	"publishers: slots in use/slots), delivered/dropped/rejected and held messages,\n"
	"and whether the process is alive. REFUSING marks a subscriber whose full queue makes\n"
	"every publish fail until it takes a message: a FULL subscriber, or a BALANCE_RR\n"
	"member of a group whose members are all full.\n",
    .opts = (const struct cli_opt[]){{0}},
    .min_pos = 1,
    .max_pos = 1,
    .json = true,
    .run = run,
};
