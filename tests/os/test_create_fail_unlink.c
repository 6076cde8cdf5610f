/* A creator whose new topic file cannot be sized (posix_fallocate fails: here RLIMIT_FSIZE, in life
 * a full /dev/shm) removes the file before it lets go of it. It used to close first (releasing
 * byte 0) and unlink the name after. In between, an opener took the empty, unlocked file for a dead
 * creator's, removed it and created the topic anew; the failing creator's late unlink then removed
 * that live topic, whose members were left on a file no later opener finds. ZCAST_PAUSE_AT (test
 * builds) holds the creator between the two steps. */
#include <signal.h>
#include <sys/resource.h>

#include "zt_hostile.h"
#include "zt_pause.h"
#include "zt_seg.h"
#include "zt_skip.h"

#define TOPIC "/cfail/t"

static int failing_creator(void *arg)
{
	(void)arg;
	signal(SIGXFSZ, SIG_IGN); /* posix_fallocate then fails with EFBIG */
	struct rlimit rl = {4096, 4096};
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
	setenv("ZCAST_PAUSE_AT", "shm:create-failed:2000", 1);
	zcast_sub *s = NULL;
	int r = zcast_sub_open(TOPIC, NULL, &s);
	printf("creator under RLIMIT_FSIZE 4096: open %d (%s)\n", r, zcast_last_error());
	return r == ZCAST_ENOMEM ? 0 : 1;
}

int main(void)
{
	zt_setup("cfail", 60);
	pid_t c = zt_fork(failing_creator, NULL);
	if (!ZT_POLL(zt_in_pause(c), 10000)) {
		fprintf(stderr, "FAIL: the creator never reached shm:create-failed\n");
		zt_fail();
	}
	zcast_sub *s = zt_open_sub(TOPIC, ZCAST_POLICY_DROP_OLD, 4);
	bool window = zt_in_pause(c);
	CHECK_CHILD_OK(c);
	if (!window) {
		zt_skip_part("race", "the creator's pause ended before our open was done");
		zcast_sub_close(s);
		return zt_status();
	}
	/* Our topic is still the one its name opens: a publisher opened now reaches us. */
	char path[400];
	zt_topic_path(path, sizeof path, TOPIC);
	CHECK_EQ(access(path, F_OK), 0);
	zcast_pub *p = zt_open_pub(TOPIC, 64, 4);
	zt_publish(p, 1, 32);
	zcast_msg *m = NULL;
	CHECK_EQ(zcast_take(s, &m), 0);
	zcast_msg_drop(m);
	zcast_pub_close(p);
	zcast_sub_close(s);
	return 0;
}
