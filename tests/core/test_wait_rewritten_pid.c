/* Issue 22, item 2: zcast_publish_wait(-1) and zcast_loan_wait(-1) end when their only blocker is
 * killed after a member rewrote the pid in its record (here to 1, a process that never exits, so
 * a pidfd opened from the record never fires). The rewrite happens before the waiting process
 * joins, so its death watcher only ever sees the false pid. */
#include "zt_unseen.h"

static void start_and_rewrite(struct zt_blocker *a, const char *topic, int hold)
{
	zt_blocker_start(a, topic, hold);
	size_t size;
	struct zc_topic_hdr *h = zt_map_topic(topic, &size);
	struct zc_sub_rec *subs = (struct zc_sub_rec *)((char *)h + h->off_subs);
	int found = 0;
	for (uint32_t k = 0; k < h->max_subs; k++)
		if (atomic_load(&subs[k].state) != ZC_REC_FREE && subs[k].pid == a->pid) {
			subs[k].pid = 1;
			found = 1;
		}
	CHECK(found);
	munmap(h, size);
}

static void blocked_case(const char *topic, int hold)
{
	struct zt_blocker a;
	start_and_rewrite(&a, topic, hold);
	zcast_pub *p = zt_blocked_pub_for(&a);
	zt_blocker_killed_in_wait(p, &a);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void publish_wait_case(void)
{
	blocked_case("/rw/pw", 0);
}

static void loan_wait_case(void)
{
	blocked_case("/rw/lw", 2);
}

int main(void)
{
	zt_setup("rewrittenpid", 120);
	static const struct zt_case cases[] = {ZT_CASE(publish_wait_case), ZT_CASE(loan_wait_case)};
	return zt_run_cases(cases, 2, 30);
}
