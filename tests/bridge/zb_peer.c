/* The zcast side of the bridge tests and benchmark: publishes or receives patterned
 * sensor_msgs/Image messages (pattern.h) on a local zcast topic.
 *   zb_peer pub <topic> <bytes> <count> [--interval-us N] [--history N] [--subs N] [--tag T]
 *                              [--pause-at S1,S2,... --go PREFIX]
 *   zb_peer sub <topic> <count> [--drop] [--depth N] [--history N] [--stall-ms N] [--timeout-s N]
 *                              [--first F] [--after-seq S] [--tags N] [--settle-ms N]
 *                              [--say-at S1,S2,...]
 * <bytes> is the CDR size (encapsulation header included). pub waits for --subs subscribers (the
 * bridge) first and blocks rather than lose a message (FULL queues). sub prints one line:
 * "received N first F last L bad B dup D" and exits 0 when it got <count> messages intact and in
 * order (with --first F: exactly F..count, e.g. a late joiner's history; with --drop: when the
 * newest message <count> arrived, everything intact and in order). --after-seq S: subscribe only
 * once the topic's sequence reached S (a late joiner that comes after everything arrived).
 * --tag T (1..8): the publisher writes T into stamp.nanosec; sub --tags N expects <count> messages
 * from each of the tags 1..N, each tag's in order (two publishers on one topic). --settle-ms N: sub
 * keeps taking N ms after the last expected message; anything more is a duplicate. sub also prints
 * the longest time between two messages it took (max_gap_us: a takeover's pause at a steady rate);
 * --gaps-ms N: also each longer than N ms ("gap_ms G before S").
 * Steps a test takes at a count of messages, not after a sleep that load stretches: pub
 * --pause-at S1,S2 prints "paused before S1" and waits until the file PREFIX.1 exists (then S2 and
 * PREFIX.2, ...); sub --say-at S1,S2 prints "reached S1" once it has taken message S1 or a later
 * one (untagged). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sensor_msgs/msg/Image.h"
#include "pattern.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long opt(int argc, char **argv, const char *name, long def)
{
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return strtol(argv[i + 1], NULL, 0);
	return def;
}

static int flag(int argc, char **argv, const char *name)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

/* The k-th (0-based) number of a comma-separated option, or 0. */
static long opt_nth(int argc, char **argv, const char *name, int k)
{
	for (int i = 0; i + 1 < argc; i++) {
		if (strcmp(argv[i], name) != 0)
			continue;
		char *s = argv[i + 1];
		for (int j = 0;; j++) {
			long v = strtol(s, &s, 0);
			if (j == k)
				return v;
			if (*s++ != ',')
				return 0;
		}
	}
	return 0;
}

/* pub --pause-at: waits up to 60 s for the test's file "<prefix>.<k>". */
static int pause_for(const char *prefix, int k, uint32_t seq)
{
	printf("paused before %u\n", seq);
	fflush(stdout);
	char path[512];
	snprintf(path, sizeof path, "%s.%d", prefix, k);
	for (int i = 0; i < 6000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "zb_peer: no %s within 60 s\n", path);
	return -1;
}

static int die(const char *what, int e)
{
	fprintf(stderr, "zb_peer: %s: %s (%s)\n", what, zcast_strerror(e), zcast_last_error());
	return 1;
}

static int pub(const char *topic, uint32_t bytes, uint32_t count, int argc, char **argv)
{
	if (bytes < ZBP_OVERHEAD)
		return fprintf(stderr, "zb_peer: at least %u bytes\n", ZBP_OVERHEAD), 1;
	uint32_t n = bytes - ZBP_OVERHEAD;
	sensor_msgs_msg_Image_bounds bounds = {{sizeof ZBP_FRAME}, sizeof ZBP_ENCODING, n};
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.history_depth = (uint32_t)opt(argc, argv, "--history", 0);
	o.slot_count = 8 + o.history_depth;
	zcast_typed_pub *p;
	int e = sensor_msgs_msg_Image_pub_open(topic, &bounds, &o, &p);
	if (e < 0)
		return die("open", e);
	long subs = opt(argc, argv, "--subs", 0), interval = opt(argc, argv, "--interval-us", 0);
	long tag = opt(argc, argv, "--tag", 0);
	const char *go = NULL;
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], "--go") == 0)
			go = argv[i + 1];
	int pauses = 0; /* pauses made */
	zcast_topic_stat st;
	while (subs && (zcast_topic_stat_get(NULL, topic, &st) < 0 || st.subscribers < subs))
		usleep(10000);
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	printf("start_ns %lld\n", (long long)wall.tv_sec * 1000000000 + wall.tv_nsec);
	fflush(stdout);
	for (uint32_t seq = 1; seq <= count; seq++) {
		if (go && seq == (uint32_t)opt_nth(argc, argv, "--pause-at", pauses) &&
		    pause_for(go, ++pauses, seq) < 0)
			return 1;
		zcast_msg *m;
		sensor_msgs_msg_Image_writer w;
		if ((e = zcast_typed_loan(p, NULL, &m, &w.w, w.off, w.cap)) == ZCAST_ENOSLOT) {
			usleep(1000), seq--;
			continue;
		}
		if (e < 0)
			return die("loan", e);
		sensor_msgs_msg_Image_w_header_stamp_sec_set(&w, (int32_t)seq);
		sensor_msgs_msg_Image_w_header_stamp_nanosec_set(
		    &w, tag ? (uint32_t)tag : (uint32_t)(now_ns() % 1000000000));
		sensor_msgs_msg_Image_w_header_frame_id_set(&w, ZBP_FRAME);
		sensor_msgs_msg_Image_w_height_set(&w, 1);
		sensor_msgs_msg_Image_w_width_set(&w, n);
		sensor_msgs_msg_Image_w_encoding_set(&w, ZBP_ENCODING);
		sensor_msgs_msg_Image_w_step_set(&w, n);
		uint32_t cap;
		zbp_fill(sensor_msgs_msg_Image_w_data(&w, &cap), n, seq);
		sensor_msgs_msg_Image_w_data_set_len(&w, n);
		/* a FULL queue (the bridge's) pushes back: wait for room, lose nothing */
		while ((e = zcast_typed_publish(p, m, &w.w)) == ZCAST_EAGAIN)
			usleep(200);
		if (e < 0)
			return die("publish", e);
		if (interval)
			usleep((useconds_t)interval);
	}
	printf("published %u\n", count);
	fflush(stdout);
	/* stay a member a moment so the history and the last messages are not torn down under the
	 * bridge (a publisher that leaves takes its unread slots' history with it only if nobody
	 * holds them; linger keeps the test's timing out of it) */
	usleep((useconds_t)opt(argc, argv, "--linger-ms", 300) * 1000);
	zcast_typed_pub_close(p);
	return 0;
}

static int sub(const char *topic, uint32_t count, int argc, char **argv)
{
	int drop = flag(argc, argv, "--drop");
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	zcast_typed_sub_opts(&o, &sensor_msgs_msg_Image_TYPE);
	o.policy = drop ? ZCAST_POLICY_DROP_OLD : ZCAST_POLICY_FULL;
	o.queue_depth = (uint32_t)opt(argc, argv, "--depth", 16);
	o.history = (uint32_t)opt(argc, argv, "--history", 0);
	zcast_topic_stat ts;
	long after = opt(argc, argv, "--after-seq", 0);
	int64_t until = now_ns() + 20 * 1000000000ll;
	while (after && now_ns() < until &&
	       (zcast_topic_stat_get(NULL, topic, &ts) < 0 || ts.last_sequence < (uint64_t)after))
		usleep(10000);
	zcast_sub *s;
	int e = zcast_sub_open(topic, &o, &s);
	if (e < 0)
		return die("open", e);
	printf("subscribed\n");
	fflush(stdout);
	long stall = opt(argc, argv, "--stall-ms", 0);
	if (stall)
		usleep((useconds_t)stall * 1000);
	int64_t deadline = now_ns() + opt(argc, argv, "--timeout-s", 20) * 1000000000ll;
	uint32_t tags = (uint32_t)opt(argc, argv, "--tags", 0);
	if (tags > 8)
		tags = 8;
	struct zbp_tally t = {0}, per[9] = {{0}};
	int64_t settle = opt(argc, argv, "--settle-ms", 0) * 1000000, done_at = 0;
	int64_t last_at = 0, max_gap = 0, gaps_ms = opt(argc, argv, "--gaps-ms", 0);
	uint32_t gap_seq = 0;
	int said = 0; /* --say-at numbers said */
	while (now_ns() < deadline && (!done_at || now_ns() < done_at + settle)) {
		zcast_msg *m;
		if (zcast_take(s, &m) < 0) {
			zcast_wait(s, 20 * 1000 * 1000);
			continue;
		}
		int64_t at = now_ns();
		sensor_msgs_msg_Image_reader r;
		int ok = sensor_msgs_msg_Image_read_msg(&r, m) == 0;
		uint32_t seq = ok ? (uint32_t)sensor_msgs_msg_Image_header_stamp_sec(&r) : 0;
		if (last_at && at - last_at > max_gap)
			max_gap = at - last_at, gap_seq = seq;
		if (last_at && gaps_ms && at - last_at > gaps_ms * 1000000)
			printf("gap_ms %lld before %u\n", (long long)((at - last_at) / 1000000), seq);
		last_at = at;
		uint32_t tag = ok && tags ? sensor_msgs_msg_Image_header_stamp_nanosec(&r) : 0;
		struct zbp_tally *pt = tags && tag >= 1 && tag <= tags ? &per[tag] : &t;
		uint32_t n = 0;
		const uint8_t *d = ok ? sensor_msgs_msg_Image_data(&r, &n) : NULL;
		if (pt->received && seq <= pt->last)
			printf("out of order: %u after %u (tag %u)\n", seq, pt->last, tag);
		else if (pt->received && seq > pt->last + 1 && !drop)
			printf("gap: %u after %u (tag %u)\n", seq, pt->last, tag);
		zbp_count(pt, seq,
			  ok && n + ZBP_OVERHEAD == (uint32_t)(zcast_msg_size(m) - 4) &&
			      zbp_check(d, n, seq) && (!tags || pt != &t));
		zcast_msg_drop(m);
		long say;
		while ((say = opt_nth(argc, argv, "--say-at", said)) > 0 && t.last >= (uint32_t)say) {
			printf("reached %ld\n", say), fflush(stdout);
			said++;
		}
		int all = 1;
		for (uint32_t k = 1; k <= tags; k++)
			all &= per[k].last >= count;
		if (!done_at && (tags ? all : t.last >= count))
			done_at = now_ns();
	}
	for (uint32_t k = 1; k <= tags; k++) {
		printf("tag %u: received %llu first %u last %u bad %llu dup %llu\n", k,
		       (unsigned long long)per[k].received, per[k].first, per[k].last,
		       (unsigned long long)per[k].bad, (unsigned long long)per[k].dup_or_reordered);
		if (per[k].received != count || per[k].first != 1 || per[k].bad ||
		    per[k].dup_or_reordered)
			t.bad++;
	}
	if (tags)
		t.received = count, t.first = 1, t.last = count;
	printf("max_gap_us %lld before %u\n", (long long)(max_gap / 1000), gap_seq);
	printf("received %llu first %u last %u bad %llu dup %llu\n", (unsigned long long)t.received,
	       t.first, t.last, (unsigned long long)t.bad, (unsigned long long)t.dup_or_reordered);
	zcast_sub_close(s);
	uint32_t first = (uint32_t)opt(argc, argv, "--first", 1);
	int complete = drop ? t.last == count : t.received == count - first + 1 && t.first == first;
	return complete && !t.bad && !t.dup_or_reordered ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "pub") == 0)
		return pub(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
			   (uint32_t)strtoul(argv[4], NULL, 0), argc, argv);
	if (argc >= 4 && strcmp(argv[1], "sub") == 0)
		return sub(argv[2], (uint32_t)strtoul(argv[3], NULL, 0), argc, argv);
	fprintf(stderr, "usage: zb_peer pub <topic> <bytes> <count> [opts] | sub <topic> <count> "
			"[opts]\n");
	return 2;
}
