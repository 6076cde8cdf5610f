/* Executor: callbacks instead of a wait loop. Two worker threads run the callbacks; a timer checks
 * once per 100 ms whether the publisher has come and gone; Ctrl-C or SIGTERM stop it cleanly.
 *
 *   example_executor        subscribes to /example/chatter  (publish with: example_publisher)
 *
 * Callbacks of one subscription never run at the same time (unless added with
 * ZCAST_EXEC_CONCURRENT), so `count` needs no lock here even with two threads; a callback that
 * also touches state of another subscription or a timer would need one.
 * Build: cc executor.c $(pkg-config --cflags --libs zcast) */
#include <stdatomic.h>
#include <stdio.h>
#include <zcast/executor.h>

struct app {
	zcast_executor *ex;
	zcast_sub *sub;
	zcast_timer *timer;
	atomic_int count; /* written by the message callback, read by the timer callback */
};

/* `msg` is borrowed: the executor drops it when we return (zcast_msg_ref to keep it longer). */
static void on_message(zcast_sub *sub, zcast_msg *msg, void *ctx)
{
	struct app *app = ctx;
	(void)sub;
	/* Sequence and publish time come with the message: inline, no call into the library. */
	printf("callback #%llu: %s\n", (unsigned long long)zcast_msg_sequence(msg),
	       (const char *)zcast_msg_data(msg));
	fflush(stdout);
	atomic_fetch_add(&app->count, 1);
}

/* `missed`: expiries that passed while the executor was too busy to call us (0 normally). */
static void on_timer(zcast_timer *timer, uint64_t missed, void *ctx)
{
	struct app *app = ctx;
	(void)timer; /* the handle: zcast_timer_cancel / reset / set_period work from any thread */
	(void)missed;
	/* The publisher left after it published; once it is gone and nothing is queued, stop. */
	if (atomic_load(&app->count) > 0 && zcast_sub_matched(app->sub) == 0 &&
	    zcast_sub_queued(app->sub) == 0)
		zcast_executor_stop(app->ex); /* allowed from a callback: spin returns afterwards */
}

int main(void)
{
	struct app app = {0};
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = 2;
	if (zcast_sub_open("/example/chatter", &o, &app.sub) < 0 ||
	    zcast_executor_create(&eo, &app.ex) < 0 ||
	    zcast_executor_add_sub(app.ex, app.sub, on_message, &app, 0) < 0 ||
	    zcast_executor_add_timer2(app.ex, 100000000, 0, on_timer, &app, &app.timer) < 0 ||
	    zcast_executor_stop_on_signals(app.ex) < 0 || zcast_executor_spin(app.ex) < 0) {
		fprintf(stderr, "executor example: %s\n", zcast_last_error());
		return 1;
	}
	printf("received %d messages\n", atomic_load(&app.count));
	zcast_executor_destroy(app.ex); /* the executor first: it borrows the subscriber */
	zcast_sub_close(app.sub);
	return 0;
}
