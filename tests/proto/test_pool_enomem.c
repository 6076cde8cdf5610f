/* Issue 10, finding 8: a pool larger than /dev/shm can hold (256 GiB asked) fails with ZCAST_ENOMEM
 * and a message that names the size asked and the space available, not "/dev/shm is full" (it is
 * not). The publisher's topic is left as it was: nothing remains once it is gone. */
#include <sys/statvfs.h>

#include "zt_hostile.h"

int main(void)
{
	zt_setup("poolnomem", 30);
	struct statvfs vfs;
	CHECK_EQ(statvfs("/dev/shm", &vfs), 0);
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail >= (256ull << 30)) {
		printf("SKIP: /dev/shm has %llu bytes available: 256 GiB would fit\n",
		       (unsigned long long)avail);
		return ZT_SKIP;
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 1u << 20;
	o.slot_count = 262144; /* 256 GiB of payload */
	zcast_pub *p = NULL;
	int r = zcast_pub_open("/nomem/big", &o, &p);
	const char *e = zcast_last_error();
	printf("256 GiB pool with %llu bytes available: %d (%s)\n", (unsigned long long)avail, r,
	       e);
	CHECK_EQ(r, ZCAST_ENOMEM);
	if (strstr(e, "full")) {
		fprintf(stderr,
			"FAIL: the message says /dev/shm is full; it has %llu bytes available\n",
			(unsigned long long)avail);
		zt_fail();
	}
	/* The size asked, in bytes or rounded units, and the space available. */
	CHECK(strstr(e, "256") || strstr(e, "274877") || strstr(e, "262144") ||
	      strstr(e, "268435"));
	CHECK(strstr(e, "avail") || strstr(e, "free"));
	CHECK_EQ(zt_shm_count(), 0);
	printf("ok\n");
	return 0;
}
