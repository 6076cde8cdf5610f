/* Helper of record_order_test.sh: one thread publishing bursts on three topics PREFIX/a, /b, /c:
 * BURST messages on a, then BURST on b, then BURST on c, N messages a topic in all, pausing
 * PAUSE_US between rounds of bursts (0: none). Waits until a subscriber is matched on every
 * topic first; publishes wait for room (a lossless recorder holds us up).
 * One thread on purpose: each message is queued before the next one reads its publish time, so a
 * recorder that writes in publish-time order can be checked exactly (with several publishers, one
 * may read its time and be queued after another's later message: docs/RECORDING.md, "Order"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zcast/waitset.h>
#include <zcast/zcast.h>

#define SIZE 300

static int publish(zcast_pub *p, long i)
{
	zcast_msg *m;
	int r = zcast_loan_wait(p, SIZE, 10000000000, &m);
	if (r < 0)
		return r;
	memset(zcast_msg_data(m), (int)(i & 0xFF), SIZE);
	if ((r = zcast_publish_wait(p, m, 10000000000)) < 0)
		zcast_msg_drop(m);
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: order_pub PREFIX N BURST PAUSE_US\n");
		return 2;
	}
	long n = atol(argv[2]), burst = atol(argv[3]), pause_us = atol(argv[4]);
	zcast_pub *p[3] = {NULL, NULL, NULL};
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = SIZE;
	o.slot_count = 256;
	int r = 0;
	for (int k = 0; k < 3 && r == 0; k++) {
		char topic[256];
		snprintf(topic, sizeof topic, "%s/%c", argv[1], 'a' + k);
		r = zcast_pub_open(topic, &o, &p[k]);
		for (int w = 0; r == 0 && zcast_pub_matched(p[k]) < 1 && w < 6000; w++)
			nanosleep(&(struct timespec){0, 5000000}, NULL);
		if (r == 0 && zcast_pub_matched(p[k]) < 1)
			r = ZCAST_ETIMEDOUT;
	}
	for (long i = 0; r == 0 && i < n; i += burst) {
		for (int k = 0; k < 3; k++)
			for (long j = i; r == 0 && j < i + burst && j < n; j++)
				r = publish(p[k], j);
		if (pause_us)
			nanosleep(&(struct timespec){0, pause_us * 1000}, NULL);
	}
	if (r < 0)
		fprintf(stderr, "order_pub: %s (%s)\n", zcast_strerror(r), zcast_last_error());
	for (int k = 0; k < 3; k++)
		if (p[k])
			zcast_pub_close(p[k]);
	return r < 0;
}
