/* Subscriber: waits for messages and reads them in place, until its publisher has come and gone.
 *
 *   example_subscriber [TOPIC]     default: /example/chatter
 *
 * Build: cc subscriber.c $(pkg-config --cflags --libs zcast) */
#include <stdio.h>
#include <zcast/waitset.h>

int main(int argc, char **argv)
{
	const char *topic = argc > 1 ? argv[1] : "/example/chatter";
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	zcast_sub *sub;
	if (zcast_sub_open(topic, &o, &sub) < 0) {
		fprintf(stderr, "open %s: %s\n", topic, zcast_last_error());
		return 1;
	}
	int saw_publisher = 0, idle = 0;
	while (idle < 100) { /* 10 s without a publisher or a message ends it */
		/* A publisher we saw earlier and that is gone now has queued everything it
		 * published: decide before draining, so nothing it sent can come after the
		 * decision. */
		int publishers = zcast_sub_matched(sub), gone = saw_publisher && publishers == 0;
		saw_publisher |= publishers > 0;
		zcast_msg *msg;
		int got = 0;
		while (zcast_take(sub, &msg) == 0) {
			zcast_msg_info info;
			zcast_msg_info_get(msg, &info);
			printf("#%llu: %s\n", (unsigned long long)info.sequence,
			       (const char *)zcast_msg_data(msg));
			zcast_msg_drop(
			    msg); /* our hold ends; the slot returns to the publisher's pool */
			got = saw_publisher = 1;
		}
		if (gone)
			break;
		idle = got ? 0 : idle + 1;
		zcast_wait(sub, 100000000); /* until something is queued, at most 100 ms */
	}
	zcast_sub_close(sub);
	return saw_publisher ? 0 : 1;
}
