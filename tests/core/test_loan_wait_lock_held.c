/* A zcast_loan_wait whose pool only DROP_OLD queues hold gets its slot back even when a live member
 * holds the topic lock past the lock's own 2 s timeout (3.5 s, zt_lock_holder.h). The subscriber
 * never takes: only the loan's unpin (drop_old.c), under the lock, frees a slot. Before, an unpin
 * whose lock timed out was skipped and zcast_loan_wait(-1) slept on for a free that never came
 * (here: until the test's 60 s watchdog). */
#include "zt_lock_holder.h"

#define TOPIC "/loan/held"

int main(void)
{
	zt_setup("loanheld", 60);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8); /* room for all: no drop */
	zcast_pub *p = zt_open_pub(TOPIC, 64, 2);
	zt_publish(p, 1, 32);
	zt_publish(p, 2, 32); /* both slots queued in s, which never takes */
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, false);
	zt_lock_holder_release_after(&lh, 3500);
	fprintf(stderr, "zcast_loan_wait(-1) on a pool the queue holds, behind a lock held 3.5 s "
			"(60 s watchdog)\n");
	zcast_msg *m = NULL;
	int r = zcast_loan_wait(p, 32, -1, &m);
	printf("zcast_loan_wait(-1): %d (%s)\n", r, r ? zcast_last_error() : "a loan");
	CHECK_EQ(r, 0);
	zcast_msg_drop(m);
	zt_lock_holder_end(&lh);
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
