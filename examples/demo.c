/* make demo: one publisher process sends 4 MiB camera frames at 30 Hz, two subscriber processes
 * verify every frame's checksum and report frames, drops and one-way latency each second. At the
 * end the parent checks zero copy: publisher and subscribers name the same pool file (device,
 * inode) and the same offset for one frame, and only then prints "bytes copied: 0".
 *
 * The children talk to the parent in lines: readable ones are shown as they are, lines starting
 * with '@' are for the parent only (@ready, @loc DEV INO OFFSET, @done ...) and are turned into
 * sentences.
 *
 * Usage: zcast_demo [seconds]   (roles "pub" and "sub" are the children it starts itself) */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zcast/zcast.h>

#define TOPIC "/camera/front/image"
#define FRAME (4u << 20)
#define PROOF_FRAME 10 /* the frame whose location everybody reports */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t checksum(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	return h;
}

struct frame_hdr {
	uint64_t seq, sum;
};

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, zcast_last_error());
	exit(1);
}

static int run_pub(int seconds)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.type_name = "demo/Image4M";
	o.slot_size = FRAME;
	o.slot_count = 8;
	zcast_pub *pub;
	if (zcast_pub_open(TOPIC, &o, &pub) < 0)
		die("pub open");
	int64_t start = now_ns(), period = 1000000000 / 30;
	uint64_t sent = 0, failed = 0;
	for (uint64_t seq = 1; seq <= (uint64_t)seconds * 30; seq++) {
		int64_t due = start + (int64_t)seq * period;
		while (now_ns() < due)
			usleep(200);
		zcast_msg *m;
		if (zcast_loan(pub, FRAME, &m) < 0) {
			failed++;
			continue;
		}
		uint8_t *px = zcast_msg_data(m);
		/* A synthetic image, written in place in shared memory. */
		for (size_t i = sizeof(struct frame_hdr); i < FRAME; i += 8) {
			uint64_t v = seq * 0x9e3779b97f4a7c15ull + i;
			memcpy(px + i, &v, 8);
		}
		struct frame_hdr h = {seq, checksum(px + sizeof h, FRAME - sizeof h)};
		memcpy(px, &h, sizeof h);
		if (seq == PROOF_FRAME) {
			zcast_msg_info in;
			zcast_msg_info_get(m, &in);
			printf("@loc %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", in.pool_dev,
			       in.pool_ino, in.pool_offset);
		}
		if (zcast_publish(pub, m) < 0) {
			zcast_msg_drop(m);
			failed++;
		} else {
			sent++;
		}
		if (seq % 30 == 0)
			printf("  publisher:    %3" PRIu64 " frames published, %" PRIu64
			       " failed\n",
			       sent, failed);
		fflush(stdout);
	}
	printf("@done publisher: %" PRIu64 " frames published, %" PRIu64 " failed\n", sent, failed);
	zcast_pub_close(pub);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The pct-th percentile of n sorted latencies, in microseconds. */
static double us(const int64_t *sorted, size_t n, size_t pct)
{
	return n ? (double)sorted[n * pct / 100] / 1e3 : 0.0;
}

static int run_sub(int id, int seconds)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "demo/Image4M";
	o.policy = ZCAST_POLICY_DROP_OLD; /* camera: the latest frame wins */
	o.queue_depth = 4;
	zcast_sub *sub;
	if (zcast_sub_open(TOPIC, &o, &sub) < 0)
		die("sub open");
	printf("@ready\n");
	fflush(stdout);
	static int64_t lat[4096], all[1 << 16];
	size_t n_lat = 0, n_all = 0;
	uint64_t frames = 0, bad = 0, last_seq = 0, gaps = 0;
	int64_t end = now_ns() + (int64_t)(seconds + 3) * 1000000000,
		next_report = now_ns() + 1000000000;
	for (;;) {
		int64_t t = now_ns();
		if (t >= next_report) {
			qsort(lat, n_lat, sizeof *lat, cmp_i64);
			/* A frame the queue dropped is a gap in the frame numbers: counted once,
			 * as gaps (st.dropped counts it too). */
			printf("  subscriber %d: %3" PRIu64 " frames received, %" PRIu64
			       " dropped, %" PRIu64
			       " bad checksums, latency p50 %.1f us, p99 %.1f us\n",
			       id, frames, gaps, bad, us(lat, n_lat, 50),
			       us(lat, n_lat, 99));
			fflush(stdout);
			n_lat = 0;
			next_report += 1000000000;
		}
		if (t >= end)
			break;
		if (zcast_wait(sub, 100000000) != 0)
			continue;
		zcast_msg *m;
		while (zcast_take(sub, &m) == 0) {
			zcast_msg_info in;
			zcast_msg_info_get(m, &in);
			int64_t l = now_ns() - in.publish_time_ns; /* one-way: publish -> in hand */
			const uint8_t *px = zcast_msg_data(m);
			struct frame_hdr h;
			memcpy(&h, px, sizeof h);
			if (zcast_msg_size(m) != FRAME ||
			    h.sum != checksum(px + sizeof h, FRAME - sizeof h))
				bad++;
			if (last_seq && h.seq > last_seq + 1)
				gaps += h.seq - last_seq - 1;
			last_seq = h.seq;
			if (h.seq == PROOF_FRAME)
				printf("@loc %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", in.pool_dev,
				       in.pool_ino, in.pool_offset);
			frames++;
			if (n_lat < 4096)
				lat[n_lat++] = l;
			if (n_all < (1 << 16))
				all[n_all++] = l;
			zcast_msg_drop(m);
		}
		if (last_seq == (uint64_t)seconds * 30)
			break;
	}
	qsort(all, n_all, sizeof *all, cmp_i64);
	printf("@done subscriber %d: %" PRIu64 " frames received, %" PRIu64 " dropped, %" PRIu64
	       " bad checksums; latency p50 %.1f us, p99 %.1f us\n",
	       id, frames, gaps, bad, us(all, n_all, 50), us(all, n_all, 99));
	zcast_sub_close(sub);
	return bad ? 1 : 0;
}

/* Starts this program again in a role; its stdout comes back through a pipe. */
static pid_t spawn(const char *self, const char *role, const char *id, const char *secs,
		   int *out_fd)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(self, self, role, id, secs, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*out_fd = fds[0];
	return pid;
}

struct child {
	pid_t pid;
	int fd;
	char buf[4096];
	size_t len;
	char loc[128]; /* "DEV INO OFFSET" of the proof frame, as this child saw it */
	char done[256];
};

/* Shows readable lines, keeps the '@' lines for later; returns 1 when an @ready line was seen. */
static int pump(struct child *c)
{
	ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
	if (n <= 0) {
		close(c->fd);
		c->fd = -1;
		return 0;
	}
	c->len += (size_t)n;
	int ready = 0;
	char *line = c->buf, *nl;
	while ((nl = memchr(line, '\n', c->len - (size_t)(line - c->buf)))) {
		*nl = 0;
		if (strncmp(line, "@loc ", 5) == 0)
			snprintf(c->loc, sizeof c->loc, "%s", line + 5);
		else if (strncmp(line, "@done ", 6) == 0)
			snprintf(c->done, sizeof c->done, "%s", line + 6);
		else if (strcmp(line, "@ready") == 0)
			ready = 1;
		else
			printf("%s\n", line);
		line = nl + 1;
	}
	c->len -= (size_t)(line - c->buf);
	memmove(c->buf, line, c->len);
	fflush(stdout);
	return ready;
}

int main(int argc, char **argv)
{
	int seconds = 5;
	if (argc >= 4 && strcmp(argv[1], "pub") == 0)
		return run_pub(atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "sub") == 0)
		return run_sub(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 2)
		seconds = atoi(argv[1]) > 0 ? atoi(argv[1]) : 5;
	char domain[40], secs[16], self[4096];
	snprintf(domain, sizeof domain, "demo%d", (int)getpid());
	setenv("ZCAST_DOMAIN", domain, 1);
	snprintf(secs, sizeof secs, "%d", seconds);
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	if (sl <= 0)
		return 1;
	self[sl] = 0;
	printf("zcast demo: a camera publisher sends %u MiB frames at 30 Hz for %d s to two "
	       "subscriber\n"
	       "processes. Each frame is written once, into shared memory; both subscribers read "
	       "those same\n"
	       "pages in place and verify every frame's checksum. Each second:\n\n",
	       FRAME >> 20, seconds);
	struct child ch[3] = {{0}};
	ch[1].pid = spawn(self, "sub", "1", secs, &ch[1].fd);
	ch[2].pid = spawn(self, "sub", "2", secs, &ch[2].fd);
	for (int ready = 0; ready < 2;) /* subscribers first, so they see every frame */
		for (int i = 1; i <= 2; i++)
			ready += pump(&ch[i]);
	ch[0].pid = spawn(self, "pub", "0", secs, &ch[0].fd);
	for (;;) {
		struct pollfd p[3];
		int n = 0;
		for (int i = 0; i < 3; i++)
			p[i] = (struct pollfd){.fd = ch[i].fd, .events = POLLIN};
		for (int i = 0; i < 3; i++)
			n += ch[i].fd >= 0;
		if (!n)
			break;
		if (poll(p, 3, 30000) <= 0)
			break;
		for (int i = 0; i < 3; i++)
			if (ch[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP)))
				pump(&ch[i]);
	}
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		int st;
		waitpid(ch[i].pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("%s failed (exit status 0x%x)\n",
			       i ? "a subscriber" : "the publisher", st);
			ok = 0;
		}
	}
	printf("\nIn all:\n");
	for (int i = 0; i < 3; i++)
		printf("  %s\n",
		       ch[i].done[0] ? ch[i].done : "(no summary: the process ended early)");

	/* The proof: each process asked zcast where frame PROOF_FRAME's payload lives (pool file
	 * device and inode, offset in it). Only if all three name the same bytes was nothing
	 * copied. */
	int same =
	    ch[0].loc[0] && strcmp(ch[0].loc, ch[1].loc) == 0 && strcmp(ch[0].loc, ch[2].loc) == 0;
	unsigned long long dev = 0, ino = 0, off = 0;
	sscanf(ch[0].loc, "%llu %llu %llu", &dev, &ino, &off);
	if (same) {
		printf(
		    "\nZero-copy check: frame %d lies in pool file (device %llu, inode %llu) at "
		    "offset %llu\n"
		    "for the publisher and for both subscribers: they all read the same memory.\n",
		    PROOF_FRAME, dev, ino, off);
		printf("bytes copied: 0\n");
	} else {
		printf(
		    "\nZero-copy check FAILED: frame %d at (device inode offset) publisher [%s], "
		    "subscriber 1 [%s], subscriber 2 [%s]\n",
		    PROOF_FRAME, ch[0].loc, ch[1].loc, ch[2].loc);
	}
	if (!ok || !same) /* on success the proof is the last word */
		printf("demo: FAILED\n");
	return ok && same ? 0 : 1;
}
