/* Helper of record_foreign_test.sh: an MCAP file as rosbag2 writes it, with none of zcast's own
 * channel keys. `jazzy` writes the QoS by name and topic_type_hash (as rosbag2 does since Iron);
 * `humble` writes the QoS as rmw's enum numbers and no hash. Channels:
 *   /chatter  std_msgs/msg/String, transient local (jazzy: depth 5; humble: depth 3)
 *   /other    std_msgs/msg/String, volatile; jazzy: a topic_type_hash that is not std_msgs/String's
 *   /odd      my_pkg/msg/Odd (a type zcast does not know), volatile
 * Each gets messages 1..6 ("hello N" on the String topics), 1 ms apart. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <std_msgs/msg/String.h>

#include "bag.h"

#define FOREVER "    sec: 9223372036\n    nsec: 854775807\n"
#define HUMBLE_FOREVER "    sec: 2147483647\n    nsec: 4294967295\n"

/* One publisher's profile, the way each distribution writes it. */
static void profile(char *out, size_t n, bool humble, bool transient_local, unsigned depth)
{
	if (humble)
		snprintf(out, n,
			 "- history: %d\n  depth: %u\n  reliability: 1\n  durability: %d\n"
			 "  deadline:\n" HUMBLE_FOREVER "  lifespan:\n" HUMBLE_FOREVER
			 "  liveliness: 1\n  liveliness_lease_duration:\n" HUMBLE_FOREVER
			 "  avoid_ros_namespace_conventions: false\n",
			 transient_local ? 1 : 3, transient_local ? depth : 0,
			 transient_local ? 1 : 2);
	else
		snprintf(
		    out, n,
		    "- history: keep_last\n  depth: %u\n  reliability: reliable\n  durability: %s\n"
		    "  deadline:\n" FOREVER "  lifespan:\n" FOREVER "  liveliness: automatic\n"
		    "  liveliness_lease_duration:\n" FOREVER
		    "  avoid_ros_namespace_conventions: false\n",
		    depth, transient_local ? "transient_local" : "volatile");
}

/* A std_msgs/String in CDR: encapsulation header (little endian), length with the NUL, text. */
static size_t string_cdr(uint8_t *out, const char *text)
{
	uint32_t len = (uint32_t)strlen(text) + 1;
	memcpy(out, "\x00\x01\x00\x00", 4);
	memcpy(out + 4, &len, 4);
	memcpy(out + 8, text, len);
	return 8 + len;
}

static int channel(struct bag_writer *w, int schema, const char *topic, const char *qos,
		   const char *hash)
{
	const char *kv[] = {"offered_qos_profiles", qos, "topic_type_hash", hash};
	return bag_writer_channel(w, schema, topic, "cdr", kv, hash ? 2 : 1);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "jazzy") && strcmp(argv[1], "humble"))) {
		fprintf(stderr, "usage: foreign_bag jazzy|humble OUT.mcap\n");
		return 2;
	}
	bool humble = !strcmp(argv[1], "humble");
	struct bag_writer_opts o = {.compression = "zstd", .profile = "ros2", .library = "rosbag2"};
	struct bag_writer *w;
	struct bag_err e;
	if (bag_writer_open(argv[2], &o, &w, &e) != 0) {
		fprintf(stderr, "%s\n", e.text);
		return 1;
	}
	char latched[1024], plain[1024];
	profile(latched, sizeof latched, humble, true, humble ? 3 : 5);
	profile(plain, sizeof plain, humble, false, 10);
	const char *bad = "RIHS01_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	int s = bag_writer_schema(w, "std_msgs/msg/String", "ros2msg", "string data", 11);
	int odd = bag_writer_schema(w, "my_pkg/msg/Odd", "ros2msg", "int32 x", 7);
	int ch[3] = {
	    channel(w, s, "/chatter", latched, humble ? NULL : std_msgs_msg_String_TYPE_HASH_STR),
	    channel(w, s, "/other", plain, humble ? NULL : bad),
	    channel(w, odd, "/odd", plain, humble ? NULL : bad)};
	int r = s < 0 || odd < 0 || ch[0] < 0 || ch[1] < 0 || ch[2] < 0;
	for (uint32_t i = 1; i <= 6 && !r; i++)
		for (int k = 0; k < 3 && !r; k++) {
			uint8_t msg[64];
			char text[32];
			snprintf(text, sizeof text, "hello %" PRIu32, i);
			size_t n = k < 2 ? string_cdr(msg, text) : 8;
			if (k == 2)
				memcpy(msg, "\x00\x01\x00\x00\x07\x00\x00\x00", 8);
			uint64_t t = 1700000000000000000ull + i * 1000000ull;
			r = bag_writer_message(w, ch[k], i, t, t, msg, n) != 0;
		}
	if (bag_writer_close(w, &e) != 0 || r) {
		fprintf(stderr, "foreign_bag: %s\n", r ? "cannot write" : e.text);
		return 1;
	}
	return 0;
}
