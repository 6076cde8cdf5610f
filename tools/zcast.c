/* zcast: the command-line tool.
 *   zcast list                      topics of the domain
 *   zcast info TOPIC                type, limits, members, slots
 *   zcast echo TOPIC [-n N]         print messages (sequence, size, first bytes)
 *   zcast hz TOPIC [-w SECONDS]     message rate
 *   zcast pub TOPIC TEXT [-r HZ] [-n N]
 *   zcast gc TOPIC                  reclaim dead members
 *   zcast rm TOPIC                  remove a topic (also a retained one) with no live members
 * The domain is -d DOMAIN or $ZCAST_DOMAIN. Subscribers the tool opens are untyped and DROP_OLD, so
 * watching a topic never slows its publishers down. */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zcast/zcast.h>

#include "typed_print.h"

static volatile sig_atomic_t stop;
static const char *domain;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fail(const char *what, int r)
{
	fprintf(stderr, "zcast %s: %s (%s)\n", what, zcast_strerror(r), zcast_last_error());
	return 1;
}

static int print_topic(const char *topic, void *ctx)
{
	(void)ctx;
	printf("%s\n", topic);
	return 0;
}

static int cmd_info(const char *topic)
{
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(domain, topic, &st);
	if (r < 0)
		return fail("info", r);
	printf("topic:        %s\n", topic);
	char hash[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(st.type_hash, hash);
	printf("type:         %s (%s)\n", st.type_name[0] ? st.type_name : "(untyped)", hash);
	printf("publishers:   %u of %u\n", st.publishers, st.max_publishers);
	printf("subscribers:  %u of %u\n", st.subscribers, st.max_subscribers);
	printf("queue depth:  up to %u\n", st.max_queue_depth);
	printf("history:      %u kept (capacity %u)%s\n", st.history_len, st.history_capacity,
	       st.retain ? ", retained" : "");
	printf("sequence:     %" PRIu64 "\n", st.last_sequence);
	printf("pools:        %u, slots %" PRIu64 " (free %" PRIu64 ", loaned %" PRIu64
	       ", published %" PRIu64 ")\n",
	       st.pools, st.slots_total, st.slots_free, st.slots_loaned, st.slots_published);
	return 0;
}

static zcast_sub *open_watcher(const char *topic, uint32_t history)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = domain;
	o.policy = ZCAST_POLICY_DROP_OLD;
	o.history = history;
	zcast_sub *s = NULL;
	int r = zcast_sub_open(topic, &o, &s);
	if (r < 0)
		fail("subscribe", r);
	return s;
}

static int cmd_echo(const char *topic, long count)
{
	zcast_sub *s = open_watcher(topic, 1);
	if (!s)
		return 1;
	zcast_topic_stat st;
	const zcast_cdr_type *type = zcast_topic_stat_get(domain, topic, &st) == 0
					     ? zt_known_type(st.type_name, st.type_hash)
					     : NULL;
	long seen = 0;
	while (!stop && (count <= 0 || seen < count)) {
		if (zcast_wait(s, 200000000) != 0)
			continue;
		zcast_msg *m;
		while ((count <= 0 || seen < count) && zcast_take(s, &m) == 0) {
			zcast_msg_info in;
			zcast_msg_info_get(m, &in);
			const unsigned char *p = zcast_msg_data(m);
			size_t n = zcast_msg_size(m), show = n < 48 ? n : 48;
			printf("seq %" PRIu64 "  %zu bytes  from %016" PRIx64 "  ", in.sequence, n,
			       in.publisher_id);
			if (type) { /* a type zcast ships: member by member */
				printf("%s\n", type->name);
				if (zt_print_typed(type, m, stdout) < 0)
					printf("  (not a valid %s: %s)\n", type->name, zcast_last_error());
			} else {
				putchar('|');
				for (size_t i = 0; i < show && p[i]; i++)
					putchar(isprint(p[i]) ? p[i] : '.');
				printf("|\n");
			}
			fflush(stdout);
			zcast_msg_drop(m);
			seen++;
		}
	}
	zcast_sub_close(s);
	return 0;
}

static int cmd_hz(const char *topic, double window)
{
	zcast_sub *s = open_watcher(topic, 0);
	if (!s)
		return 1;
	uint64_t n = 0, bytes = 0, last_seq = 0, missed = 0;
	int64_t start = now_ns(), next = start + (int64_t)(window * 1e9);
	while (!stop) {
		if (zcast_wait(s, 100000000) == 0) {
			zcast_msg *m;
			while (zcast_take(s, &m) == 0) {
				zcast_msg_info in;
				zcast_msg_info_get(m, &in);
				if (last_seq && in.sequence > last_seq + 1)
					missed += in.sequence - last_seq - 1;
				last_seq = in.sequence;
				bytes += zcast_msg_size(m);
				n++;
				zcast_msg_drop(m);
			}
		}
		int64_t t = now_ns();
		if (t >= next) {
			double s_el = (double)(t - start) / 1e9;
			printf("%.1f msg/s, %.1f MB/s, %" PRIu64 " not seen (other subscribers' or dropped)\n",
			       (double)n / s_el, (double)bytes / s_el / 1e6, missed);
			fflush(stdout);
			n = bytes = missed = 0;
			start = t;
			next = t + (int64_t)(window * 1e9);
		}
	}
	zcast_sub_close(s);
	return 0;
}

static int cmd_pub(const char *topic, const char *text, double rate, long count, int force)
{
	zcast_topic_stat st; /* raw text in a typed topic would only be refused by its readers */
	if (!force && zcast_topic_stat_get(domain, topic, &st) == 0 && st.type_name[0]) {
		fprintf(stderr, "zcast pub: topic %s is typed (%s); pub writes raw text: use --force\n",
			topic, st.type_name);
		return 1;
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = domain;
	o.slot_size = strlen(text) + 1;
	o.slot_count = 8;
	zcast_pub *p;
	int r = zcast_pub_open(topic, &o, &p);
	if (r < 0)
		return fail("pub", r);
	int64_t period = rate > 0 ? (int64_t)(1e9 / rate) : 0, next = now_ns();
	for (long i = 0; !stop && (count <= 0 || i < count); i++) {
		zcast_msg *m;
		if ((r = zcast_loan_wait(p, o.slot_size, 1000000000, &m)) < 0)
			return fail("loan", r);
		memcpy(zcast_msg_data(m), text, o.slot_size);
		if ((r = zcast_publish_wait(p, m, 1000000000)) < 0) {
			zcast_msg_drop(m);
			fprintf(stderr, "zcast pub: %s\n", zcast_last_error());
		}
		next += period;
		while (period && !stop && now_ns() < next)
			usleep(1000);
	}
	zcast_pub_close(p);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: zcast [-d DOMAIN] list | info TOPIC | echo TOPIC [-n N] | hz TOPIC [-w S]\n"
			"             | pub TOPIC TEXT [-r HZ] [-n N] [--force] | gc TOPIC | rm TOPIC\n");
}

int main(int argc, char **argv)
{
	int a = 1;
	if (a + 1 < argc && strcmp(argv[a], "-d") == 0) {
		domain = argv[a + 1];
		a += 2;
	}
	if (a >= argc) {
		usage();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	const char *cmd = argv[a++], *topic = a < argc ? argv[a++] : NULL;
	long count = 0;
	double rate = 1, window = 1;
	const char *text = NULL;
	int force = 0;
	if (strcmp(cmd, "pub") == 0 && a < argc)
		text = argv[a++];
	if (a < argc && strcmp(argv[argc - 1], "--force") == 0)
		force = 1, argc--;
	for (; a + 1 < argc; a += 2) {
		if (strcmp(argv[a], "-n") == 0)
			count = atol(argv[a + 1]);
		else if (strcmp(argv[a], "-r") == 0)
			rate = atof(argv[a + 1]);
		else if (strcmp(argv[a], "-w") == 0)
			window = atof(argv[a + 1]);
	}
	if (strcmp(cmd, "list") == 0) {
		int r = zcast_topic_list(domain, print_topic, NULL);
		return r < 0 ? fail("list", r) : 0;
	}
	if (!topic) {
		usage();
		return 2;
	}
	if (strcmp(cmd, "info") == 0)
		return cmd_info(topic);
	if (strcmp(cmd, "echo") == 0)
		return cmd_echo(topic, count);
	if (strcmp(cmd, "hz") == 0)
		return cmd_hz(topic, window > 0 ? window : 1);
	if (strcmp(cmd, "pub") == 0 && text)
		return cmd_pub(topic, text, rate, count, force);
	if (strcmp(cmd, "gc") == 0) {
		int r = zcast_topic_gc(domain, topic);
		if (r < 0)
			return fail("gc", r);
		printf("%d dead member(s) reclaimed\n", r);
		return 0;
	}
	if (strcmp(cmd, "rm") == 0) {
		int r = zcast_topic_remove(domain, topic);
		return r < 0 ? fail("rm", r) : 0;
	}
	usage();
	return 2;
}
