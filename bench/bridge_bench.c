/* The bridge benchmark's peer (bench/bridge.sh): the same sensor_msgs/Image either through zcast
 * (and the bridges between two hosts) or through a plain Cyclone DDS writer/reader pair.
 *   bridge_bench zcast|cyclone ping <bytes> <count>   latency: sends, waits for the echo; prints
 *                                                     "lat <bytes> p50_us p90_us p99_us"
 *   bridge_bench zcast|cyclone echo <count>           returns every ping as a pong
 *   bridge_bench cyclone sink <count>                 a second reader of the pings (takes them)
 *   bridge_bench zcast|cyclone send <bytes> <count>   throughput: sends as fast as allowed
 * (reliable) bridge_bench zcast|cyclone recv <count>           prints "thr <bytes> msgs_per_s
 * MiB_per_s" zcast topics /ping, /pong, /thr; DDS topics rt/ping, rt/pong, rt/thr (ROS 2 names, so
 * a Cyclone peer and a bridge use the same wire). One-way latency = round trip / 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge_ep.h"

#define OVERHEAD ZBE_OVERHEAD

/* Waits until the writer has its readers: the peer's (Cyclone: $ZB_READERS of them, default 1)
 * or the bridge's (zcast). */
static void wait_matched(zbe_ep *e, const char *topic)
{
	const char *want = e->cyclone ? getenv("ZB_READERS") : NULL;
	uint32_t n = want ? (uint32_t)atoi(want) : 1;
	while (zbe_readers(e, topic) < (n ? n : 1))
		usleep(10000);
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: see bench/bridge_bench.c\n"), 2;
	zbe_ep e = {.cyclone = strcmp(argv[1], "cyclone") == 0};
	const char *dom =
	    getenv("ZB_DDS_DOMAIN"); /* bench/bridge.sh keeps the pair off the bridges' */
	if (e.cyclone &&
	    (e.pp = dds_create_participant(dom ? (dds_domainid_t)atoi(dom) : DDS_DOMAIN_DEFAULT,
					   NULL, NULL)) < 0)
		zbe_die("participant");
	const char *role = argv[2];
	if (strcmp(role, "ping") == 0 && argc == 5) {
		uint32_t bytes = (uint32_t)strtoul(argv[3], NULL, 0),
			 count = (uint32_t)atoi(argv[4]);
		uint32_t n = bytes - OVERHEAD;
		zbe_open_writer(&e, "/ping", n, 16);
		zbe_open_reader(&e, "/pong", 8);
		wait_matched(&e, "/ping");
		usleep(500000); /* both directions discovered */
		int64_t *rtt = calloc(count, sizeof *rtt);
		for (uint32_t i = 0; i < count + 10; i++) { /* 10 warm-up round trips */
			int64_t t0 = zbe_now_ns();
			zbe_send(&e, i + 1, n, NULL, 0);
			uint32_t seq = 0, got;
			while (seq != i + 1)
				zbe_recv(&e, &seq, &got, NULL);
			if (i >= 10)
				rtt[i - 10] = zbe_now_ns() - t0;
		}
		qsort(rtt, count, sizeof *rtt, cmp);
		printf("lat %u %.1f %.1f %.1f\n", bytes, rtt[count / 2] / 2e3,
		       rtt[count * 9 / 10] / 2e3, rtt[count * 99 / 100] / 2e3);
	} else if (strcmp(role, "echo") == 0) {
		uint32_t count = (uint32_t)atoi(argv[3]);
		zbe_open_reader(&e, "/ping", 8);
		zbe_open_writer(&e, "/pong", 8u << 20, 16);
		for (uint32_t i = 0; i < count + 10; i++) {
			uint32_t seq, n;
			zbe_recv(&e, &seq, &n, NULL);
			zbe_send(&e, seq, n, NULL, 0);
		}
		usleep(500000);
	} else if (strcmp(role, "sink") == 0) {
		uint32_t count = (uint32_t)atoi(argv[3]), seq, n;
		zbe_open_reader(&e, "/ping", 8);
		for (uint32_t i = 0; i < count + 10; i++)
			zbe_recv(&e, &seq, &n, NULL);
	} else if (strcmp(role, "send") == 0 && argc == 5) {
		uint32_t bytes = (uint32_t)strtoul(argv[3], NULL, 0),
			 count = (uint32_t)atoi(argv[4]);
		zbe_open_writer(&e, "/thr", bytes - OVERHEAD, 16);
		wait_matched(&e, "/thr");
		usleep(500000);
		for (uint32_t i = 1; i <= count; i++)
			zbe_send(&e, i, bytes - OVERHEAD, NULL, 0);
		usleep(500000);
	} else if (strcmp(role, "recv") == 0) {
		uint32_t count = (uint32_t)atoi(argv[3]), seq, n = 0;
		zbe_open_reader(&e, "/thr", 8);
		printf("ready\n");
		fflush(stdout);
		zbe_recv(&e, &seq, &n, NULL);
		int64_t t0 = zbe_now_ns();
		for (uint32_t i = 1; i < count; i++)
			zbe_recv(&e, &seq, &n, NULL);
		double s = (double)(zbe_now_ns() - t0) / 1e9;
		printf("thr %u %.1f %.1f\n", n + OVERHEAD, (count - 1) / s,
		       (count - 1) * (double)(n + OVERHEAD) / s / 1048576.0);
	} else {
		return fprintf(stderr, "usage: see bench/bridge_bench.c\n"), 2;
	}
	if (e.cyclone)
		dds_delete(e.pp);
	return 0;
}
