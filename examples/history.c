/* History: a late joiner receives the last messages published before it subscribed.
 *
 *   example_history publish   publishes readings 1..10, keeps the last 5 as history, and exits;
 *                             the topic is `retain`ed, so it outlives its publisher
 *   example_history           joins afterwards, asks for 5 history messages and gets 6..10
 *                             (oldest first), then removes the retained topic
 *
 * Without `retain` the topic (and its history) goes away with its last member; a late joiner then
 * needs the publisher to still be there. Build: cc history.c $(pkg-config --cflags --libs zcast) */
#include <stdio.h>
#include <string.h>
#include <zcast/zcast.h>

#define TOPIC "/example/map"

static int publish(void)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = "example/Text";
	o.slot_size = 64;
	o.history_depth = 5; /* the last 5 published messages stay for late joiners */
	o.topic.retain = 1;  /* ...even after everyone has left (latched data: maps, calibration) */
	zcast_pub *pub;
	if (zcast_pub_open(TOPIC, &o, &pub) < 0)
		return -1;
	for (int i = 1; i <= 10; i++) {
		zcast_msg *m;
		if (zcast_loan(pub, 64, &m) < 0)
			return -1;
		snprintf(zcast_msg_data(m), 64, "reading %d", i);
		if (zcast_publish(pub, m) <
		    0) /* no subscriber yet: it only goes into the history */
			return -1;
	}
	printf("published 10 readings, 5 kept as history\n");
	return zcast_pub_close(pub);
}

static int late_join(void)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	o.history = 5; /* queued at join, before anything newer */
	zcast_sub *sub;
	if (zcast_sub_open(TOPIC, &o, &sub) < 0)
		return -1;
	zcast_msg *m;
	while (zcast_take(sub, &m) == 0) {
		zcast_msg_info info;
		zcast_msg_info_get(m, &info);
		printf("late joiner got #%llu: %s\n", (unsigned long long)info.sequence,
		       (const char *)zcast_msg_data(m));
		zcast_msg_drop(m);
	}
	zcast_sub_close(sub);
	return zcast_topic_remove(NULL, TOPIC); /* a retained topic stays until removed */
}

int main(int argc, char **argv)
{
	int r = argc > 1 && strcmp(argv[1], "publish") == 0 ? publish() : late_join();
	if (r < 0)
		fprintf(stderr, "history example: %s\n", zcast_last_error());
	return r < 0;
}
