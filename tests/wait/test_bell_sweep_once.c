/* Issue 22, item 8: creating a doorbell does not sweep /dev/shm every time. Each creation once
 * opened every zcast-bell.* file of the host to reap those of killed owners (233-324 ms with 20,000
 * files, on every wait set's first subscriber). A process now sweeps at its first doorbell only;
 * a killed owner's file is otherwise removed by the reclaim of its subscribers and by
 * zcast_doorbell_gc. This test counts the library's opendir("/dev/shm") calls (it interposes
 * opendir) while it creates 5 wait sets with a doorbell each, its topic held open throughout (the
 * last close of a topic lists /dev/shm for its pools): at most one. zcast_doorbell_gc still sweeps. */
#include <dlfcn.h>

#include "harness.h"

static _Atomic int shm_listings;

DIR *opendir(const char *name)
{
	static DIR *(*real)(const char *);
	if (!real)
		real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
	if (strcmp(name, "/dev/shm") == 0)
		atomic_fetch_add(&shm_listings, 1);
	return real(name);
}

int main(void)
{
	zt_setup("sweeponce", 60);
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/sweep/t", NULL, &s), 0);
	int before = atomic_load(&shm_listings);
	for (int i = 0; i < 5; i++) {
		zcast_waitset *ws;
		int id;
		CHECK_EQ(zcast_waitset_create(&ws), 0);
		CHECK_EQ(zcast_waitset_add_sub(ws, s, NULL, &id), 0); /* makes the doorbell */
		zcast_waitset_destroy(ws);
	}
	int listings = atomic_load(&shm_listings) - before;
	printf("5 doorbells created: /dev/shm listed %d times\n", listings);
	CHECK(listings <= 1);
	before = atomic_load(&shm_listings);
	CHECK(zcast_doorbell_gc() >= 0);
	CHECK_EQ(atomic_load(&shm_listings) - before, 1);
	zcast_sub_close(s);
	return 0;
}
