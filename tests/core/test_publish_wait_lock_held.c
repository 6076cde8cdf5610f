/* An infinite zcast_publish_wait is not ended by the topic lock's own timeout. A live publisher holds
 * the topic lock longer than that timeout (2 s; held under it 3.5 s, zt_lock_holder.h), as one
 * descheduled on a loaded machine can; another publisher's zcast_publish_wait with timeout -1 must
 * wait for it and publish. Before, it returned ZCAST_ETIMEDOUT ("lock held by member N"): the chaos
 * test saw it at load 20-50. A plain zcast_publish still gives up (it must not wait). */
#include "zt_lock_holder.h"

#define TOPIC "/lock/held"

int main(void)
{
	zt_setup("lockheld", 60);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, false);
	zt_lock_holder_release_after(&lh, 3500);
	zcast_msg *m = NULL;
	CHECK_EQ(zcast_loan(p, 32, &m), 0);
	int r = zcast_publish_wait(p, m, -1);
	printf("zcast_publish_wait(-1) behind a lock held 3.5 s: %d (%s)\n", r,
	       r ? zcast_last_error() : "published");
	CHECK_EQ(r, 0);
	zt_lock_holder_end(&lh);
	int got = 0;
	while (zcast_take(s, &m) == 0) {
		got++;
		zcast_msg_drop(m);
	}
	CHECK_EQ(got, 2); /* the holder's message and ours */
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
