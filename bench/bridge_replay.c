/* The two-host replay of the bridge (bench/bridge_replay.sh, docs/BENCHMARKS.md): the container
 * benchmark's Autoware-shaped graph (container_plan.c) split over two hosts, containers 0 .. P/2-1
 * on host A, the others on host B. A topic is cross-host when its publisher is on one host and at
 * least one subscription on the other; only those topics and their remote subscriptions are
 * replayed, either through zcast and the bridges (one out route on the publisher's host, one in
 * route on the other) or through plain Cyclone DDS writers and readers (one reader per remote
 * subscription, as a DDS node per container would have).
 *   bridge_replay conf <A|B> [plan]         the host's bridge routes (reliable), one per line
 *   bridge_replay describe [plan]           what crosses, per size class and direction
 *   bridge_replay now                       CLOCK_MONOTONIC in ns (the two hosts share it)
 *   bridge_replay run <zcast|cyclone> <A|B> <sync-file> <latency-file> [plan] [--duration S]
 *                                           [--drain S]
 *   bridge_replay report <label> <latency-file>...
 * plan: [--topics T] [--seed N] [--containers P] (defaults 230, 1, 16: the container benchmark's).
 * run: opens the host's subscriptions and writers, waits until every one is matched, prints
 * "ready", waits for <sync-file> to hold the common start (CLOCK_MONOTONIC ns), publishes every
 * topic of the host on its schedule for --duration seconds (default 60) without dropping (a writer
 * waits for room), and receives until every message due arrived or, after the end, none did for
 * --drain seconds (default 10). A message carries its sequence number and its send time (taken
 * before the loan or the write) in the first 16 data bytes. Then it prints per size class "expected
 * E received R lost L dup D bad B" (lost = due but never received; dup = received again or out of
 * order; bad = of another size or a mangled head), and the process's CPU time over the run, prints
 * "done", waits for <sync-file>.done (every host finished: writers stay until their messages
 * arrived) and exits: 0, or 3 if anything was lost, duplicated or bad. The latencies (receive -
 * send time) go to <latency-file>, which `report` reads (p50 p90 p99 max per class, in us). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <zcast/waitset.h>

#include "bridge_ep.h"
#include "container_plan.h"

#define MIN_SUBS 40 /* as case_container.c */
#define ZBR_MAX_CONTAINERS 64

/* ---- the split plan ---- */

static cp_plan plan;

static int host_of(int container)
{
	return container >= plan.ncont / 2;
}

static int is_remote(int sub) /* a subscription on the other host than its topic's publisher */
{
	const cp_sub *s = &plan.subs[sub];
	return host_of(s->container) != host_of(plan.topics[s->topic].pub);
}

static int remote_subs(int t)
{
	int n = 0;
	for (int k = 0; k < plan.topics[t].nsubs; k++)
		n += is_remote(plan.topics[t].first_sub + k);
	return n;
}

static void topic_name(char *buf, size_t n, int t)
{
	snprintf(buf, n, "/rp_%d", t);
}

static int64_t period_ns(int t)
{
	return 1000000000LL / plan.topics[t].rate_hz;
}

/* Messages of topic t sent in a run of dur_ns: those due at phase + k * period < dur_ns. */
static uint32_t due_count(int t, int64_t dur_ns)
{
	int64_t ph = plan.topics[t].phase_ns, p = period_ns(t);
	return ph >= dur_ns ? 0 : (uint32_t)((dur_ns - ph + p - 1) / p);
}

static void load_plan(int argc, char **argv)
{
	char why[160];
	int ncont = (int)zbe_opt(argc, argv, "--containers", 16);
	if (ncont > ZBR_MAX_CONTAINERS) {
		fprintf(stderr, "bridge_replay: at most %d containers\n", ZBR_MAX_CONTAINERS);
		exit(2);
	}
	if (cp_generate(&plan, (int)zbe_opt(argc, argv, "--topics", 230), ncont, MIN_SUBS,
			(uint64_t)zbe_opt(argc, argv, "--seed", 1), why, sizeof why)) {
		fprintf(stderr, "bridge_replay: %s\n", why);
		exit(2);
	}
}

static int conf(int host)
{
	for (int t = 0; t < plan.ntopics; t++) {
		if (!remote_subs(t))
			continue;
		char name[32];
		topic_name(name, sizeof name, t);
		printf("%s %s sensor_msgs/msg/Image reliable max_size=%u\n",
		       host_of(plan.topics[t].pub) == host ? "out" : "in", name,
		       plan.topics[t].size);
	}
	return 0;
}

static int describe(void)
{
	int topics[2][3] = {{0}}, subs[2][3] = {{0}};
	double msgs[2][3] = {{0}}, bytes = 0;
	for (int t = 0; t < plan.ntopics; t++) {
		int r = remote_subs(t), h = host_of(plan.topics[t].pub),
		    c = cp_class(plan.topics[t].size);
		if (!r)
			continue;
		topics[h][c]++, subs[h][c] += r, msgs[h][c] += plan.topics[t].rate_hz;
		bytes += (double)plan.topics[t].rate_hz * plan.topics[t].size;
	}
	for (int h = 0; h < 2; h++)
		for (int c = 0; c < 3; c++)
			if (topics[h][c])
				printf("%s->%s %-6s topics %3d remote subscriptions %3d msgs/s "
				       "%6.0f\n",
				       h ? "B" : "A", h ? "A" : "B", cp_class_names[c],
				       topics[h][c], subs[h][c], msgs[h][c]);
	printf("cross-host: %.1f MB/s over DDS (each message once)\n", bytes / 1e6);
	return 0;
}

/* ---- one host's run ---- */

typedef struct lat_rec {
	int32_t cls, pad;
	int64_t ns;
} lat_rec;

typedef struct rsub { /* one remote subscription of this host */
	zbe_ep ep;
	int topic;
	uint32_t expected, received, unique, dup, bad, last;
} rsub;

typedef struct run {
	int cyclone, host;
	int64_t start, dur;
	zbe_ep *pubs; /* per plan topic; used where this host publishes a cross-host topic */
	int *mine;    /* the topics this host publishes */
	int nmine;
	rsub *subs;
	int nsubs, ncomplete; /* ncomplete: subscriptions that got every message due */
	lat_rec *lat;
	size_t nlat, cap;
	dds_entity_t pp, dws; /* Cyclone: participant, the wait set of every reader */
	zcast_waitset *zws;
} run;

static void open_all(run *r)
{
	char name[32];
	r->pubs = calloc((size_t)plan.ntopics, sizeof *r->pubs);
	r->mine = calloc((size_t)plan.ntopics, sizeof *r->mine);
	r->subs = calloc((size_t)plan.nsubs, sizeof *r->subs);
	if (!r->pubs || !r->mine || !r->subs)
		zbe_die("out of memory");
	if (r->cyclone)
		r->dws = dds_create_waitset(r->pp);
	else if (zcast_waitset_create(&r->zws) < 0)
		zbe_die("zcast wait set");
	for (int i = 0; i < plan.nsubs; i++) { /* subscriptions first: nothing sent is missed */
		if (!is_remote(i) || host_of(plan.subs[i].container) != r->host)
			continue;
		rsub *s = &r->subs[r->nsubs++];
		s->topic = plan.subs[i].topic;
		s->ep = (zbe_ep){.cyclone = r->cyclone, .pp = r->pp, .ws = r->dws};
		topic_name(name, sizeof name, s->topic);
		zbe_open_reader(&s->ep, name, 16);
		int id;
		if (!r->cyclone && zcast_waitset_add_sub(r->zws, s->ep.zs, s, &id) < 0)
			zbe_die("zcast wait set");
		s->expected = due_count(s->topic, r->dur);
		r->ncomplete += s->expected == 0;
		r->cap += s->expected;
	}
	for (int t = 0; t < plan.ntopics; t++) {
		if (host_of(plan.topics[t].pub) != r->host || !remote_subs(t))
			continue;
		r->mine[r->nmine++] = t;
		r->pubs[t] = (zbe_ep){.cyclone = r->cyclone, .pp = r->pp};
		topic_name(name, sizeof name, t);
		zbe_open_writer(&r->pubs[t], name, plan.topics[t].size - ZBE_OVERHEAD,
				cp_class(plan.topics[t].size) == 2 ? 4 : 8);
	}
	if (!(r->lat = malloc((r->cap + 1) * sizeof *r->lat)))
		zbe_die("out of memory");
}

/* Every writer sees its readers (the remote ones, Cyclone; the bridge, zcast) and every reader a
 * writer. */
static void wait_matched(run *r)
{
	char name[32];
	int64_t until = zbe_now_ns() + 300 * 1000000000LL;
	for (int k = 0; k < r->nmine; k++) {
		int t = r->mine[k];
		uint32_t want = r->cyclone ? (uint32_t)remote_subs(t) : 1;
		topic_name(name, sizeof name, t);
		while (zbe_readers(&r->pubs[t], name) < want)
			if (zbe_now_ns() > until)
				fprintf(stderr, "bridge_replay: %s: no readers\n", name), exit(1);
			else
				usleep(10000);
	}
	for (int i = 0; i < r->nsubs; i++)
		while (!zbe_writers(&r->subs[i].ep))
			if (zbe_now_ns() > until)
				fprintf(stderr, "bridge_replay: no writer\n"), exit(1);
			else
				usleep(10000);
}

/* Waits for path to hold a number (written by the script once every host is ready); gives up
 * after 10 minutes (the script is gone). */
static int64_t wait_file(const char *path)
{
	for (int64_t until = zbe_now_ns() + 600 * 1000000000LL;;) {
		if (zbe_now_ns() > until)
			fprintf(stderr, "bridge_replay: no %s\n", path), exit(1);
		FILE *f = fopen(path, "r");
		long long v = 0;
		int ok = f && fscanf(f, "%lld", &v) == 1;
		if (f)
			fclose(f);
		if (ok)
			return v;
		usleep(10000);
	}
}

typedef struct pub_thread { /* one per publishing container of the host, as its executor */
	run *r;
	int container;
	pthread_t th;
	uint64_t published;
	int64_t behind,
	    last; /* the most a send was late; when the last one was sent (from start) */
} pub_thread;

static void *publisher(void *arg)
{
	pub_thread *p = arg;
	run *r = p->r;
	uint32_t *next = calloc((size_t)plan.ntopics, sizeof *next);
	if (!next)
		zbe_die("out of memory");
	for (;;) {
		int best = -1;
		int64_t due = 0;
		for (int k = 0; k < r->nmine; k++) { /* the topic whose next message is due first */
			int t = r->mine[k];
			int64_t d = plan.topics[t].phase_ns + (int64_t)next[t] * period_ns(t);
			if (plan.topics[t].pub == p->container && d < r->dur &&
			    (best < 0 || d < due))
				best = t, due = d;
		}
		if (best < 0)
			break;
		struct timespec ts = {(r->start + due) / 1000000000, (r->start + due) % 1000000000};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		int64_t head[2] = {(int64_t)next[best] + 1, zbe_now_ns()};
		if (head[1] - r->start - due > p->behind)
			p->behind = head[1] - r->start - due;
		zbe_send(&r->pubs[best], (uint32_t)head[0], plan.topics[best].size - ZBE_OVERHEAD,
			 head, sizeof head);
		next[best]++;
		p->published++;
	}
	p->last = zbe_now_ns() - r->start;
	free(next);
	return NULL;
}

static void got(run *r, rsub *s, uint32_t seq, uint32_t n, const uint8_t *head)
{
	int64_t t = zbe_now_ns(), h[2];
	memcpy(h, head, sizeof h);
	s->received++;
	if (n + ZBE_OVERHEAD != plan.topics[s->topic].size || h[0] != (int64_t)seq) {
		if (!s->bad++)
			fprintf(stderr,
				"bridge_replay: /rp_%d: message %u: %u data bytes, head seq %lld\n",
				s->topic, seq, n, (long long)h[0]);
		return;
	}
	if (seq <= s->last) {
		s->dup++; /* again, or out of order */
	} else {
		s->last = seq;
		r->ncomplete += ++s->unique == s->expected;
	}
	if (r->nlat < r->cap)
		r->lat[r->nlat++] = (lat_rec){cp_class(plan.topics[s->topic].size), 0, t - h[1]};
}

static void drain_sub(run *r, rsub *s)
{
	uint32_t seq, n;
	uint8_t head[ZBE_HEAD];
	while (zbe_take(&s->ep, &seq, &n, head))
		got(r, s, seq, n, head);
}

/* Waits up to timeout for readers with data and takes all they have. */
static void receive_some(run *r, int64_t timeout)
{
	enum { MAX = 64 };
	if (r->cyclone) {
		dds_attach_t ev[MAX];
		int k = dds_waitset_wait(r->dws, ev, MAX, timeout);
		for (int i = 0; i < k && i < MAX; i++)
			drain_sub(r, (rsub *)(uintptr_t)ev[i]); /* &s->ep, the first member */
		return;
	}
	zcast_ws_event ev[MAX];
	int k = zcast_waitset_wait(r->zws, timeout, ev, MAX);
	for (int i = 0; i < k; i++)
		if (ev[i].kind == ZCAST_WS_SUB)
			drain_sub(r, ev[i].user);
}

static double cpu_s(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Prints the counts per size class; returns 1 if anything was lost, duplicated or bad. */
static int print_counts(const run *r, const char *sys)
{
	uint64_t c[3][5] = {{0}}; /* expected received lost dup bad */
	for (int i = 0; i < r->nsubs; i++) {
		const rsub *s = &r->subs[i];
		uint64_t *x = c[cp_class(plan.topics[s->topic].size)];
		x[0] += s->expected, x[1] += s->received;
		x[2] += s->unique < s->expected ? s->expected - s->unique : 0;
		x[3] += s->dup, x[4] += s->bad;
	}
	int wrong = 0;
	for (int k = 0; k < 3; k++) {
		if (!c[k][0] && !c[k][1])
			continue;
		printf("%s %c %-6s expected %llu received %llu lost %llu dup %llu bad %llu\n", sys,
		       'A' + r->host, cp_class_names[k], (unsigned long long)c[k][0],
		       (unsigned long long)c[k][1], (unsigned long long)c[k][2],
		       (unsigned long long)c[k][3], (unsigned long long)c[k][4]);
		wrong |= c[k][2] || c[k][3] || c[k][4];
	}
	return wrong;
}

static int run_host(int argc, char **argv)
{
	run r = {.cyclone = strcmp(argv[2], "cyclone") == 0, .host = argv[3][0] == 'B'};
	const char *sync = argv[4], *latf = argv[5];
	r.dur = zbe_opt(argc, argv, "--duration", 60) * 1000000000LL;
	int64_t drain = zbe_opt(argc, argv, "--drain", 10) * 1000000000LL;
	const char *dom = getenv("ZB_DDS_DOMAIN");
	if (r.cyclone &&
	    (r.pp = dds_create_participant(dom ? (dds_domainid_t)atoi(dom) : DDS_DOMAIN_DEFAULT,
					   NULL, NULL)) < 0)
		zbe_die("participant");
	open_all(&r);
	wait_matched(&r);
	printf("ready %d topics %d subscriptions\n", r.nmine, r.nsubs);
	fflush(stdout);
	r.start = wait_file(sync);
	double cpu0 = cpu_s();
	pub_thread pt[ZBR_MAX_CONTAINERS];
	int npt = 0;
	for (int c = 0; c < plan.ncont && c < ZBR_MAX_CONTAINERS; c++) {
		if (host_of(c) != r.host)
			continue;
		pt[npt] = (pub_thread){.r = &r, .container = c};
		if (pthread_create(&pt[npt].th, NULL, publisher, &pt[npt]))
			zbe_die("thread");
		npt++;
	}
	/* until everything due arrived, or nothing did for `drain` after the end (a loaded machine
	 * delays, a reliable route does not lose) */
	int64_t end = r.start + r.dur, last = end;
	while (r.ncomplete < r.nsubs && (zbe_now_ns() < end || zbe_now_ns() - last < drain)) {
		uint64_t before = r.nlat;
		receive_some(&r, r.cyclone ? DDS_MSECS(20) : 20 * 1000000LL);
		if (r.nlat != before && zbe_now_ns() > end)
			last = zbe_now_ns();
	}
	uint64_t published = 0;
	int64_t behind = 0, last_sent = 0;
	for (int k = 0; k < npt; k++) {
		pthread_join(pt[k].th, NULL);
		published += pt[k].published;
		behind = pt[k].behind > behind ? pt[k].behind : behind;
		last_sent = pt[k].last > last_sent ? pt[k].last : last_sent;
	}
	const char *sys = r.cyclone ? "cyclone" : "zcast";
	printf("%s %c published %llu (the last at %.1f s) max_behind_ms %.1f cpu_s %.2f\n", sys,
	       'A' + r.host, (unsigned long long)published, last_sent / 1e9, behind / 1e6,
	       cpu_s() - cpu0);
	int wrong = print_counts(&r, sys);
	FILE *f = fopen(latf, "wb");
	if (!f || fwrite(r.lat, sizeof *r.lat, r.nlat, f) != r.nlat || fclose(f))
		zbe_die("writing the latency file");
	printf("done\n");
	fflush(stdout);
	char path[4096];
	snprintf(path, sizeof path, "%s.done", sync);
	wait_file(path); /* our writers stay until every host received */
	if (r.cyclone)
		dds_delete(r.pp);
	return wrong ? 3 : 0;
}

/* ---- report ---- */

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int report(int argc, char **argv)
{
	int64_t *v[3] = {NULL};
	size_t n[3] = {0}, cap[3] = {0};
	for (int i = 3; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		lat_rec x;
		while (f && fread(&x, sizeof x, 1, f) == 1) {
			int c = x.cls >= 0 && x.cls < 3 ? x.cls : 0;
			if (n[c] == cap[c] &&
			    !(v[c] = realloc(v[c], (cap[c] = cap[c] * 2 + 1024) * sizeof *v[c])))
				zbe_die("out of memory");
			v[c][n[c]++] = x.ns;
		}
		if (f)
			fclose(f);
	}
	for (int c = 0; c < 3; c++) {
		if (!n[c])
			continue;
		qsort(v[c], n[c], sizeof *v[c], cmp64);
		printf("lat %s %-6s n %zu p50 %.1f p90 %.1f p99 %.1f max %.1f\n", argv[2],
		       cp_class_names[c], n[c], v[c][n[c] / 2] / 1e3, v[c][n[c] * 9 / 10] / 1e3,
		       v[c][n[c] * 99 / 100] / 1e3, v[c][n[c] - 1] / 1e3);
		free(v[c]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (strcmp(m, "now") == 0)
		return printf("%lld\n", (long long)zbe_now_ns()), 0;
	if (strcmp(m, "report") == 0 && argc >= 3)
		return report(argc, argv);
	load_plan(argc, argv);
	if (strcmp(m, "conf") == 0 && argc >= 3)
		return conf(argv[2][0] == 'B');
	if (strcmp(m, "describe") == 0)
		return describe();
	if (strcmp(m, "run") == 0 && argc >= 6)
		return run_host(argc, argv);
	fprintf(stderr, "usage: see bench/bridge_replay.c\n");
	return 2;
}
