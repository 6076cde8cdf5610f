/* Issue 22, item 1: a take whose pool file is gone or was replaced after this process mapped the
 * pool's headers (any reclaim in the process does: here zcast_topic_gc) drops and counts that entry
 * and goes on with the next one. Before, it returned ZCAST_ENOMEM on every call and kept the entry:
 * the three good messages of another publisher behind it were never taken (0 in 24 takes). */
#include <stdbool.h>

#include "zt_hostile.h"

#define TOPIC "/take/gone"

static int publish_one(void *arg)
{
	(void)arg;
	zcast_pub *a = zt_open_pub(TOPIC, 64, 4);
	zt_publish(a, 1, 32);
	zcast_pub_close(a); /* the pool is orphaned, kept while our message is queued */
	return 0;
}

static void run(bool replace)
{
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 8;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(TOPIC, &so, &s), 0);
	CHECK_CHILD_OK(zt_fork(publish_one, NULL)); /* publisher A, in another process */
	char path[300];
	CHECK(zt_find_pool(path, sizeof path)); /* A's pool: the only one so far */
	CHECK(zcast_topic_gc(NULL, TOPIC) >= 0); /* maps A's headers in this process */
	CHECK_EQ(unlink(path), 0);
	if (replace) { /* another file under the same name, as big as the old one */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0);
		CHECK_EQ(ftruncate(fd, 1 << 20), 0);
		close(fd);
	}
	zcast_pub *b = zt_open_pub(TOPIC, 64, 4);
	for (uint64_t i = 0; i < 3; i++)
		zt_publish(b, 10 + i, 32);
	int taken = 0, r = 0;
	for (int i = 0; i < 24 && taken < 3; i++) {
		zcast_msg *m;
		r = zcast_take(s, &m);
		if (r == 0) {
			CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), NULL, NULL));
			taken++;
			zcast_msg_drop(m);
		}
	}
	printf("%s: %d of 3 good messages taken (last take: %d, %s)\n",
	       replace ? "replaced" : "gone", taken, r, zcast_last_error());
	CHECK_EQ(taken, 3);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), ZCAST_EAGAIN);
	zcast_sub_stat st;
	CHECK_EQ(zcast_sub_stat_get(s, &st), 0);
	CHECK_EQ(st.dropped, 1); /* the undeliverable entry, counted */
	zcast_pub_close(b);
	zcast_sub_close(s);
	if (replace)
		unlink(path);
}

static void gone(void)
{
	run(false);
}

static void replaced(void)
{
	run(true);
}

int main(void)
{
	zt_setup("takegone", 60);
	static const struct zt_case cases[] = {ZT_CASE(gone), ZT_CASE(replaced)};
	return zt_run_cases(cases, 2, 30);
}
