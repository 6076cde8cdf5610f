/* Helper of record_max_bytes_test.sh: N messages of 1000 bytes on TOPIC that zstd compresses to
 * about a quarter, each as well as the next (random letters of four: no message repeats another,
 * so the compression of a piece does not depend on how its chunks were cut). Waits until a
 * subscriber is matched, then publishes them all as fast as the (lossless) recorder takes them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zcast/waitset.h>
#include <zcast/zcast.h>

#define SIZE 1000

static int publish(zcast_pub *p, uint64_t *rng)
{
	zcast_msg *m;
	int r = zcast_loan_wait(p, SIZE, 10000000000, &m);
	if (r < 0)
		return r;
	char *d = zcast_msg_data(m);
	for (int k = 0; k < SIZE; k++) {
		*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
		d[k] = (char)('a' + (*rng >> 62));
	}
	if ((r = zcast_publish_wait(p, m, 10000000000)) < 0)
		zcast_msg_drop(m);
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: maxb_pub TOPIC N\n");
		return 2;
	}
	long n = atol(argv[2]);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = SIZE;
	o.slot_count = 64;
	zcast_pub *p = NULL;
	int r = zcast_pub_open(argv[1], &o, &p);
	for (int k = 0; r == 0 && zcast_pub_matched(p) < 1 && k < 6000; k++)
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	if (r == 0 && zcast_pub_matched(p) < 1)
		r = ZCAST_ETIMEDOUT;
	uint64_t rng = 42;
	for (long i = 0; r == 0 && i < n; i++)
		r = publish(p, &rng);
	if (r < 0)
		fprintf(stderr, "maxb_pub: %s (%s)\n", zcast_strerror(r), zcast_last_error());
	if (p)
		zcast_pub_close(p);
	return r < 0;
}
