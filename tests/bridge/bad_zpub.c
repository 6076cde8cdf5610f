/* A zcast publisher on a typed topic (std_msgs/msg/String's name and hash) whose messages are not
 * all Strings, for the bridge's test of what an out route sends (out_invalid_audit_test.sh):
 * a String whose length runs past the message, a valid "hi", 3 bytes (no CDR header), a valid "ok".
 *   bad_zpub <topic>   (waits for one subscriber: the bridge) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "std_msgs/msg/String.h"

static const unsigned char too_long[] = {0, 0, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 0, 0, 'h', 'i', 0};
static const unsigned char hi[] = {0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0};
static const unsigned char tiny[] = {0, 0, 0};
static const unsigned char ok[] = {0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0, 'o', 'k', 0};

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = std_msgs_msg_String_TYPE.name;
	memcpy(o.type_hash, std_msgs_msg_String_TYPE.hash, ZCAST_TYPE_HASH_SIZE);
	zcast_pub *p;
	if (zcast_pub_open(argv[1], &o, &p) < 0) {
		fprintf(stderr, "bad_zpub: %s\n", zcast_last_error());
		return 1;
	}
	zcast_topic_stat st;
	while (zcast_topic_stat_get(NULL, argv[1], &st) < 0 || st.subscribers < 1)
		usleep(10000);
	const unsigned char *msgs[] = {too_long, hi, tiny, ok};
	size_t sizes[] = {sizeof too_long, sizeof hi, sizeof tiny, sizeof ok};
	for (int i = 0; i < 4; i++) {
		zcast_msg *m;
		if (zcast_loan(p, sizes[i], &m) < 0)
			return 1;
		memcpy(zcast_msg_data(m), msgs[i], sizes[i]);
		if (zcast_publish(p, m) < 0)
			return 1;
	}
	zcast_pub_close(p);
	return 0;
}
