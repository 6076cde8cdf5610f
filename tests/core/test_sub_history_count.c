/* zcast_sub_stat's `history`: how many messages the join queued from the topic's history (they are
 * the first taken), whatever was asked: less when the topic keeps less, none when none was asked. */
#include "zt_seg.h"

static zcast_sub *join(const char *topic, uint32_t history)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 8;
	o.history = history;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static uint32_t history_of(zcast_sub *s)
{
	zcast_sub_stat st;
	CHECK_EQ(zcast_sub_stat_get(s, &st), 0);
	return st.history;
}

int main(void)
{
	zt_setup("subhist", 30);
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 16;
	po.history_depth = 4;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open("/sub/hist", &po, &p), 0);
	zcast_sub *none = join("/sub/hist", 4);
	CHECK_EQ(history_of(none), 0u); /* nothing published yet */
	for (int i = 0; i < 3; i++)
		zt_publish(p, (uint64_t)i, 48);
	zcast_sub *all = join("/sub/hist", 4), *two = join("/sub/hist", 2), *zero = join("/sub/hist", 0);
	CHECK_EQ(history_of(all), 3u); /* asked 4, kept 3 */
	CHECK_EQ(history_of(two), 2u);
	CHECK_EQ(history_of(zero), 0u);
	zt_publish(p, 9, 48); /* live: does not change the count */
	CHECK_EQ(history_of(all), 3u);
	/* The counted ones come first, oldest first; then the live one. */
	uint64_t seq[4];
	for (int i = 0; i < 4; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_take(all, &m), 0);
		seq[i] = zcast_msg_sequence(m);
		zcast_msg_drop(m);
	}
	CHECK(seq[0] == 1 && seq[1] == 2 && seq[2] == 3 && seq[3] == 4);
	CHECK_EQ(zcast_sub_queued(none), 4); /* joined before: all four live, none counted */
	zcast_sub_close(none);
	zcast_sub_close(all);
	zcast_sub_close(two);
	zcast_sub_close(zero);
	zcast_pub_close(p);
	printf("sub_history_count: ok\n");
	return 0;
}
