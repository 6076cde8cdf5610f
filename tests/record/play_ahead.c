/* zcast play prepares each message (read, decompressed, copied into its loan) before its time and
 * only publishes at it, with every file opened before the clock starts. Checked from a subscriber,
 * with no timing threshold: a recording of two split pieces (zstd, then uncompressed) of messages
 * of up to 512 KiB, each byte a function of its number, is played
 *  - at --rate 4: every message once, in order, with its bytes; and none early: for every message,
 *    publish time - the first's publish time >= (log time - the first's log time) / rate (a
 *    lower bound, which load can only make later; a player whose clock started before the first
 *    message was ready broke it by however long that took, e.g. opening the files);
 *  - with --start-offset: the messages before the offset are skipped, the same bound from the first
 *    one played;
 *  - with --loop (stopped by SIGINT after two passes): the passes repeat the recording, in order,
 *    the bound within each pass.
 * Usage: play_ahead ZCAST_BINARY WORK_DIR */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zcast/zcast.h>

#include "bag.h"
#include "bag_check.h"

#define N 24		 /* messages in the recording (12 per piece) */
#define RATE 4		 /* --rate of the played passes */
#define BIG (512u << 10) /* the largest message */

static uint8_t buf[BIG];
static uint64_t log_ns[N];
static char topic[64];

static size_t size_of(int i)
{
	return i % 3 == 0 ? BIG - (size_t)i : (size_t)(i * 4099 % 70000) + 1;
}

static void fill(int i, uint8_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (uint8_t)(i * 29 + k * 7 + (k >> 11));
}

/* Piece f of the recording: messages f*N/2 .. (f+1)*N/2-1; 40 ms apart, with a 300 ms gap after
 * message 5 (the place --start-offset aims into). */
static void write_piece(const char *dir, int f)
{
	char path[512];
	snprintf(path, sizeof path, "%s/rec_%d.mcap", dir, f);
	struct bag_writer_opts o = {.compression = f == 0 ? "zstd" : "", .chunk_size = 1u << 20};
	struct bag_writer *w;
	struct bag_err e;
	if (bag_writer_open(path, &o, &w, &e) != 0) {
		fprintf(stderr, "FAIL: %s\n", e.text);
		exit(1);
	}
	int ch = bag_writer_channel(w, 0, topic, "zcast.raw", NULL, 0);
	CHECK(ch >= 0, "channel");
	for (int i = f * N / 2; i < (f + 1) * N / 2; i++) {
		fill(i, buf, size_of(i));
		CHECK(bag_writer_message(w, ch, (uint32_t)i + 1, log_ns[i], log_ns[i], buf, size_of(i)) == 0,
		      "message %d", i);
	}
	CHECK(bag_writer_close(w, &e) == 0, "close %s", path);
}

static pid_t play(const char *zcast, const char *dir, const char *extra, const char *value)
{
	pid_t pid = fork();
	if (pid == 0) {
		const char *argv[] = {zcast, "play", "-q", dir, "--wait-for-subscribers", "1",
				      "--rate", "4", extra, value, NULL};
		execv(zcast, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Takes one message: -1 when none came in 60 s (the player ended or hangs; a bound for a hang,
 * far beyond any load). Checks its bytes against message `i` of the recording. */
static int64_t take_one(zcast_sub *s, int i)
{
	zcast_msg *m;
	if (zcast_wait(s, 60000000000) != 0 || zcast_take(s, &m) != 0)
		return -1;
	const uint8_t *p = zcast_msg_data(m);
	size_t n = zcast_msg_size(m);
	fill(i, buf, size_of(i));
	CHECK(p && n == size_of(i) && !memcmp(p, buf, n), "message %d: %zu bytes, not its own", i, n);
	int64_t t = zcast_msg_time_ns(m);
	zcast_msg_drop(m);
	return t;
}

/* Takes messages first..N-1 of one pass: bytes, order, and none early against the pass's first.
 * false when one never came. */
static bool take_pass(zcast_sub *s, int first, const char *what)
{
	int64_t t0 = 0;
	for (int i = first; i < N; i++) {
		int64_t t = take_one(s, i);
		CHECK(t > 0, "%s: message %d never came", what, i);
		if (t <= 0)
			return false;
		if (i == first)
			t0 = t;
		/* the replayed interval from the first, against the recorded one / RATE (1 ns of
		 * rounding: the player divides each time by the rate separately) */
		int64_t want = (int64_t)(log_ns[i] - log_ns[first]) / RATE - 1;
		CHECK(t - t0 >= want, "%s: message %d published %.3f ms after the first, before its "
				      "time (%.3f ms)",
		      what, i, (double)(t - t0) / 1e6, (double)want / 1e6);
	}
	return true;
}

/* Waits for the player; one whose messages stopped coming is killed first (it may wait for room
 * in our queue forever). */
static void finish(pid_t pid, bool ok, const char *what)
{
	int st = 0;
	if (!ok)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK(!ok || (WIFEXITED(st) && WEXITSTATUS(st) == 0), "%s: zcast play exited with %d", what,
	      st);
}

/* Drops what is queued (after a failed pass: so the next one starts clean). */
static void drain(zcast_sub *s)
{
	for (zcast_msg *m; zcast_wait(s, 200000000) == 0 && zcast_take(s, &m) == 0;)
		zcast_msg_drop(m);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s ZCAST_BINARY WORK_DIR\n", argv[0]);
		return 2;
	}
	char domain[64], dir[512];
	snprintf(domain, sizeof domain, "playahead%d", (int)getpid());
	setenv("ZCAST_DOMAIN", domain, 1);
	snprintf(topic, sizeof topic, "/play_ahead/t%d", (int)getpid());
	snprintf(dir, sizeof dir, "%s/rec%d", argv[2], (int)getpid());
	mkdir(argv[2], 0755);
	if (mkdir(dir, 0755) != 0) {
		perror(dir);
		return 1;
	}
	uint64_t t = 1700000000000000000ull;
	for (int i = 0; i < N; i++) {
		log_ns[i] = t;
		t += i == 5 ? 300000000 : 40000000;
	}
	write_piece(dir, 0);
	write_piece(dir, 1);

	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	so.queue_depth = 4; /* FULL: the player waits for room, and must still keep order and bytes */
	zcast_sub *s;
	int r = zcast_sub_open(topic, &so, &s);
	if (r != 0) {
		fprintf(stderr, "FAIL: subscribe: %s (%s)\n", zcast_strerror(r), zcast_last_error());
		return 1;
	}

	pid_t p = play(argv[1], dir, "--spin-us", "50");
	finish(p, take_pass(s, 0, "--rate 4"), "--rate 4");
	drain(s);

	/* 0.32 s into the recording: inside the gap after message 5, so message 6 is the first. */
	p = play(argv[1], dir, "--start-offset", "0.32");
	finish(p, take_pass(s, 6, "--start-offset 0.32"), "--start-offset");
	drain(s);

	p = play(argv[1], dir, "--loop", NULL);
	bool ok = take_pass(s, 0, "--loop, pass 1") && take_pass(s, 0, "--loop, pass 2");
	kill(p, SIGINT);
	drain(s); /* what the third pass sent before the signal */
	finish(p, ok, "--loop");

	zcast_sub_close(s);
	for (int f = 0; f < 2; f++) {
		char path[600];
		snprintf(path, sizeof path, "%s/rec_%d.mcap", dir, f);
		unlink(path);
	}
	rmdir(dir);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("play_ahead: all passed\n");
	return failures ? 1 : 0;
}
