/* Minimal publisher: loans a slot, writes in place, publishes. Build: cc publisher.c -lzcast */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zcast/zcast.h>

int main(void)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = "example/Text";
	o.slot_size = 256;
	zcast_pub *pub;
	int r = zcast_pub_open("/example/chatter", &o, &pub);
	if (r < 0) {
		fprintf(stderr, "open: %s\n", zcast_last_error());
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		zcast_msg *msg;
		if (zcast_loan(pub, 64, &msg) == 0) {
			/* The payload is written directly in shared memory: no copy on the way. */
			snprintf(zcast_msg_data(msg), 64, "hello %d", i);
			if (zcast_publish(pub, msg) < 0) /* on failure the loan is still ours */
				zcast_msg_drop(msg);
		}
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
	zcast_pub_close(pub);
	return 0;
}
