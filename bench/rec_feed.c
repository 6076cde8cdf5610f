/* The feeder of the recorder's rate benchmark (bench/record.sh, part 1): offers a recorder more
 * than it can write, so that what is measured is the recorder. P publisher threads on one topic,
 * each with its own pool of S slots of SIZE bytes; a slot's payload is written the first time it
 * is loaned only (pre-filled: a loan of a slot used before keeps its bytes), so a message costs
 * the feeder a loan and a publish (microseconds), not a copy of SIZE bytes. Publishers start once
 * the topic has a subscriber and wait for room (zcast_publish_wait): against a lossless (FULL)
 * recorder they wait whenever its queue is full, so nothing is dropped, the recorder always has
 * a backlog, and no core is spent on messages that are dropped (against a DROP_OLD recorder a
 * free-running feeder published and dropped millions of messages a second). Prints "start T"
 * (CLOCK_REALTIME, seconds) as the publishers start; stops after SECONDS or when the recorder has
 * left, and prints "published N".
 * Usage: zcast-rec-feed TOPIC SIZE PUBLISHERS SLOTS SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zcast/waitset.h>
#include <zcast/zcast.h>

static const char *topic;
static size_t size;
static uint32_t slots;
static int64_t stop_at;
static atomic_ulong published;

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *feed(void *arg)
{
	zcast_pub *p = arg;
	void **filled = calloc(slots, sizeof *filled); /* payloads written once */
	uint32_t nfilled = 0;
	unsigned long n = 0;
	while (filled && now_ns() < stop_at) {
		zcast_msg *m;
		if (zcast_loan_wait(p, size, 100000000, &m) != 0)
			continue;
		uint8_t *d = zcast_msg_data(m);
		bool seen = false;
		for (uint32_t i = 0; i < nfilled && !seen; i++)
			seen = filled[i] == d;
		if (!seen && nfilled < slots) {
			for (size_t k = 0; k < size; k += 8)
				memcpy(d + k, &k, size - k < 8 ? size - k : 8);
			filled[nfilled++] = d;
		}
		memcpy(d, &n, sizeof n); /* a message number in front, for whoever looks */
		if (zcast_publish_wait(p, m, 100000000) == 0)
			n++;
		else
			zcast_msg_drop(m);
		if (n % 64 == 0 && zcast_pub_matched(p) < 1)
			break; /* the recorder has gone */
	}
	free(filled);
	atomic_fetch_add(&published, n);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s TOPIC SIZE PUBLISHERS SLOTS SECONDS\n", argv[0]);
		return 2;
	}
	topic = argv[1];
	size = strtoul(argv[2], NULL, 0);
	int np = atoi(argv[3]);
	slots = (uint32_t)atoi(argv[4]);
	double secs = atof(argv[5]);
	if (size < 8 || np < 1 || np > 64 || slots < 2)
		return 2;
	zcast_pub *pubs[64];
	pthread_t th[64];
	for (int i = 0; i < np; i++) {
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = size;
		o.slot_count = slots;
		int r = zcast_pub_open(topic, &o, &pubs[i]);
		if (r < 0) {
			fprintf(stderr, "rec_feed: %s: %s (%s)\n", topic, zcast_strerror(r),
				zcast_last_error());
			return 1;
		}
	}
	while (zcast_pub_matched(pubs[0]) < 1) { /* the recorder has joined */
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	stop_at = now_ns() + (int64_t)(secs * 1e9);
	struct timespec wall; /* when messages became available: the recorder's clock starts here */
	clock_gettime(CLOCK_REALTIME, &wall);
	printf("start %lld.%09ld\n", (long long)wall.tv_sec, wall.tv_nsec);
	fflush(stdout);
	for (int i = 0; i < np; i++)
		pthread_create(&th[i], NULL, feed, pubs[i]);
	for (int i = 0; i < np; i++) {
		pthread_join(th[i], NULL);
		zcast_pub_close(pubs[i]);
	}
	printf("published %lu\n", (unsigned long)atomic_load(&published));
	return 0;
}
