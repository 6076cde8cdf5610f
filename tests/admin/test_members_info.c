/* zcast_topic_members: tools see every member with its role, pid, policy, queue fill, counters and
 * liveness, and which subscriber refuses publishes; hostile record fields never crash the reader.
 */
#include "zt_seg.h"

#define MAX_SEEN 16
struct seen {
	zcast_member_info m[MAX_SEEN];
	int n;
};

static int collect(const zcast_member_info *m, void *ctx)
{
	struct seen *s = ctx;
	CHECK(s->n < MAX_SEEN);
	s->m[s->n++] = *m;
	return 0;
}

static struct seen members(const char *topic)
{
	struct seen s = {.n = 0};
	int r = zcast_topic_members(NULL, topic, collect, &s);
	CHECK_EQ(r, s.n);
	return s;
}

static const zcast_member_info *find(const struct seen *s, int role, int policy)
{
	for (int i = 0; i < s->n; i++)
		if (s->m[i].role == role &&
		    (role != ZCAST_ROLE_SUBSCRIBER || s->m[i].policy == policy))
			return &s->m[i];
	return NULL;
}

static zcast_sub *sub(const char *topic, int policy, uint32_t depth, const char *group)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = policy;
	o.queue_depth = depth;
	o.group = group;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static void roles_counters_and_refusing(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 12;
	po.history_depth = 2;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/mi/a", &po, &p), 0);
	zcast_sub *full = sub("/mi/a", ZCAST_POLICY_FULL, 2, NULL);
	zcast_sub *drop = sub("/mi/a", ZCAST_POLICY_DROP_OLD, 2, NULL);
	zt_publish(p, 1, 40);
	zt_publish(p, 2, 48);
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, 8, &m), 0);
	CHECK_EQ(zcast_publish(p, m), ZCAST_EAGAIN); /* the FULL queue is full */
	zcast_msg_drop(m);

	struct seen s = members("/mi/a");
	CHECK_EQ(s.n, 3);
	const zcast_member_info *pi = find(&s, ZCAST_ROLE_PUBLISHER, 0);
	const zcast_member_info *fi = find(&s, ZCAST_ROLE_SUBSCRIBER, ZCAST_POLICY_FULL);
	const zcast_member_info *di = find(&s, ZCAST_ROLE_SUBSCRIBER, ZCAST_POLICY_DROP_OLD);
	CHECK(pi && fi && di);
	CHECK_EQ(pi->pid, getpid());
	CHECK(pi->alive && !pi->joining && !pi->draining);
	CHECK_EQ(pi->id, zcast_pub_id(p));
	CHECK_EQ(pi->slot_size, 64);
	CHECK_EQ(pi->slot_count, 12);
	CHECK_EQ(pi->history_depth, 2);
	CHECK_EQ(pi->last_sequence, 2);
	CHECK_EQ(pi->last_size, 48);
	CHECK_EQ(pi->slots_published, 2);
	CHECK_EQ(fi->id, zcast_sub_id(full));
	CHECK(fi->alive && fi->refusing);
	CHECK_EQ(fi->queued, 2);
	CHECK_EQ(fi->depth, 2);
	CHECK_EQ(fi->delivered, 2);
	CHECK_EQ(fi->rejected, 1);
	CHECK(!di->refusing); /* DROP_OLD never refuses */
	CHECK_EQ(di->queued, 2);

	/* Taking one makes room: no longer refusing, and the taken message counts as held. */
	CHECK_EQ(zcast_take(full, &m), 0);
	s = members("/mi/a");
	fi = find(&s, ZCAST_ROLE_SUBSCRIBER, ZCAST_POLICY_FULL);
	CHECK(!fi->refusing);
	CHECK_EQ(fi->queued, 1);
	CHECK_EQ(fi->held, 1);
	zcast_msg_drop(m);

	/* Without fn, just the count. */
	CHECK_EQ(zcast_topic_members(NULL, "/mi/a", NULL, NULL), 3);
	CHECK_EQ(zcast_sub_close(full), 0);
	CHECK_EQ(zcast_sub_close(drop), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static int stop_walk(const zcast_member_info *m, void *ctx)
{
	(void)m;
	++*(int *)ctx;
	return 1;
}

/* A worker group refuses only when every member is full. */
static void group_refuses_when_all_full(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/mi/rr", &po, &p), 0);
	zcast_sub *w1 = sub("/mi/rr", ZCAST_POLICY_BALANCE_RR, 1, "workers");
	zcast_sub *w2 = sub("/mi/rr", ZCAST_POLICY_BALANCE_RR, 1, "workers");
	zt_publish(p, 1, 40);
	struct seen s = members("/mi/rr");
	int calls = 0;
	CHECK_EQ(zcast_topic_members(NULL, "/mi/rr", stop_walk, &calls), 1);
	CHECK_EQ(calls, 1);
	int full = 0, refusing = 0;
	for (int i = 0; i < s.n; i++) {
		full += s.m[i].role == ZCAST_ROLE_SUBSCRIBER && s.m[i].queued == 1;
		refusing += s.m[i].refusing;
		if (s.m[i].role == ZCAST_ROLE_SUBSCRIBER)
			CHECK(strcmp(s.m[i].group, "workers") == 0);
	}
	CHECK_EQ(full, 1);
	CHECK_EQ(refusing, 0); /* the other worker has room */
	zt_publish(p, 2, 40);
	s = members("/mi/rr");
	refusing = 0;
	for (int i = 0; i < s.n; i++)
		refusing += s.m[i].refusing;
	CHECK_EQ(refusing, 2);
	zcast_sub_close(w1);
	zcast_sub_close(w2);
	zcast_pub_close(p);
}

static int join_and_die(void *arg)
{
	(void)arg;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_sub *s;
	if (zcast_sub_open("/mi/dead", &o, &s) != 0)
		return 2;
	raise(SIGKILL);
	return 3;
}

static void dead_member_is_reported_dead(void)
{
	/* Our death watcher would reclaim the killed member before we look (test builds: off). */
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/mi/dead", &po, &p), 0);
	pid_t child = zt_fork(join_and_die, NULL);
	int st = zt_wait(child);
	CHECK(WIFSIGNALED(st));
	struct seen s = members("/mi/dead");
	CHECK_EQ(s.n, 2);
	const zcast_member_info *d = find(&s, ZCAST_ROLE_SUBSCRIBER, ZCAST_POLICY_FULL);
	CHECK(d);
	CHECK_EQ(d->pid, child);
	CHECK(!d->alive);
	CHECK(find(&s, ZCAST_ROLE_PUBLISHER, 0)->alive); /* our own record, probed from outside */
	CHECK_EQ(zcast_topic_gc(NULL, "/mi/dead"), 1);
	CHECK_EQ(members("/mi/dead").n, 1);
	zcast_pub_close(p);
}

/* A member scribbling on its record: out-of-range policy, depth, group and ring positions and a
 * bogus pool index are reported as unknown, never followed. */
static void hostile_fields_are_range_checked(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/mi/bad", &po, &p), 0);
	zcast_sub *s = sub("/mi/bad", ZCAST_POLICY_BALANCE_RR, 4, "g");
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic("/mi/bad", &size);
	struct zc_pub_rec *pr = (struct zc_pub_rec *)((char *)h + h->off_pubs);
	struct zc_sub_rec *sr = (struct zc_sub_rec *)((char *)h + h->off_subs);
	struct zc_pub_rec pub_saved = *pr;
	uint32_t policy = sr->policy, depth = sr->depth, group = sr->group;
	uint64_t tail = atomic_load(&sr->tail);
	pr->pool = 0xfffffff0u;
	pr->history_depth = 1u << 30;
	sr->group = 0x7fffffffu;
	atomic_store(&sr->tail, tail + (1ull << 40));
	struct seen seen = members("/mi/bad");
	const zcast_member_info *pi = find(&seen, ZCAST_ROLE_PUBLISHER, 0);
	const zcast_member_info *si = find(&seen, ZCAST_ROLE_SUBSCRIBER, ZCAST_POLICY_BALANCE_RR);
	CHECK(pi && si);
	CHECK_EQ(pi->slot_count, 0);
	CHECK_EQ(pi->history_depth, 0);
	CHECK_EQ(si->group[0], 0);
	CHECK_EQ(si->queued, 4); /* clamped to the depth */
	sr->policy = 77;
	sr->depth = 1u << 31;
	seen = members("/mi/bad");
	CHECK_EQ(seen.m[1].policy, -1);
	CHECK_EQ(seen.m[1].depth, 0);
	CHECK_EQ(seen.m[1].queued, 0);
	CHECK(!seen.m[1].refusing);
	*pr = pub_saved;
	sr->policy = policy;
	sr->depth = depth;
	sr->group = group;
	atomic_store(&sr->tail, tail);
	munmap(h, size);
	zcast_sub_close(s);
	zcast_pub_close(p);
}

static void bad_names_and_missing_topics(void)
{
	CHECK_EQ(zcast_topic_members(NULL, "/mi/none", collect, NULL), ZCAST_ENOENT);
	CHECK_EQ(zcast_topic_members(NULL, "no slash", collect, NULL), ZCAST_EINVAL);
	CHECK_EQ(zcast_topic_members("bad.domain", "/mi/a", collect, NULL), ZCAST_EINVAL);
}

int main(void)
{
	zt_setup("members_info", 60);
	RUN(roles_counters_and_refusing);
	RUN(group_refuses_when_all_full);
	RUN(dead_member_is_reported_dead);
	unsetenv("ZCAST_NO_DEATH_WATCH");
	RUN(hostile_fields_are_range_checked);
	RUN(bad_names_and_missing_topics);
	return 0;
}
