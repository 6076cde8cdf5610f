/* Helper of typed_types_test.sh: publishes on /typed/user every 20 ms (history 1) until killed or
 * 30 s have passed.
 *   fixed      a zcast_test/Fixed (a user's type: the tool knows it only from a type library)
 *   wronghash  bytes typed zcast_test/msg/Fixed with another RIHS01 hash
 *   wrongimage bytes typed sensor_msgs/msg/Image with another RIHS01 hash
 *   string     a std_msgs/String of UTF-8 text, a quote and a control character */
#include <string.h>
#include <unistd.h>

#include <std_msgs/msg/String.h>
#include <zcast_test/msg/Fixed.h>

static int publish_fixed(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.history_depth = 1;
	zcast_typed_pub *p;
	if (zcast_test_msg_Fixed_pub_open("/typed/user", NULL, &po, &p) != 0)
		return 1;
	zcast_test_msg_Fixed m = {.a = 7, .b = 2.5, .c = 300, .v = {.x = 1.5, .y = -1, .z = 0}};
	for (int i = 0; i < 1500; i++) {
		if (zcast_typed_publish_copy(p, &m) != 0)
			return 2;
		usleep(20000);
	}
	return 0;
}

static int publish_string(void)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.history_depth = 1;
	std_msgs_msg_String_bounds b = {.data = 64};
	zcast_typed_pub *p;
	if (std_msgs_msg_String_pub_open("/typed/user", &b, &po, &p) != 0)
		return 1;
	static const char text[] = "caf\xc3\xa9 \xe2\x98\x95 \"q\" \x01";
	std_msgs_msg_String m = {.data = {text, sizeof text - 1}};
	for (int i = 0; i < 1500; i++) {
		if (zcast_typed_publish_copy(p, &m) != 0)
			return 2;
		usleep(20000);
	}
	return 0;
}

static int publish_wrong(const char *type_name)
{
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.history_depth = 1;
	po.type_name = type_name;
	memset(po.type_hash, 0xab, sizeof po.type_hash);
	zcast_pub *p;
	if (zcast_pub_open("/typed/user", &po, &p) != 0)
		return 1;
	for (int i = 0; i < 1500; i++) {
		zcast_msg *m;
		if (zcast_loan(p, 16, &m) != 0)
			return 2;
		memset(zcast_msg_data(m), 0, 16);
		if (zcast_publish(p, m) != 0)
			return 3;
		usleep(20000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fixed"))
		return publish_fixed();
	if (argc == 2 && !strcmp(argv[1], "string"))
		return publish_string();
	if (argc == 2 && !strcmp(argv[1], "wronghash"))
		return publish_wrong("zcast_test/msg/Fixed");
	if (argc == 2 && !strcmp(argv[1], "wrongimage"))
		return publish_wrong("sensor_msgs/msg/Image");
	return 64;
}
