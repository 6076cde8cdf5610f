/* Minimal subscriber: waits for messages and reads them in place. Build: cc subscriber.c -lzcast */
#include <stdio.h>
#include <zcast/zcast.h>

int main(void)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	zcast_sub *sub;
	if (zcast_sub_open("/example/chatter", &o, &sub) < 0) {
		fprintf(stderr, "open: %s\n", zcast_last_error());
		return 1;
	}
	int got = 0;
	while (got < 10 && zcast_wait(sub, 3000000000) == 0) { /* 3 s without a message ends it */
		zcast_msg *msg;
		while (zcast_take(sub, &msg) == 0) {
			zcast_msg_info info;
			zcast_msg_info_get(msg, &info);
			printf("#%llu: %s\n", (unsigned long long)info.sequence,
			       (const char *)zcast_msg_data(msg));
			zcast_msg_drop(msg); /* the slot returns to the publisher's pool */
			got++;
		}
	}
	zcast_sub_close(sub);
	return 0;
}
