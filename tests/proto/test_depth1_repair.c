/* Issue 10, finding 4: crash repair on a depth-1 ring. A publisher dies at the crash point
 * publish:after-entry (the descriptor is in the ring cell, the tail not yet advanced) with one
 * DROP_OLD subscriber of depth 1, at its 1st, 2nd and 3rd publish. After recovery (zcast_topic_gc,
 * the next locker) and the subscriber taking everything queued, no slot may stay PUBLISHED with an
 * empty holder bitmap, and once the subscriber leaves too no segment of the topic (pool included)
 * may be left. */
#include "zt_hostile.h"

static int publisher_main(void *arg)
{
	const char *topic = arg;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 4;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open(topic, &o, &p), 0);
	for (uint64_t i = 1; i <= 3; i++)
		zt_publish(p, i, 64);
	zcast_pub_close(p);
	return 0;
}

/* Every PUBLISHED slot of the (only) pool has a holder; returns the number of PUBLISHED slots. */
static int check_no_ownerless_slot(const char *when)
{
	char path[400];
	if (!zt_find_pool(path, sizeof path))
		return 0;
	struct zt_map pm = zt_map_path(path);
	struct zc_pool_hdr *ph = pm.p;
	int published = 0;
	for (uint32_t i = 0; i < ph->slot_count; i++) {
		struct zc_slot_hdr *s = zt_slot(ph, i);
		if (ZC_STATE_ST(atomic_load(&s->state)) != ZC_SLOT_PUBLISHED)
			continue;
		published++;
		uint64_t any = 0;
		for (uint32_t w = 0; w < ph->bitmap_words; w++)
			any |= atomic_load(&s->bits[w]);
		if (!any) {
			fprintf(stderr, "FAIL: %s: slot %u is PUBLISHED and nobody holds it\n",
				when, i);
			zt_fail();
		}
	}
	munmap(pm.p, pm.size);
	return published;
}

static void crash_at(int nth)
{
	char topic[64], point[64];
	snprintf(topic, sizeof topic, "/depth1/n%d", nth);
	snprintf(point, sizeof point, "publish:after-entry:%d", nth);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.policy = ZCAST_POLICY_DROP_OLD;
	so.queue_depth = 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &so, &s), 0);

	setenv("ZCAST_CRASH_AT", point, 1);
	pid_t pub = zt_fork(publisher_main, topic);
	unsetenv("ZCAST_CRASH_AT");
	int st = zt_wait_bounded(pub, 20000, "publisher with a crash point");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	CHECK(zcast_topic_gc(NULL, topic) >= 0); /* the next locker: repair and reclaim */
	zcast_msg *m;
	int r, taken = 0;
	while ((r = zcast_take(s, &m)) == 0) {
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
		zcast_msg_drop(m);
		taken++;
	}
	CHECK_EQ(r, ZCAST_EAGAIN);
	CHECK(zcast_topic_gc(NULL, topic) >= 0);
	int published = check_no_ownerless_slot(point);
	printf("%s: took %d, %d slots still published\n", point, taken, published);
	if (published) {
		fprintf(stderr,
			"FAIL: %s: %d slots stay PUBLISHED after the only subscriber took "
			"everything queued (a holder bit for a message in no ring)\n",
			point, published);
		zt_fail();
	}
	CHECK_EQ(zcast_sub_close(s), 0);
	if (zt_pool_count() != 0 || zt_shm_count() != 0) {
		fprintf(stderr, "FAIL: %s: everyone left, %d segments (%d pools) remain\n", point,
			zt_shm_count(), zt_pool_count());
		zt_fail();
	}
}

static void at_first_publish(void)
{
	crash_at(1);
}
static void at_second_publish(void)
{
	crash_at(2);
}
static void at_third_publish(void)
{
	crash_at(3);
}

int main(void)
{
	zt_setup("depth1", 120);
	static const struct zt_case cases[] = {
	    ZT_CASE(at_first_publish), ZT_CASE(at_second_publish), ZT_CASE(at_third_publish)};
	return zt_run_cases(cases, 3, 30);
}
