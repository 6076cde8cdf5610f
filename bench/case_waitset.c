/* Wait set: E2E latency with T topics of 2 subscriber processes each, where each subscriber
 * process waits for all its T subscriptions in ONE zcast wait set (include/zcast/waitset.h).
 * Child 0 publishes `size`-byte messages round-robin over the T topics ("/ws_<t>") at a fixed
 * TOTAL rate (--rate, msgs/s over all topics); children 1 and 2 each open T subscriptions (FULL
 * policy), add them all to one wait set and loop zcast_waitset_wait(ws, timeout, ev, 64), taking
 * from every ready subscription until ZCAST_EAGAIN.
 * Rows with sub = -1: publisher side, lat = duration of loan + fill + publish.
 * Rows with sub = 0/1: E2E, lat = (zcast_take returned) - send stamp (pooled in the summary, like
 * fanout; before the receive rows existed the receive time was taken after consume + drop).
 * Rows with sub = -2/-3: receive call of subscriber 0/1, lat = duration of the successful
 * zcast_take that returned the message (report.py: metrics receive_*).
 * CPU: every child puts its own utime + stime and the wall time of its measured phase (publisher:
 * first measured message .. last one published; subscriber: first measured message .. last STOP)
 * into ctl->res; main.c reports cpu_pct = sum of cpu/wall as a share of all allowed cores.
 * --busy N: messages go to the first N topics only (wake_T<n>: one busy topic among T subscriptions).
 * Warm-up = max(--warmup, 2T) messages, so every topic carries >= 2 messages before measuring.
 * zcast and floor: the case uses the zcast wait-set API directly (no transport.h equivalent). The
 * floor (system "floor") is what a wake-up cannot beat, whatever T: the publisher stores the stamp
 * in shared memory, bumps ONE futex word and wakes it if a subscriber sleeps; each subscriber sleeps
 * on that one word (T plays no part). Every other system is reported as skipped.
 * $ZCAST_NO_DOORBELL=1 runs zcast's wait sets without their doorbell (one word per topic armed on
 * every wait, as before the doorbell): cases wake_nobell_T<n> in bench/run.sh. $ZB_WS_GUARD=1 adds
 * one guard (never triggered) to each subscriber's wait set: the shape of an executor's wait set,
 * which always holds its internal wake guard (run with $ZCAST_NO_FUTEX_WAITV=1 to see whether such
 * a wait set polls). The channels are not the generic b->ch (T can exceed
 * ZB_MAX_CHILDREN); b->ch[0] only holds the common parameters (run id = domain, size, depth). */
#include "bench.h"

#include <dirent.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zcast/waitset.h>
#include <zcast/zcast.h>

#define WS_SUBS 2
#define WS_DEPTH 16
#define WS_MAX_EVENTS 64

static void topic_name(char *buf, size_t n, int t) { snprintf(buf, n, "/ws_%d", t); }

/* ---- the floor: one futex word, stamps in a shared ring ---- */
#define FLOOR_RING 4096
struct floor_shm {
	_Atomic uint32_t word, waiters;
	_Atomic long last; /* last published message index, -1 = none */
	struct {
		_Atomic int64_t stamp;
		_Atomic uint32_t flags;
	} msg[FLOOR_RING];
};
static struct floor_shm *floor_shm; /* mapped by setup, inherited by the children */

static void floor_send(long i, int64_t stamp, int stop)
{
	struct floor_shm *f = floor_shm;
	atomic_store(&f->msg[i % FLOOR_RING].stamp, stamp);
	atomic_store(&f->msg[i % FLOOR_RING].flags, stop ? ZB_FLAG_STOP : 0u);
	atomic_store(&f->last, i);
	atomic_fetch_add(&f->word, 1);
	if (atomic_load(&f->waiters))
		syscall(SYS_futex, &f->word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static int64_t left(int64_t deadline)
{
	int64_t l = deadline - zb_now();
	return l > 0 ? l : 0;
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", "..", the DIR's own fd */
}

static int setup(zb_bench *b)
{
	int floor = b->sys && !strcmp(b->sys->name, "floor");
	if (b->topics < 1)
		b->topics = 16;
	b->subs = WS_SUBS;
	b->rows_per_msg = 1 + 2 * WS_SUBS; /* publish row + per subscriber one E2E and one receive row */
	if (b->warmup < 2L * b->topics)
		b->warmup = 2L * b->topics;
	zb_chan_init(&b->ch[0], "ws", b, WS_SUBS, WS_DEPTH);
	b->nch = 0; /* topics are opened by the children themselves (no prepare/cleanup per channel) */
	if (floor) {
		floor_shm = mmap(NULL, sizeof *floor_shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (floor_shm == MAP_FAILED) {
			b->skip = "mmap of the floor's shared page failed";
			return 1 + WS_SUBS;
		}
		atomic_store(&floor_shm->last, -1);
		return 1 + WS_SUBS;
	}
#ifdef ZB_HAVE_ZCAST
	if (b->sys && b->sys != &zb_sys_zcast) {
		b->skip = "case waitset uses the zcast wait-set API; the harness has no equivalent for this system";
		return 1 + WS_SUBS;
	}
#else
	b->skip = "case waitset needs zcast";
	return 1 + WS_SUBS;
#endif
	/* Every subscriber process holds T subscriptions (a few fds each): raise the soft fd limit to the
	 * hard one (inherited by the children); a subscription that still fails is a recorded failure. */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 1 + WS_SUBS;
}

static int publisher(zb_bench *b, int idx)
{
	zb_ctl *ctl = b->ctl;
	const zb_chan_params *p = &b->ch[0];
	int T = b->topics;
	zcast_pub **pubs = calloc((size_t)T, sizeof *pubs);
	char topic[32];
	for (int t = 0; t < T && !floor_shm; t++) {
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.domain = p->run_id;
		o.slot_size = p->max_size;
		o.slot_count = (uint32_t)p->depth + 4;
		topic_name(topic, sizeof topic, t);
		int r = zcast_pub_open(topic, &o, &pubs[t]);
		if (r) {
			zb_fail(ctl, idx, "zcast_pub_open(%s) (topic %d of %d): %s: %s", topic, t, T,
			        zcast_strerror(r), zcast_last_error());
			return 1;
		}
	}
	if (zb_start(b, idx, NULL, 0))
		return 1;
	zb_child_res *res = &ctl->res[idx];
	int64_t f0 = zb_minflt(), period = (int64_t)(1e9 / b->rate_hz), t_end = 0, c0 = 0, w0 = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	long total = b->warmup + b->samples;
	for (long i = 0; i <= total + T - 1; i++) {
		/* i < total: data message i on topic i % T; then one STOP per topic */
		int busy = b->busy > 0 && b->busy < T ? b->busy : T; /* --busy: the rest stay idle */
		int stop = i >= total, t = stop ? (int)(i - total) : (int)(i % busy);
		if (!stop) {
			next.tv_nsec += period;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
		int64_t t0 = zb_now(), dl = t0 + b->op_timeout_ns;
		if (stop && t == 0 && w0) { /* end of the measured phase */
			res->cpu_ns = zb_cpu_ns() - c0;
			res->wall_ns = t0 - w0;
		}
		if (!stop && i == b->warmup) {
			t_end = t0 + (int64_t)(b->cap_s * 1e9);
			f0 = zb_minflt();
			c0 = zb_cpu_ns();
			w0 = t0;
		} else if (!stop && i > b->warmup && t0 > t_end) {
			total = i; /* cap reached: go on with the STOPs */
			i--;
			continue;
		}
		if (floor_shm) {
			floor_send(i, t0, stop);
			int64_t t1 = zb_now();
			if (!stop)
				res->published++;
			if (!stop && i >= b->warmup) {
				zb_sample x = {i - b->warmup, -1, t0, t1, t1 - t0};
				zb_ctl_add(ctl, &x);
			}
			continue;
		}
		zb_hdr h = {.seq = (uint64_t)i, .stamp = t0, .size = (uint32_t)b->size,
		            .flags = stop ? ZB_FLAG_STOP : 0};
		zcast_msg *m;
		int r = zcast_loan(pubs[t], b->size, &m);
		if (r == ZCAST_ENOSLOT)
			r = zcast_loan_wait(pubs[t], b->size, left(dl), &m);
		if (r) {
			zb_fail(ctl, idx, "zcast_loan %ld (topic %d): %s", i, t, zcast_strerror(r));
			return 1;
		}
		zb_fill(zcast_msg_data(m), b->size, &h, stop ? ZB_TRANSPORT : b->mode);
		r = zcast_publish(pubs[t], m);
		if (r == ZCAST_EAGAIN)
			r = zcast_publish_wait(pubs[t], m, left(dl));
		if (r) {
			zcast_msg_drop(m);
			zb_fail(ctl, idx, "zcast_publish %ld (topic %d): %s", i, t, zcast_strerror(r));
			return 1;
		}
		int64_t t1 = zb_now();
		if (stop)
			continue;
		res->published++;
		if (i >= b->warmup) {
			zb_sample x = {i - b->warmup, -1, t0, t1, t1 - t0};
			zb_ctl_add(ctl, &x);
		}
	}
	res->minflt = zb_minflt() - f0;
	for (int t = 0; t < T && !floor_shm; t++)
		zcast_pub_close(pubs[t]);
	free(pubs);
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

static int subscriber(zb_bench *b, int idx)
{
	zb_ctl *ctl = b->ctl;
	const zb_chan_params *p = &b->ch[0];
	int T = b->topics;
	zcast_sub **subs = calloc((size_t)T, sizeof *subs);
	zcast_waitset *ws;
	char topic[32];
	int r = zcast_waitset_create(&ws);
	if (r) {
		zb_fail(ctl, idx, "zcast_waitset_create: %s", zcast_strerror(r));
		return 1;
	}
	for (int t = 0; t < T; t++) {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.domain = p->run_id;
		o.policy = ZCAST_POLICY_FULL;
		o.queue_depth = (uint32_t)p->depth;
		topic_name(topic, sizeof topic, t);
		int id;
		if ((r = zcast_sub_open(topic, &o, &subs[t])) ||
		    (r = zcast_waitset_add_sub(ws, subs[t], (void *)(intptr_t)t, &id))) {
			zb_fail(ctl, idx, "zcast_sub_open/waitset_add_sub(%s) (topic %d of %d, %d fds open): %s: %s",
			        topic, t, T, count_fds(), zcast_strerror(r), zcast_last_error());
			return 1;
		}
	}
	const char *genv = getenv("ZB_WS_GUARD");
	zcast_guard *guard = NULL;
	int gid;
	if (genv && genv[0] == '1' &&
	    ((r = zcast_guard_create(&guard)) || (r = zcast_waitset_add_guard(ws, guard, NULL, &gid)))) {
		zb_fail(ctl, idx, "guard: %s: %s", zcast_strerror(r), zcast_last_error());
		return 1;
	}
	if (idx == 1)
		fprintf(stderr, "waitset T=%d: subscriber process holds %d fds\n", T, count_fds());
	if (zb_start(b, idx, NULL, 0))
		return 1;
	zb_child_res *res = &ctl->res[idx];
	int64_t f0 = zb_minflt(), deadline = zb_deadline(b), c0 = 0, w0 = 0;
	int stops = 0, measuring = 0;
	zcast_ws_event ev[WS_MAX_EVENTS];
	while (stops < T) {
		int n = zcast_waitset_wait(ws, left(deadline), ev, WS_MAX_EVENTS);
		if (n == ZCAST_ETIMEDOUT || n == 0) {
			if (zb_now() > deadline) {
				zb_fail(ctl, idx, "waitset_wait timed out after %lld messages, %d stops",
				        (long long)res->received, stops);
				return 1;
			}
			continue;
		}
		if (n < 0) {
			zb_fail(ctl, idx, "zcast_waitset_wait: %s: %s", zcast_strerror(n), zcast_last_error());
			return 1;
		}
		for (int e = 0; e < n; e++) {
			if (ev[e].kind != ZCAST_WS_SUB)
				continue;
			zcast_sub *s = subs[(intptr_t)ev[e].user];
			zcast_msg *m;
			for (;;) {
				int64_t ta = zb_now();
				r = zcast_take(s, &m);
				int64_t t = zb_now(); /* the subscriber has the message */
				if (r)
					break;
				zb_hdr h;
				zb_sink += zb_consume(zcast_msg_data(m), b->size, &h, b->mode);
				zcast_msg_drop(m);
				if (h.flags & ZB_FLAG_STOP) {
					stops++;
					continue;
				}
				res->received++;
				if ((long)h.seq >= b->warmup) {
					if (!measuring) {
						measuring = 1;
						f0 = zb_minflt();
						c0 = zb_cpu_ns();
						w0 = ta;
					}
					zb_sample x = {(int64_t)h.seq - b->warmup, idx - 1, h.stamp, t, t - h.stamp};
					zb_ctl_add(ctl, &x);
					zb_sample y = {(int64_t)h.seq - b->warmup, -2 - (idx - 1), ta, t, t - ta};
					zb_ctl_add(ctl, &y);
				}
			}
			if (r != ZCAST_EAGAIN) {
				zb_fail(ctl, idx, "zcast_take: %s: %s", zcast_strerror(r), zcast_last_error());
				return 1;
			}
		}
		deadline = zb_deadline(b);
	}
	res->minflt = zb_minflt() - f0;
	if (w0) {
		res->cpu_ns = zb_cpu_ns() - c0;
		res->wall_ns = zb_now() - w0;
	}
	zcast_waitset_destroy(ws);
	zcast_guard_destroy(guard);
	for (int t = 0; t < T; t++)
		zcast_sub_close(subs[t]);
	free(subs);
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

/* The floor's subscriber: sleeps on the one word, then handles every message published since. */
static int floor_subscriber(zb_bench *b, int idx)
{
	zb_ctl *ctl = b->ctl;
	struct floor_shm *f = floor_shm;
	if (zb_start(b, idx, NULL, 0))
		return 1;
	zb_child_res *res = &ctl->res[idx];
	int64_t deadline = zb_deadline(b), c0 = 0, w0 = 0;
	long seen = -1;
	int stops = 0;
	while (stops < b->topics) {
		uint32_t v = atomic_load(&f->word);
		atomic_fetch_add(&f->waiters, 1);
		if (atomic_load(&f->last) == seen) {
			struct timespec ts = {0, 100000000};
			syscall(SYS_futex, &f->word, FUTEX_WAIT, v, &ts, NULL, 0);
		}
		atomic_fetch_sub(&f->waiters, 1);
		if (zb_now() > deadline) {
			zb_fail(ctl, idx, "floor: no message for too long after %ld", seen);
			return 1;
		}
		for (long last = atomic_load(&f->last); seen < last;) {
			seen++;
			int64_t ta = zb_now();
			int64_t stamp = atomic_load(&f->msg[seen % FLOOR_RING].stamp);
			uint32_t flags = atomic_load(&f->msg[seen % FLOOR_RING].flags);
			int64_t t = zb_now();
			deadline = zb_deadline(b);
			if (flags & ZB_FLAG_STOP) {
				stops++;
				continue;
			}
			res->received++;
			if (seen >= b->warmup) {
				if (!w0) {
					c0 = zb_cpu_ns();
					w0 = ta;
				}
				zb_sample x = {seen - b->warmup, idx - 1, stamp, t, t - stamp};
				zb_ctl_add(ctl, &x);
				zb_sample y = {seen - b->warmup, -2 - (idx - 1), ta, t, t - ta};
				zb_ctl_add(ctl, &y);
			}
		}
	}
	if (w0) {
		res->cpu_ns = zb_cpu_ns() - c0;
		res->wall_ns = zb_now() - w0;
	}
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	if (idx == 0)
		return publisher(b, idx);
	return floor_shm ? floor_subscriber(b, idx) : subscriber(b, idx);
}

static void finish(zb_bench *b)
{
	b->published = b->ctl->res[0].published - b->warmup;
	b->received = 0;
	for (int i = 1; i <= WS_SUBS; i++)
		b->received += b->ctl->res[i].received - b->warmup;
	b->messages = b->published;
	/* achieved publish rate over the publisher's measured phase (vs the requested --rate) */
	if (b->ctl->res[0].wall_ns > 0)
		b->msgs_per_s = (double)b->published * 1e9 / (double)b->ctl->res[0].wall_ns;
	char topic[32];
	if (floor_shm) {
		munmap(floor_shm, sizeof *floor_shm);
		floor_shm = NULL;
		return;
	}
	for (int t = 0; t < b->topics; t++) { /* usually gone already (not retained) */
		topic_name(topic, sizeof topic, t);
		zcast_topic_remove(b->ch[0].run_id, topic);
	}
}

const zb_case zb_case_waitset = {"waitset", setup, child, finish};
