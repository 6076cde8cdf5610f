/* Membership churn: what a join or a leave costs, and what it costs a publisher that runs into it.
 *
 * Case "join" (--members M): the topic has M members when the measured one joins. Child 0 opens
 * them (one publisher with a small pool, M - 2 DROP_OLD subscribers) and holds them; child 1 then
 * opens and closes one subscriber `warmup + samples` times. Rows: sub = 0 join (duration of
 * zcast_sub_open), sub = 1 leave (duration of zcast_sub_close).
 *
 * Case "join_collide" (--size, --rate): child 0 publishes `size`-byte messages at --rate Hz to a
 * DROP_OLD consumer (child 2, never throttles the publisher) while child 1 joins and leaves the same
 * topic in a loop, one cycle per millisecond. Rows: sub = 2 the duration of each zcast_publish
 * call (what a join that holds the topic lock stalls), sub = 0 / 1 the churner's joins / leaves.
 *
 * zcast only: membership is zcast's own API (the other systems have no equivalent in transport.h)
 * and they are reported as skipped. Topics live in the run's domain (b->ch[0].run_id). */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zcast/zcast.h>

enum { ROW_JOIN = 0, ROW_LEAVE = 1, ROW_PUBLISH = 2 };

#define TOPIC "/membership"
#define CHURN_PERIOD_NS 1000000 /* the churner joins once per millisecond */

static int setup_common(zb_bench *b, int children)
{
	zb_chan_init(&b->ch[0], "members", b, 1, 16);
	b->nch = 0; /* members are opened by the children themselves */
	b->rows_per_msg = 3;
#ifdef ZB_HAVE_ZCAST
	if (b->sys && b->sys != &zb_sys_zcast)
		b->skip = "membership cases use zcast's join/leave API; the harness has no equivalent";
#else
	b->skip = "membership cases need zcast";
#endif
	/* Child 0 of "join" holds up to 1023 members, a descriptor or two each. */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return children;
}

static void topic_opts(const zb_bench *b, zcast_topic_opts *t)
{
	zcast_topic_opts_init(t);
	t->max_subscribers = b->members < 64 ? 64 : (uint32_t)b->members;
}

static int open_sub(zb_bench *b, int idx, int depth, zcast_sub **out)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = b->ch[0].run_id;
	o.policy = ZCAST_POLICY_DROP_OLD;
	o.queue_depth = (uint32_t)depth;
	topic_opts(b, &o.topic);
	int r = zcast_sub_open(TOPIC, &o, out);
	if (r)
		zb_fail(b->ctl, idx, "zcast_sub_open: %s: %s", zcast_strerror(r), zcast_last_error());
	return r;
}

static int open_pub(zb_bench *b, int idx, size_t size, uint32_t slots, zcast_pub **out)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = b->ch[0].run_id;
	o.slot_size = size;
	o.slot_count = slots;
	topic_opts(b, &o.topic);
	int r = zcast_pub_open(TOPIC, &o, out);
	if (r)
		zb_fail(b->ctl, idx, "zcast_pub_open: %s: %s", zcast_strerror(r), zcast_last_error());
	return r;
}

/* One join and one leave, timed; rows only once `seq` is past the warm-up. */
static int join_leave(zb_bench *b, int idx, long seq)
{
	zcast_sub *s;
	int64_t t0 = zb_now();
	if (open_sub(b, idx, 16, &s))
		return 1;
	int64_t t1 = zb_now();
	zcast_sub_close(s);
	int64_t t2 = zb_now();
	if (seq >= b->warmup) {
		zb_sample j = {seq - b->warmup, ROW_JOIN, t0, t1, t1 - t0};
		zb_sample l = {seq - b->warmup, ROW_LEAVE, t1, t2, t2 - t1};
		zb_ctl_add(b->ctl, &j);
		zb_ctl_add(b->ctl, &l);
	}
	return 0;
}

static volatile int64_t *finished(zb_bench *b)
{
	return (volatile int64_t *)&b->ctl->res[0].t_last; /* set when the measured side is done */
}

/* ---- case join ---- */

static int setup_join(zb_bench *b)
{
	if (b->members < 2 || b->members > 1024)
		b->skip = "case join needs --members M with 2 <= M <= 1024 (members at the measured join)";
	return setup_common(b, 2);
}

static int join_child(int idx, void *arg)
{
	zb_bench *b = arg;
	zb_child_res *res = &b->ctl->res[idx];
	if (idx == 0) { /* the M - 1 members already there */
		int n = b->members - 2;
		zcast_pub *p;
		zcast_sub **subs = calloc((size_t)n + 1, sizeof *subs);
		if (!subs || open_pub(b, idx, 64, 8, &p))
			return 1;
		for (int i = 0; i < n; i++)
			if (open_sub(b, idx, 1, &subs[i]))
				return 1;
		if (zb_start(b, idx, NULL, 0))
			return 1;
		while (!*finished(b) && !atomic_load(&b->ctl->abort)) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		zb_close_in_turn(b, idx, NULL, 0);
		for (int i = 0; i < n; i++)
			zcast_sub_close(subs[i]);
		zcast_pub_close(p);
		free(subs);
		return 0;
	}
	if (zb_start(b, idx, NULL, 0))
		return 1;
	res->t_first = zb_now();
	for (long i = 0; i < b->warmup + b->samples; i++) {
		if (join_leave(b, idx, i))
			return 1;
		res->received++;
	}
	*finished(b) = res->t_last = zb_now();
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

static void finish_join(zb_bench *b)
{
	b->received = b->ctl->res[1].received - b->warmup; /* join + leave cycles measured */
	b->published = 0;
	b->messages = 0;
	zcast_topic_remove(b->ch[0].run_id, TOPIC); /* usually gone already */
}

const zb_case zb_case_join = {"join", setup_join, join_child, finish_join};

/* ---- case join_collide ---- */

static int setup_collide(zb_bench *b)
{
	if (b->rate_hz <= 0)
		b->skip = "case join_collide needs --rate > 0";
	return setup_common(b, 3);
}

static void sleep_until(struct timespec *next, int64_t period)
{
	next->tv_nsec += period;
	while (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

static int collide_publisher(zb_bench *b, int idx)
{
	zb_child_res *res = &b->ctl->res[idx];
	zcast_pub *p;
	if (open_pub(b, idx, b->size, 8, &p) || zb_start(b, idx, NULL, 0))
		return 1;
	int64_t period = (int64_t)(1e9 / b->rate_hz), f0 = zb_minflt();
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	res->t_first = zb_now();
	for (long i = 0; i < b->warmup + b->samples; i++) {
		sleep_until(&next, period);
		zcast_msg *m;
		int r = zcast_loan_wait(p, b->size, b->op_timeout_ns, &m);
		if (r) {
			zb_fail(b->ctl, idx, "zcast_loan_wait %ld: %s: %s", i, zcast_strerror(r), zcast_last_error());
			return 1;
		}
		zb_hdr h = {.seq = (uint64_t)i, .stamp = zb_now(), .size = (uint32_t)b->size};
		zb_fill(zcast_msg_data(m), b->size, &h, b->mode);
		int64_t t0 = zb_now();
		r = zcast_publish(p, m); /* DROP_OLD subscribers only: never refused for room */
		int64_t t1 = zb_now();
		if (r) {
			zcast_msg_drop(m);
			zb_fail(b->ctl, idx, "zcast_publish %ld: %s: %s", i, zcast_strerror(r), zcast_last_error());
			return 1;
		}
		res->published++;
		if (i == b->warmup)
			f0 = zb_minflt();
		if (i >= b->warmup) {
			zb_sample x = {i - b->warmup, ROW_PUBLISH, t0, t1, t1 - t0};
			zb_ctl_add(b->ctl, &x);
		}
	}
	res->minflt = zb_minflt() - f0;
	*finished(b) = res->t_last = zb_now();
	zb_close_in_turn(b, idx, NULL, 0);
	zcast_pub_close(p);
	return 0;
}

static int collide_churner(zb_bench *b, int idx)
{
	if (zb_start(b, idx, NULL, 0))
		return 1;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; !*finished(b) && !atomic_load(&b->ctl->abort); i++) {
		sleep_until(&next, CHURN_PERIOD_NS);
		/* Rows only for joins inside the publisher's measured phase would need its clock; all
		 * joins after a warm-up of our own are recorded instead. */
		if (join_leave(b, idx, i))
			return 1;
		b->ctl->res[idx].received++;
	}
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

static int collide_consumer(zb_bench *b, int idx)
{
	zcast_sub *s;
	if (open_sub(b, idx, 4, &s) || zb_start(b, idx, NULL, 0))
		return 1;
	zb_child_res *res = &b->ctl->res[idx];
	while (!*finished(b) && !atomic_load(&b->ctl->abort)) {
		if (zcast_wait(s, 10000000) != 0)
			continue;
		zcast_msg *m;
		while (zcast_take(s, &m) == 0) {
			zb_hdr h;
			zb_sink += zb_consume(zcast_msg_data(m), zcast_msg_size(m), &h, b->mode);
			zcast_msg_drop(m);
			res->received++;
		}
	}
	zb_close_in_turn(b, idx, NULL, 0);
	zcast_sub_close(s);
	return 0;
}

static int collide_child(int idx, void *arg)
{
	zb_bench *b = arg;
	/* With --pin: publisher and consumer share CPU 0, the churner has CPU 1 (2 cores). */
	return idx == 0 ? collide_publisher(b, idx) : idx == 1 ? collide_churner(b, idx) : collide_consumer(b, idx);
}

static void finish_collide(zb_bench *b)
{
	zb_child_res *p = &b->ctl->res[0];
	b->published = p->published - b->warmup;
	b->received = b->ctl->res[2].received;
	b->messages = b->published;
	if (p->t_last > p->t_first)
		b->msgs_per_s = (double)p->published * 1e9 / (double)(p->t_last - p->t_first);
	zcast_topic_remove(b->ch[0].run_id, TOPIC);
}

const zb_case zb_case_join_collide = {"join_collide", setup_collide, collide_child, finish_collide};
