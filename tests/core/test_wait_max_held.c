/* Issue 22, item 19: zcast_wait waits for what a take can get. A subscriber at max_held with a
 * message queued used to return 0 from zcast_wait at once while the next zcast_take said
 * ZCAST_ELIMIT, so a wait/take loop spun. Now the wait sleeps until a release makes room (or its
 * timeout passes), as wait sets and executors already did. */
#include <pthread.h>

#include "zt_hostile.h"

static zcast_msg *held;

static void *release_later(void *arg)
{
	(void)arg;
	zt_sleep_ms(50);
	zcast_msg_drop(held);
	return NULL;
}

int main(void)
{
	zt_setup("waitheld", 30);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.max_held = 1;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/wait/held", &so, &s), 0);
	zcast_pub *p = zt_open_pub("/wait/held", 64, 4);
	zt_publish(p, 1, 32);
	zt_publish(p, 2, 32);
	CHECK_EQ(zcast_take(s, &held), 0);
	zcast_msg *m;
	CHECK_EQ(zcast_take(s, &m), ZCAST_ELIMIT);
	/* Queued but not takeable: the wait must not report it as ready. */
	int r = zcast_wait(s, 100000000);
	printf("wait at max_held: %d (next take would say ZCAST_ELIMIT)\n", r);
	CHECK_EQ(r, ZCAST_ETIMEDOUT);
	/* A release in another thread ends the wait, and then the take succeeds. */
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, release_later, NULL), 0);
	CHECK_EQ(zcast_wait(s, -1), 0);
	CHECK_EQ(zcast_take(s, &m), 0);
	pthread_join(th, NULL);
	zcast_msg_drop(m);
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("ok\n");
	return 0;
}
