/* The death watcher reclaims a dead member however long a live member holds the topic lock. A
 * victim publisher is killed while another publisher is held under the lock for 20 s
 * (zt_lock_holder.h: its own watcher off, and it stays open after, so that nothing else makes
 * anyone reclaim); the watcher of the test's subscriber must reclaim the victim once the lock is
 * free. Before, each of its reclaims gave up after the lock's 2 s timeout, its retries (lock probes
 * after the victim's close) ran out meanwhile, and the victim's record stayed ACTIVE. */
#include "zt_lock_holder.h"

#define TOPIC "/reclaim/held"

static int to_parent[2];

static int victim(void *arg)
{
	(void)arg;
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	uint64_t id = zcast_pub_id(p);
	CHECK_EQ(write(to_parent[1], &id, sizeof id), (ssize_t)sizeof id);
	for (;;)
		pause();
}

int main(void)
{
	zt_setup("reclaimheld", 90);
	CHECK_EQ(pipe(to_parent), 0);
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8); /* our watcher */
	pid_t v = zt_fork(victim, NULL);
	uint64_t id;
	CHECK_EQ(read(to_parent[0], &id, sizeof id), (ssize_t)sizeof id);
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	setenv("ZCAST_NO_DEATH_WATCH", "1", 1); /* the holder's: it would reclaim at its release */
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, true);
	unsetenv("ZCAST_NO_DEATH_WATCH");
	kill(v, SIGKILL);
	CHECK(WIFSIGNALED(zt_wait(v)));
	zt_lock_holder_release_after(&lh, 20000);
	zt_lock_holder_released(&lh);
	ZT_EVENTUALLY(zt_pub_rec(h, id) == NULL); /* reclaimed: its record FREE */
	printf("the victim's record is reclaimed after the lock was let go\n");
	zt_lock_holder_end(&lh);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
