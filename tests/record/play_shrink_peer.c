/* The other side of record_play_shrink_test.sh (zcast play of a file cut while it plays):
 *   play_shrink_peer write FILE none|zstd   a recording of N messages of 16 KiB (incompressible)
 *                                           on /shrink/t, 1 ms apart, in chunks of 64 KiB
 *   play_shrink_peer cut FILE SIZE          a FULL subscriber of /shrink/t with a queue of 1;
 *                                           prints "ready"; once the first message is queued,
 *                                           cuts FILE to SIZE bytes, then takes two messages
 * Why this order is certain: the player publishes message 0 (the queue is full), reads message 1
 * into a loan and waits to publish it until message 0 is taken, and only then reads message 2. The
 * file is cut before message 0 is taken, so every read from message 2 on meets the cut file. The
 * cut (40960 bytes, from the test) leaves messages 0 and 1 whole: whether the player read message
 * 1 before or after it makes no difference. Messages 2 and 3 are in the same chunk, 4 in the next:
 * uncompressed, message 2's data is past the cut; zstd, the first chunk is in memory and the
 * second is past it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zcast/zcast.h>

#include "bag.h"

#define N 20
#define LEN (16u << 10)
#define WAIT_NS 30000000000LL /* an upper bound for a failing run, not a measured time */

static int write_file(const char *path, const char *comp)
{
	struct bag_writer_opts o = {.compression = strcmp(comp, "none") ? comp : "",
				    .chunk_size = 64u << 10};
	struct bag_writer *w;
	struct bag_err e = {{0}};
	static uint8_t buf[LEN];
	uint64_t x = 88172645463325252ull;
	if (bag_writer_open(path, &o, &w, &e) != 0 ||
	    bag_writer_channel(w, 0, "/shrink/t", "zcast.raw", NULL, 0) != 0) {
		fprintf(stderr, "play_shrink_peer: %s\n", e.text);
		return 1;
	}
	for (int i = 0; i < N; i++) {
		for (size_t k = 0; k < LEN; k++) { /* xorshift: chunks compress to about their size */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[k] = (uint8_t)x;
		}
		if (bag_writer_message(w, 0, (uint32_t)i, 1000000 * (uint64_t)(i + 1), 0, buf, LEN)) {
			fprintf(stderr, "play_shrink_peer: message %d\n", i);
			return 1;
		}
	}
	if (bag_writer_close(w, &e) != 0) {
		fprintf(stderr, "play_shrink_peer: %s\n", e.text);
		return 1;
	}
	return 0;
}

static int fail(const char *what, int r)
{
	fprintf(stderr, "play_shrink_peer: %s: %s (%s)\n", what, zcast_strerror(r), zcast_last_error());
	return 1;
}

static int cut(const char *path, long size)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_FULL;
	o.queue_depth = 1;
	zcast_sub *s;
	int r = zcast_sub_open("/shrink/t", &o, &s);
	if (r < 0)
		return fail("subscribe", r);
	printf("ready\n");
	fflush(stdout);
	if ((r = zcast_wait(s, WAIT_NS)) < 0)
		return fail("first message", r);
	if (truncate(path, size) != 0) {
		perror("play_shrink_peer: truncate");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		zcast_msg *m;
		if ((r = zcast_wait(s, WAIT_NS)) < 0 || (r = zcast_take(s, &m)) < 0)
			return fail("take", r);
		zcast_msg_drop(m);
	}
	zcast_sub_close(s); /* a player that did not stop publishes the rest to nobody, and ends */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_file(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "cut"))
		return cut(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: play_shrink_peer write FILE none|zstd | cut FILE SIZE\n");
	return 2;
}
