/* Issue 10, finding 8: a take that returns ZCAST_EAGAIN (nothing queued) must not leave the
 * detailed message of an earlier failed call in zcast_last_error(). */
#include "zt_hostile.h"

int main(void)
{
	zt_setup("errreset", 30);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/err/reset", NULL, &s), 0);
	zcast_sub *bad = NULL;
	CHECK_EQ(zcast_sub_open("no-slash", NULL, &bad), ZCAST_EINVAL);
	char old[512];
	snprintf(old, sizeof old, "%s", zcast_last_error());
	CHECK(old[0] != 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	printf("after EINVAL: \"%s\"; after EAGAIN: \"%s\"\n", old, zcast_last_error());
	if (strcmp(zcast_last_error(), old) == 0) {
		fprintf(
		    stderr,
		    "FAIL: take returned ZCAST_EAGAIN and zcast_last_error() still says \"%s\"\n",
		    old);
		zt_fail();
	}
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
