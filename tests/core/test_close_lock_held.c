/* A close completes however long a live member holds the topic lock. A publisher is held under the
 * lock 5 s (zt_lock_holder.h), past the lock's own 2 s timeout, as one descheduled on a loaded
 * machine can be; meanwhile one live process closes a publisher and another a subscriber. Each
 * close must return with its record retired (FREE). Before, a close whose lock timed out skipped
 * that: the publisher's record stayed ACTIVE, the subscriber's stayed ACTIVE and a target of every
 * publish, until a reclaim found the member gone. The test looks at a record as soon as its close
 * returns: on the old library that was while the holder still held the lock, so no reclaim could
 * have retired it yet. */
#include "zt_lock_holder.h"

#define TOPIC "/close/held"

struct closer {
	bool sub;
	int up[2], down[2];
	pid_t pid;
	uint64_t id;
};

/* Opens its handle, tells its id, closes when told, says so, and stays alive until told. */
static int closer_main(void *arg)
{
	struct closer *c = arg;
	zcast_sub *s = c->sub ? zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 8) : NULL;
	zcast_pub *p = c->sub ? NULL : zt_open_pub(TOPIC, 64, 4);
	uint64_t id = s ? zcast_sub_id(s) : zcast_pub_id(p);
	CHECK_EQ(write(c->up[1], &id, sizeof id), (ssize_t)sizeof id);
	zt_await(c->down[0]);
	zt_signal(c->up[1]); /* closing now */
	CHECK_EQ(c->sub ? zcast_sub_close(s) : zcast_pub_close(p), 0);
	zt_signal(c->up[1]); /* closed */
	zt_await(c->down[0]);
	return 0;
}

static void closer_start(struct closer *c, bool sub)
{
	*c = (struct closer){.sub = sub};
	CHECK_EQ(pipe(c->up), 0);
	CHECK_EQ(pipe(c->down), 0);
	c->pid = zt_fork(closer_main, c);
	CHECK_EQ(read(c->up[0], &c->id, sizeof c->id), (ssize_t)sizeof c->id);
}

/* Is the closer's record still there (not FREE), once its close returned? */
static bool record_left(struct zc_topic_hdr *h, const struct closer *c)
{
	zt_await(c->up[0]);
	bool left = c->sub ? zt_sub_rec(h, c->id) != NULL : zt_pub_rec(h, c->id) != NULL;
	printf("%s %llu closed: its record %s\n", c->sub ? "subscriber" : "publisher",
	       (unsigned long long)c->id, left ? "is still there" : "is retired");
	return left;
}

int main(void)
{
	zt_setup("closeheld", 60);
	struct closer pc, sc;
	closer_start(&pc, false);
	closer_start(&sc, true);
	struct zc_topic_hdr *h = zt_map_topic(TOPIC, NULL);
	struct zt_lock_holder lh;
	zt_lock_holder_start(&lh, TOPIC, false);
	zt_signal(pc.down[1]);
	zt_signal(sc.down[1]);
	zt_await(pc.up[0]);
	zt_await(sc.up[0]); /* both are closing */
	zt_lock_holder_release_after(&lh, 5000);
	bool pub_left = record_left(h, &pc), sub_left = record_left(h, &sc);
	zt_lock_holder_end(&lh);
	CHECK(!pub_left);
	CHECK(!sub_left);
	zt_signal(pc.down[1]);
	zt_signal(sc.down[1]);
	CHECK_CHILD_OK(pc.pid);
	CHECK_CHILD_OK(sc.pid);
	printf("ok\n");
	return 0;
}
