/* Helper of record_discovery_test.sh: a topic that appears while a recorder runs. Creates TOPIC
 * with history N and publishes messages 1..N at once (before any recorder can have joined), waits
 * until a subscriber is matched, then publishes N+1..2N (waiting for room: the recorder is FULL).
 * Message i is i bytes of the value i, so a recording shows which messages it has, in order.
 * With a third argument `hold` (record_history_test.sh): after 1..N it says "ready" on stdout and
 * only holds the topic and its history until SIGTERM or SIGINT; a fourth, MAXQ, creates the topic
 * with that max_queue_depth. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zcast/waitset.h>
#include <zcast/zcast.h>

static int publish(zcast_pub *p, long i)
{
	zcast_msg *m;
	int r = zcast_loan_wait(p, (size_t)i, 10000000000, &m);
	if (r < 0)
		return r;
	memset(zcast_msg_data(m), (int)i, (size_t)i);
	if ((r = zcast_publish_wait(p, m, 10000000000)) < 0)
		zcast_msg_drop(m);
	return r;
}

int main(int argc, char **argv)
{
	bool hold = (argc == 4 || argc == 5) && !strcmp(argv[3], "hold");
	if (argc != 3 && !hold) {
		fprintf(stderr, "usage: late_pub TOPIC N [hold [MAXQ]]\n");
		return 2;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (hold) /* taken by sigwait below, before any thread could get them */
		sigprocmask(SIG_BLOCK, &set, NULL);
	long n = atol(argv[2]);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 256;
	o.slot_count = (uint32_t)n + 8;
	o.history_depth = (uint32_t)n;
	o.topic.max_queue_depth = argc == 5 ? (uint32_t)atol(argv[4]) : 0;
	zcast_pub *p;
	int r = zcast_pub_open(argv[1], &o, &p);
	for (long i = 1; r == 0 && i <= n; i++)
		r = publish(p, i);
	if (r == 0 && hold) {
		printf("ready\n");
		fflush(stdout);
		int sig;
		sigwait(&set, &sig); /* the test's kill ends this wait */
		zcast_pub_close(p);
		return 0;
	}
	for (int k = 0; r == 0 && zcast_pub_matched(p) < 1 && k < 6000; k++)
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	if (r == 0 && zcast_pub_matched(p) < 1)
		r = ZCAST_ETIMEDOUT;
	for (long i = n + 1; r == 0 && i <= 2 * n; i++)
		r = publish(p, i);
	if (r < 0)
		fprintf(stderr, "late_pub: %s (%s)\n", zcast_strerror(r), zcast_last_error());
	zcast_pub_close(p);
	return r < 0;
}
