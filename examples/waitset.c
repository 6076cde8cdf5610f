/* Wait set: one thread waits for two topics, a periodic timer and Ctrl-C, in one call.
 *
 *   example_waitset        subscribes to /example/temperature and /example/pressure
 *   (publish with: example_publisher /example/temperature 5 & example_publisher /example/pressure
 * 5)
 *
 * Each event names the entry that is ready; the subscriber entries are level-triggered (reported
 * while messages are queued), so we take until ZCAST_EAGAIN. The timer checks, every 100 ms,
 * whether both publishers have come and gone; the guard is triggered from the SIGINT handler (it is
 * async-signal-safe) and ends the loop cleanly. Build: cc waitset.c $(pkg-config --cflags --libs
 * zcast) */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <zcast/waitset.h>

static zcast_guard *interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	zcast_guard_trigger(interrupted);
}

int main(void)
{
	const char *topics[2] = {"/example/temperature", "/example/pressure"};
	zcast_sub *subs[2];
	zcast_waitset *ws;
	int timer_id, guard_id, sub_id;
	if (zcast_waitset_create(&ws) < 0 || zcast_guard_create(&interrupted) < 0)
		goto fail;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	for (int i = 0; i < 2; i++)
		if (zcast_sub_open(topics[i], &o, &subs[i]) < 0 ||
		    zcast_waitset_add_sub(ws, subs[i], (void *)topics[i], &sub_id) < 0)
			goto fail;
	if (zcast_waitset_add_timer(ws, 100000000, NULL, &timer_id) < 0 ||
	    zcast_waitset_add_guard(ws, interrupted, NULL, &guard_id) < 0)
		goto fail;
	signal(SIGINT, on_sigint);

	int heard[2] = {0, 0}, done = 0;
	while (!done) {
		zcast_ws_event ev[4];
		int n = zcast_waitset_wait(ws, 10000000000, ev,
					   4); /* 10 s with no event at all: give up */
		if (n < 0)
			goto fail;
		for (int i = 0; i < n; i++) {
			if (ev[i].kind == ZCAST_WS_SUB) {
				const char *topic =
				    ev[i].user; /* the `user` pointer given at add */
				int t = topic == topics[1];
				zcast_msg *m;
				while (zcast_take(subs[t], &m) == 0) {
					heard[t] = 1;
					printf("%s: %s\n", topic, (const char *)zcast_msg_data(m));
					zcast_msg_drop(m);
				}
			} else if (ev[i].id == timer_id) {
				/* Both topics were heard from, their publishers have left, and
				 * nothing is queued any more (checked in this order: a publisher
				 * queues before it leaves): done. */
				int live = zcast_sub_matched(subs[0]) + zcast_sub_matched(subs[1]);
				done = heard[0] && heard[1] && live == 0 &&
				       zcast_sub_queued(subs[0]) + zcast_sub_queued(subs[1]) == 0;
			} else if (ev[i].id == guard_id) {
				printf("interrupted\n");
				done = 1;
			}
		}
	}
	zcast_waitset_destroy(ws); /* first the wait set, then what was attached to it */
	zcast_guard_destroy(interrupted);
	for (int i = 0; i < 2; i++)
		zcast_sub_close(subs[i]);
	return 0;
fail:
	fprintf(stderr, "waitset example: %s\n", zcast_last_error());
	return 1;
}
