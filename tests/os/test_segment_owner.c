/* Issue 10, finding 6: an opener checks who made a segment before trusting it. Another local user
 * (uid 65534) creates a topic with mode 0666 and a valid layout, as a trap; a victim running as uid
 * 65533 with default options (mode 0600) must not join it: its open fails with ZCAST_EPERM and the
 * message names the owner's uid and the mode. Needs root to run both sides as other uids: skipped
 * with 77 otherwise. */
#include "zt_hostile.h"

#define TOPIC "/trust/owner"
#define OWNER 65534
#define VICTIM 65533

struct args {
	int ready_w, done_r;
};

static int owner_main(void *a_)
{
	struct args *a = a_;
	if (zt_become(OWNER, OWNER) != 0)
		return 2;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.topic.mode = 0666;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &o, &s), 0);
	zt_signal(a->ready_w);
	zt_await(a->done_r);
	zcast_sub_close(s);
	return 0;
}

static int victim_main(void *arg)
{
	(void)arg;
	if (zt_become(VICTIM, VICTIM) != 0)
		return 2;
	zcast_sub *s = NULL;
	int r = zcast_sub_open(TOPIC, NULL, &s);
	const char *e = zcast_last_error();
	printf("victim (uid %d) opening a 0666 topic of uid %d: %d (%s)\n", VICTIM, OWNER, r, e);
	if (r == 0) {
		fprintf(stderr, "FAIL: uid %d joined a world-writable topic made by uid %d\n",
			VICTIM, OWNER);
		zcast_sub_close(s);
		return 1;
	}
	CHECK_EQ(r, ZCAST_EPERM);
	CHECK_MSG_HAS(e, "65534");
	CHECK(strstr(e, "0666") || strstr(e, "666"));
	return 0;
}

int main(void)
{
	zt_setup("segowner", 60);
	if (geteuid() != 0) {
		printf(
		    "SKIP: needs root to run the topic's owner and its victim as uids %d and %d\n",
		    OWNER, VICTIM);
		return ZT_SKIP;
	}
	int ready[2], done[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(done), 0);
	struct args a = {ready[1], done[0]};
	pid_t owner = zt_fork(owner_main, &a);
	zt_await(ready[0]);
	char path[400];
	zt_topic_path(path, sizeof path, TOPIC);
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_uid, OWNER);
	CHECK_EQ(st.st_mode & 0777, 0666);

	pid_t victim = zt_fork(victim_main, NULL);
	zt_child_ok_within(victim, 10000, "victim opening another user's topic");
	zt_signal(done[1]);
	CHECK_CHILD_OK(owner);
	printf("ok\n");
	return 0;
}
