/* Issue 10, finding 8: a BALANCE_RR subscriber killed while joining (at each crash point of the
 * join: join:after-claim, and join:history between joining its group and becoming ACTIVE) must not
 * leave the group's member count raised: after gc the group counts exactly its live member, and
 * once that member leaves the group record counts nobody. */
#include "zt_hostile.h"

static zcast_sub *rr_sub(const char *topic, uint32_t hist)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_BALANCE_RR;
	o.group = "workers";
	o.queue_depth = 8;
	o.history = hist;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static int joiner_main(void *arg)
{
	const char *topic = arg;
	rr_sub(topic, 1);
	return 0;
}

/* Sum of the member counts of every group record named "workers". */
static uint32_t group_members(struct zc_topic_hdr *h)
{
	struct zc_group_rec *g = (struct zc_group_rec *)((char *)h + h->off_groups);
	uint32_t n = 0;
	for (uint32_t i = 0; i < h->max_groups; i++)
		if (atomic_load(&g[i].members) && strcmp(g[i].name, "workers") == 0)
			n += atomic_load(&g[i].members);
	return n;
}

static void crash_at(const char *point)
{
	char topic[64];
	snprintf(topic, sizeof topic, "/rrcrash/%s", strchr(point, ':') + 1);
	for (char *c = topic; *c; c++)
		if (*c == '-')
			*c = '_';
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 8;
	po.history_depth = 2;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &po, &p), 0);
	zt_publish(p, 1, 64);
	zt_publish(p, 2, 64);
	zcast_sub *live = rr_sub(topic, 0);
	struct zc_topic_hdr *h = zt_map_topic(topic, NULL);
	CHECK_EQ(group_members(h), 1);

	setenv("ZCAST_CRASH_AT", point, 1);
	pid_t j = zt_fork(joiner_main, topic);
	unsetenv("ZCAST_CRASH_AT");
	int st = zt_wait_bounded(j, 20000, "joiner with a crash point");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(zcast_topic_gc(NULL, topic) >= 0);
	uint32_t n = group_members(h);
	printf("%s: group counts %u members after gc, 1 is alive\n", point, n);
	if (n != 1) {
		fprintf(stderr, "FAIL: %s: group \"workers\" counts %u members, 1 is alive\n",
			point, n);
		zt_fail();
	}
	for (uint64_t i = 3; i <= 6; i++)
		zt_publish(p, i, 64);
	CHECK_EQ(zt_drain(live), 4); /* the only live member gets every message */
	CHECK_EQ(zcast_sub_close(live), 0);
	CHECK_EQ(group_members(h), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void at_after_claim(void)
{
	crash_at("join:after-claim");
}

static void at_history(void)
{
	crash_at("join:history");
}

int main(void)
{
	zt_setup("rrcrash", 60);
	static const struct zt_case cases[] = {ZT_CASE(at_after_claim), ZT_CASE(at_history)};
	return zt_run_cases(cases, 2, 20);
}
