/* Issue 10, finding 8: zcast_loan on a publisher that was closed (its handle kept alive by a loan
 * still outstanding) fails with ZCAST_ESTALE and hands out nothing. */
#include "zt_hostile.h"

int main(void)
{
	zt_setup("loanclosed", 30);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = 4;
	zcast_pub *p = NULL;
	CHECK_EQ(zcast_pub_open("/closed/loan", &o, &p), 0);
	zcast_msg *outstanding;
	CHECK_EQ(zcast_loan(p, 64, &outstanding), 0);
	zcast_pub_close(p);
	zcast_msg *m = NULL;
	int r = zcast_loan(p, 64, &m);
	printf("loan on a closed publisher: %d (%s)\n", r, zcast_last_error());
	if (r == 0) {
		fprintf(stderr, "FAIL: a closed publisher handed out a loan\n");
		zcast_msg_drop(m);
		zcast_msg_drop(outstanding);
		zt_fail();
	}
	CHECK_EQ(r, ZCAST_ESTALE);
	CHECK(m == NULL);
	CHECK_EQ(zcast_publish(p, outstanding), ZCAST_ESTALE);
	zcast_msg_drop(outstanding);
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
