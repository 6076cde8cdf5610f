/* zcast-bench-open: what a component container pays for many subscriptions of one topic in one
 * process. A publisher process (1 MiB slots) publishes one message; this process then opens N
 * subscribers of the topic, and each takes that message. Prints, as one JSON line: the p50 / p90 of
 * zcast_sub_open for subscribers 2..N (the topic is mapped already), the p50 of each one's first
 * take (maps the pool if this process has not), the number of zcast mappings in /proc/self/maps
 * and the process's resident memory after all of it.
 *
 *   zcast-bench-open [N]     (default 100) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zcast/zcast.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static long count_lines(const char *path, const char *needle, long *rss_kb)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long n = 0;
	while (f && fgets(line, sizeof line, f)) {
		n += needle && strstr(line, needle) != NULL;
		if (rss_kb && strncmp(line, "VmRSS:", 6) == 0)
			*rss_kb = strtol(line + 6, NULL, 10);
	}
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	if (n < 2 || n > 1000) {
		fprintf(stderr, "usage: zcast-bench-open [N: 2..1000]\n");
		return 2;
	}
	char domain[64];
	snprintf(domain, sizeof domain, "bopen-%d", (int)getpid());
	zcast_topic_opts topic;
	zcast_topic_opts_init(&topic);
	topic.max_subscribers = 1024;
	int up[2], down[2];
	if (pipe(up) != 0 || pipe(down) != 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) { /* the publisher */
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.domain = domain;
		o.topic = topic;
		o.slot_size = 1 << 20;
		o.slot_count = 4;
		o.history_depth = 1;
		zcast_pub *p;
		zcast_msg *m;
		char c = 1;
		if (zcast_pub_open("/dup", &o, &p) != 0 || zcast_loan(p, 64, &m) != 0 ||
		    zcast_publish(p, m) != 0) {
			fprintf(stderr, "publisher: %s\n", zcast_last_error());
			_exit(1);
		}
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(1);
		zcast_pub_close(p);
		_exit(0);
	}
	char c;
	if (read(up[0], &c, 1) != 1)
		return 1;
	zcast_sub **subs = calloc((size_t)n, sizeof *subs);
	int64_t *open_ns = calloc((size_t)n, sizeof *open_ns), *take_ns = calloc((size_t)n, 8);
	for (int i = 0; i < n; i++) {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.domain = domain;
		o.topic = topic;
		o.history = 1;
		int64_t t0 = now_ns();
		if (zcast_sub_open("/dup", &o, &subs[i]) != 0) {
			fprintf(stderr, "subscriber %d: %s\n", i, zcast_last_error());
			return 1;
		}
		int64_t t1 = now_ns();
		zcast_msg *m;
		if (zcast_take(subs[i], &m) != 0) {
			fprintf(stderr, "take %d: %s\n", i, zcast_last_error());
			return 1;
		}
		take_ns[i] = now_ns() - t1;
		open_ns[i] = t1 - t0;
		zcast_msg_drop(m);
	}
	char needle[96];
	snprintf(needle, sizeof needle, "/dev/shm/zcast.%s.", domain);
	long rss = 0, maps = count_lines("/proc/self/maps", needle, NULL);
	count_lines("/proc/self/status", NULL, &rss);
	qsort(open_ns + 1, (size_t)n - 1, sizeof *open_ns, cmp);
	qsort(take_ns + 1, (size_t)n - 1, sizeof *take_ns, cmp);
	printf("{\"subs\":%d,\"open_first_us\":%.1f,\"open_p50_us\":%.1f,\"open_p90_us\":%.1f,"
	       "\"first_take_p50_us\":%.1f,\"zcast_mappings\":%ld,\"rss_kib\":%ld}\n",
	       n, open_ns[0] / 1e3, open_ns[1 + (n - 1) / 2] / 1e3, open_ns[1 + (n - 1) * 9 / 10] / 1e3,
	       take_ns[1 + (n - 1) / 2] / 1e3, maps, rss);
	for (int i = 0; i < n; i++)
		zcast_sub_close(subs[i]);
	c = 1;
	if (write(down[1], &c, 1) != 1)
		return 1;
	waitpid(pid, NULL, 0);
	return 0;
}
