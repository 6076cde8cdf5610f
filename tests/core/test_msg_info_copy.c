/* Issue 22, item 15: zcast_msg_info_get answers from the copy made at take. A message's slot
 * header is shared memory its publisher (or a scribbler) can rewrite while the subscriber holds the
 * message; before, info_get re-read it and reported the rewritten sequence, time and publisher. */
#include "zt_hostile.h"

int main(void)
{
	zt_setup("infocopy", 30);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/info/copy", NULL, &s), 0);
	zcast_pub *p = zt_open_pub("/info/copy", 64, 2);
	zt_publish(p, 7, 32);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_info before;
	CHECK_EQ(zcast_msg_info_get(m, &before), 0);
	char path[300];
	CHECK(zt_find_pool(path, sizeof path));
	struct zt_map pool = zt_map_path(path);
	struct zc_slot_hdr *sl = zt_slot(pool.p, before.slot);
	sl->seq = 999999;
	sl->time_ns = 1;
	sl->publisher_id = 424242;
	zcast_msg_info after;
	CHECK_EQ(zcast_msg_info_get(m, &after), 0);
	printf("sequence %llu -> %llu, publisher %llu -> %llu\n",
	       (unsigned long long)before.sequence, (unsigned long long)after.sequence,
	       (unsigned long long)before.publisher_id, (unsigned long long)after.publisher_id);
	CHECK_EQ(after.sequence, before.sequence);
	CHECK_EQ(after.sequence, zcast_msg_sequence(m));
	CHECK_EQ(after.publish_time_ns, before.publish_time_ns);
	CHECK_EQ(after.publisher_id, zcast_pub_id(p));
	zcast_msg_drop(m);
	munmap(pool.p, pool.size);
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
