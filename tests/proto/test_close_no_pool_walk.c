/* Issue 22, item 14: a subscriber's close releases what its own queue held and walks no pool.
 * Before, zc_reclaim_sub walked every slot of every pool of the topic on each close: here it mapped
 * the headers of the 8 pools of 8 publishers (in other processes) that never sent this subscriber
 * anything, and read every slot header of them. Seen from outside as the pool mappings the close
 * leaves in this process (the topic stays mapped through a second subscriber). */
#include "zt_hostile.h"

#define TOPIC "/close/nowalk"
#define PUBS 8

static int go[2];

static int publisher(void *arg)
{
	(void)arg;
	close(go[1]);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 64);
	char c;
	if (read(go[0], &c, 1) != 1) { /* lives until the test ends */
	}
	zcast_pub_close(p);
	return 0;
}

/* Mappings of this domain's pool files in this process. */
static int pool_mappings(void)
{
	char needle[64], line[512];
	snprintf(needle, sizeof needle, "zcast.%s.@", zt_domain());
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	zt_setup("closewalk", 60);
	CHECK_EQ(pipe(go), 0);
	zcast_sub *keep = NULL, *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &keep), 0);
	pid_t pids[PUBS];
	for (int i = 0; i < PUBS; i++)
		pids[i] = zt_fork(publisher, NULL);
	CHECK(ZT_POLL(zt_pool_count() == PUBS, 10000));
	CHECK_EQ(zcast_sub_open(TOPIC, NULL, &s), 0);
	int before = pool_mappings();
	CHECK_EQ(zcast_sub_close(s), 0);
	int after = pool_mappings();
	printf("pool mappings in this process: %d before the close, %d after\n", before, after);
	CHECK_EQ(after, before);
	close(go[1]);
	for (int i = 0; i < PUBS; i++)
		CHECK_CHILD_OK(pids[i]);
	zcast_sub_close(keep);
	printf("ok\n");
	return 0;
}
