/* zcast hz / bw / delay TOPIC: rate, bandwidth and publish-to-receive delay over a window of the
 * last N messages, reported every interval. One watch loop, three reports. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "typed_print.h"

struct sample {
	uint64_t seq, size;
	int64_t pub_ns, recv_ns;
};

struct window {
	struct sample *v;
	size_t cap, n, next; /* ring of the last cap samples */
	uint64_t total;	     /* messages seen since the start */
	/* zcast delay of a type with a std_msgs/Header: the stamp's slot (else -1), the type, and the
	 * messages left out (stamp 0: never set; or not a valid message of the type) */
	long stamp_slot;
	const zcast_cdr_type *type;
	uint64_t unstamped;
};

static void add(struct window *w, const struct sample *s)
{
	w->v[w->next] = *s;
	w->next = (w->next + 1) % w->cap;
	if (w->n < w->cap)
		w->n++;
	w->total++;
}

/* The i-th oldest sample of the window. */
static const struct sample *at(const struct window *w, size_t i)
{
	return &w->v[(w->next + w->cap - w->n + i) % w->cap];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	size_t n;
	double mean, min, max, std;
};

static struct stats stats_of(double *v, size_t n)
{
	struct stats s = {n, 0, n ? v[0] : 0, n ? v[0] : 0, 0};
	for (size_t i = 0; i < n; i++) {
		s.mean += v[i];
		s.min = v[i] < s.min ? v[i] : s.min;
		s.max = v[i] > s.max ? v[i] : s.max;
	}
	s.mean = n ? s.mean / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		s.std += (v[i] - s.mean) * (v[i] - s.mean);
	s.std = n > 1 ? sqrt(s.std / (double)(n - 1)) : 0;
	return s;
}

/* Messages per second published on the topic: the sequence advance over the window's publish
 * times, right also when the tool dropped messages (its queue is short, so that it never holds a
 * publisher's slots). */
static double seq_rate(const struct window *w)
{
	const struct sample *first = at(w, 0), *last = at(w, w->n - 1);
	int64_t span = last->pub_ns - first->pub_ns;
	return span > 0 && last->seq > first->seq
		   ? (double)(last->seq - first->seq) * 1e9 / (double)span
		   : 0;
}

/* The period statistics come from consecutive sequence numbers only, from the publish timestamps
 * (the publisher's timing, undisturbed by our scheduling); a gap is counted, not measured across.
 */
static void report_hz(const struct cli *c, const struct window *w, double *tmp)
{
	size_t n = 0, gaps = 0;
	for (size_t i = 1; i < w->n; i++) {
		const struct sample *a = at(w, i - 1), *b = at(w, i);
		if (b->seq == a->seq + 1)
			tmp[n++] = (double)(b->pub_ns - a->pub_ns) / 1e9;
		else
			gaps++;
	}
	struct stats s = stats_of(tmp, n);
	double rate = seq_rate(w);
	if (c->json) {
		printf("{\"rate_hz\":%.6g,\"period_min_s\":%.9f,\"period_max_s\":%.9f,"
		       "\"period_std_s\":%.9f,\"periods\":%zu,\"gaps\":%zu,\"window\":%zu,"
		       "\"messages\":%" PRIu64 "}\n",
		       rate, s.min, s.max, s.std, n, gaps, w->n, w->total);
		return;
	}
	if (rate == 0) {
		printf("no rate yet (%" PRIu64 " message%s)\n", w->total, w->total == 1 ? "" : "s");
		return;
	}
	printf("rate %.3f Hz  ", rate);
	if (n)
		printf("period min %.6f s  max %.6f s  std dev %.6f s  ", s.min, s.max, s.std);
	else
		printf("period unknown (no two consecutive messages)  ");
	printf("window %zu%s\n", w->n, gaps ? "  (sequence gaps skipped)" : "");
}

/* Bytes per second: the mean size of the messages received times the topic's message rate. */
static void report_bw(const struct cli *c, const struct window *w, double *tmp)
{
	for (size_t i = 0; i < w->n; i++)
		tmp[i] = (double)at(w, i)->size;
	struct stats s = stats_of(tmp, w->n);
	double bw = s.mean * seq_rate(w);
	if (c->json) {
		printf(
		    "{\"bytes_per_s\":%.6g,\"size_mean\":%.1f,\"size_min\":%.0f,\"size_max\":%.0f,"
		    "\"window\":%zu,\"messages\":%" PRIu64 "}\n",
		    bw, s.mean, s.min, s.max, w->n, w->total);
	} else {
		char b[32], mean[32];
		cli_fmt_bytes(bw, b, sizeof b);
		cli_fmt_bytes(s.mean, mean, sizeof mean);
		printf("%s/s  message mean %s  min %.0f B  max %.0f B  window %zu\n", b, mean,
		       s.min, s.max, w->n);
	}
}

static double percentile(const double *sorted, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n);
	return sorted[i ? i - 1 : 0];
}

static void report_delay(const struct cli *c, const struct window *w, double *tmp)
{
	for (size_t i = 0; i < w->n; i++)
		tmp[i] = (double)(at(w, i)->recv_ns - at(w, i)->pub_ns);
	qsort(tmp, w->n, sizeof *tmp, cmp_double);
	const char *from = w->stamp_slot >= 0 ? "header.stamp" : "publish_time";
	struct stats s = stats_of(tmp, w->n);
	double p50 = percentile(tmp, w->n, 0.5), p90 = percentile(tmp, w->n, 0.9),
	       p99 = percentile(tmp, w->n, 0.99);
	if (c->json) {
		printf("{\"p50_ns\":%.0f,\"p90_ns\":%.0f,\"p99_ns\":%.0f,\"min_ns\":%.0f,\"max_"
		       "ns\":%.0f,"
		       "\"mean_ns\":%.0f,\"window\":%zu,\"messages\":%" PRIu64
		       ",\"from\":\"%s\",\"unstamped\":%" PRIu64 "}\n",
		       p50, p90, p99, s.min, s.max, s.mean, w->n, w->total, from, w->unstamped);
		return;
	}
	double v[] = {p50, p90, p99, s.min, s.max};
	char t[5][32];
	for (int i = 0; i < 5; i++)
		cli_fmt_ns(v[i], t[i], sizeof t[i]);
	printf("delay p50 %s  p90 %s  p99 %s  min %s  max %s  window %zu", t[0], t[1], t[2], t[3],
	       t[4], w->n);
	if (w->stamp_slot >= 0)
		printf("  (from header.stamp, CLOCK_REALTIME; %" PRIu64 " unstamped skipped)",
		       w->unstamped);
	printf("\n");
}

/* zcast delay: the topic's type and its Header stamp's slot, when it has one. */
static bool find_stamp(struct window *w, const char *domain, const char *topic)
{
	zcast_topic_stat st;
	memset(&st, 0, sizeof st);
	char why[512];
	if (zcast_topic_stat_get(domain, topic, &st) == 0 && st.type_name[0] &&
	    zt_find_type(st.type_name, st.type_hash, &w->type, why, sizeof why) == 0)
		w->stamp_slot = zt_stamp_slot(w->type);
	return true;
}

/* The sample as `ros2 topic delay` measures it: receive time on CLOCK_REALTIME (the clock ROS
 * stamps with) minus the Header's stamp. False: the message has no usable stamp. */
static bool stamp_sample(struct window *w, zcast_msg *m, struct sample *s)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t stamp;
	if (zt_read_stamp(w->type, w->stamp_slot, m, &stamp) != 0 || stamp == 0) {
		w->unstamped++;
		return false;
	}
	s->pub_ns = stamp;
	s->recv_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	return true;
}

static int measure(struct cli *c,
		   void (*report)(const struct cli *, const struct window *, double *))
{
	const char *topic = c->pos[0];
	long cap = cli_long(c, "window", 1000, 2, 10000000);
	long reports = cli_long(c, "count", 0, 0, 1000000000);
	double interval = cli_double(c, "interval", 1, 0.01, 3600);
	double timeout = cli_double(c, "timeout", 0, 0, 1e6);
	struct window w = {calloc((size_t)cap, sizeof(struct sample)), (size_t)cap, 0, 0, 0, -1, NULL, 0};
	bool by_stamp = report == report_delay && !cli_flag(c, "publish-time");
	bool resolved = false; /* the topic's type looked up (at the first message) */
	double *tmp = calloc((size_t)cap, sizeof(double));
	if (!w.v || !tmp) {
		free(w.v);
		free(tmp);
		fprintf(stderr, "zcast %s: out of memory for a window of %ld\n", c->cmd->name, cap);
		return CLI_EFAIL;
	}
	struct cli_watch wt;
	int r = cli_watch_open(&wt, c, topic, 0);
	int64_t last = cli_now_ns(), next = last + (int64_t)(interval * 1e9);
	int64_t limit = timeout > 0 ? (int64_t)(timeout * 1e9) : -1;
	uint64_t reported = 0; /* w.total at the last report */
	long done = 0;
	while (r == CLI_OK && !cli_stop && (reports == 0 || done < reports)) {
		if (cli_watch_wait(&wt, 50000000) == 0) {
			zcast_msg *m;
			while (zcast_take(wt.sub, &m) == 0) {
				zcast_msg_info in;
				zcast_msg_info_get(m, &in);
				last = cli_now_ns();
				if (by_stamp && !resolved)
					resolved = find_stamp(&w, wt.domain, topic);
				struct sample s = {in.sequence, zcast_msg_size(m),
						   in.publish_time_ns, last};
				bool keep = w.stamp_slot < 0 || stamp_sample(&w, m, &s);
				zcast_msg_drop(m);
				if (keep)
					add(&w, &s);
			}
		}
		int64_t now = cli_now_ns();
		if (limit >= 0 && now - last >= limit) {
			fprintf(stderr, "zcast %s: nothing received on %s for %g s\n", c->cmd->name,
				topic, timeout);
			r = CLI_ETIMEOUT;
		} else if (now >= next) {
			/* A window without news is not reported again (its rate would be stale). */
			if (w.total > reported) {
				report(c, &w, tmp);
				done++;
				reported = w.total;
			} else if (w.total && !c->json) {
				printf("no new messages\n");
			}
			fflush(stdout);
			next = now + (int64_t)(interval * 1e9);
		}
	}
	cli_watch_close(&wt);
	free(w.v);
	free(tmp);
	return r;
}

static int run_hz(struct cli *c)
{
	return measure(c, report_hz);
}
static int run_bw(struct cli *c)
{
	return measure(c, report_bw);
}
static int run_delay(struct cli *c)
{
	return measure(c, report_delay);
}

static const struct cli_opt opts[] = {
    {"window", 'w', "N", "statistics over the last N messages (default 1000)"},
    {"interval", 'i', "SECONDS", "report every SECONDS (default 1)"},
    {"count", 'n', "N", "stop after N reports (default: until Ctrl-C)"},
    {"timeout", 't', "SECONDS", "give up (exit 4) when no message arrived for SECONDS"},
    {0},
};

static const struct cli_opt delay_opts[] = {
    {"window", 'w', "N", "statistics over the last N messages (default 1000)"},
    {"interval", 'i', "SECONDS", "report every SECONDS (default 1)"},
    {"count", 'n', "N", "stop after N reports (default: until Ctrl-C)"},
    {"timeout", 't', "SECONDS", "give up (exit 4) when no message arrived for SECONDS"},
    {"publish-time", 0, NULL, "measure from zcast's publish time even when the type has a Header"},
    {0},
};

#define MEASURE_DETAILS                                                                            \
	"Reports start with the first message. The tool joins as a DROP_OLD subscriber with a\n"   \
	"short queue, so it never slows a publisher; messages it dropped still count in the\n"     \
	"rate (from sequence numbers) and show up as gaps.\n"

const struct cli_cmd cmd_hz = {
    .name = "hz",
    .args = "TOPIC",
    .summary = "message rate, with min/max/std-dev of the period between messages",
    .details = "Periods come from the publish timestamps of consecutive sequence "
	       "numbers.\n" MEASURE_DETAILS,
    .opts = opts,
    .min_pos = 1,
    .max_pos = 1,
    .json = true,
    .run = run_hz,
};

const struct cli_cmd cmd_bw = {
    .name = "bw",
    .args = "TOPIC",
    .summary = "bandwidth (payload bytes per second) and message sizes",
    .details = MEASURE_DETAILS,
    .opts = opts,
    .min_pos = 1,
    .max_pos = 1,
    .json = true,
    .run = run_bw,
};

const struct cli_cmd cmd_delay = {
    .name = "delay",
    .args = "TOPIC",
    .summary = "publish-to-receive delay percentiles (p50/p90/p99/min/max)",
    .details =
	"A typed topic whose type has a std_msgs/Header (the member named header, else the\n"
	"first Header) is measured as ros2 topic delay does: receive time on CLOCK_REALTIME\n"
	"(ROS stamps with the system clock) minus header.stamp; messages with a zero stamp\n"
	"are skipped and counted (unstamped). Other topics, and --publish-time: receive time\n"
	"minus zcast's publish time (both CLOCK_MONOTONIC). Either includes this tool's\n"
	"wake-up: a busy machine shows here first.\n" MEASURE_DETAILS,
    .opts = delay_opts,
    .min_pos = 1,
    .max_pos = 1,
    .json = true,
    .run = run_delay,
};
