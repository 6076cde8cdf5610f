/* Publisher: loans a slot, writes the text in place, publishes.
 *
 *   example_publisher [TOPIC [COUNT [SUBSCRIBERS]]]     defaults: /example/chatter 10 1
 *
 * It first waits until SUBSCRIBERS subscribers have joined (messages published before anyone
 * listens reach nobody, unless the topic keeps history: see history.c), then publishes COUNT
 * messages "hello 0" ... and leaves. Build: cc publisher.c $(pkg-config --cflags --libs zcast) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zcast/waitset.h>

int main(int argc, char **argv)
{
	const char *topic = argc > 1 ? argv[1] : "/example/chatter";
	int count = argc > 2 ? atoi(argv[2]) : 10, want = argc > 3 ? atoi(argv[3]) : 1;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = "example/Text"; /* every opener of the topic must name the same type */
	o.slot_size = 256;
	zcast_pub *pub;
	if (zcast_pub_open(topic, &o, &pub) < 0) {
		fprintf(stderr, "open %s: %s\n", topic, zcast_last_error());
		return 1;
	}
	for (int i = 0; zcast_pub_matched(pub) < want; i++) { /* give up after 10 s */
		if (i == 1000) {
			fprintf(stderr, "%s: no subscriber came\n", topic);
			return 1;
		}
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	for (int i = 0; i < count; i++) {
		zcast_msg *msg;
		if (zcast_loan_wait(pub, 64, 1000000000, &msg) != 0) {
			fprintf(stderr, "loan: %s\n", zcast_last_error());
			return 1;
		}
		/* The payload is written directly in shared memory: no copy on the way. */
		snprintf(zcast_msg_data(msg), 64, "hello %d", i);
		/* A full FULL-policy queue refuses the publish (the loan stays ours): wait for
		 * room. */
		if (zcast_publish_wait(pub, msg, 2000000000) != 0) {
			fprintf(stderr, "publish: %s\n", zcast_last_error());
			zcast_msg_drop(msg);
			return 1;
		}
	}
	zcast_pub_close(pub); /* subscribers see the publisher leave (zcast_sub_matched) */
	return 0;
}
