/* One process, one topic, one publisher and one subscriber: loan, write 64 B, publish, take, read,
 * release, N times. No second core and no sleep: what is left is the library's own path per
 * message, for an instruction count that does not depend on the machine's load:
 *   valgrind --tool=callgrind zcast-bench-loop 10000; ... 110000   (difference / 100000)
 * (ZCAST_NO_DEATH_WATCH=1 keeps the watcher thread out of the count.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zcast/zcast.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.domain = "msgloop";
	so.queue_depth = 64;
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.domain = "msgloop";
	po.slot_size = 64;
	po.slot_count = 68;
	zcast_sub *s;
	zcast_pub *p;
	if (zcast_sub_open("/loop", &so, &s) || zcast_pub_open("/loop", &po, &p)) {
		fprintf(stderr, "open: %s\n", zcast_last_error());
		return 1;
	}
	unsigned long sum = 0;
	for (long i = 0; i < n; i++) {
		zcast_msg *m;
		if (zcast_loan(p, 64, &m) || (memset(zcast_msg_data(m), (int)i, 64), 0) ||
		    zcast_publish(p, m) || zcast_take(s, &m)) {
			fprintf(stderr, "message %ld: %s\n", i, zcast_last_error());
			return 1;
		}
		sum += ((unsigned char *)zcast_msg_data(m))[7];
		zcast_msg_drop(m);
	}
	zcast_pub_close(p);
	zcast_sub_close(s);
	printf("%ld messages (checksum %lu)\n", n, sum);
	return 0;
}
