/* Overload (LibXR's bench_overload): child 0 publishes as fast as it can while child 1 consumes
 * slowly (sleeps sleep_ns and/or busy-works work_ns after each message), until child 1 received
 * `samples` messages (or cap_s passed).
 * FULL policy: the publisher is throttled to the consumer (no loss). DROP_OLD: the publisher
 * never waits, the consumer gets the freshest data, published - received were dropped.
 * full_fail (LibXR's FULL queue): FULL without waiting: an attempt that finds the queue full fails
 * at once (try_send), its message is discarded and counted as failed; the publisher tries again.
 * One sample per received message = receive time - send stamp (the age of the data).
 * Page faults count from each side's first message on: the first take maps the publisher's pool
 * (prefaulted, MAP_POPULATE), a one-time cost that would otherwise be spread over 256 messages. */
#include <time.h>

#include "bench.h"

#define DEPTH 16

static int setup(zb_bench *b)
{
	zb_chan_init(&b->ch[0], "load", b, 1, b->depth > 0 ? b->depth : DEPTH);
	b->ch[0].drop_old = b->drop_old;
	b->ch[0].fail_full = b->fail_full;
	b->nch = 1;
	if (b->fail_full && b->sys && !b->sys->try_send)
		b->skip = "no fail-on-full publish: this system's publisher can only wait for room or drop the "
		          "oldest (transport.h try_send is NULL)";
	return 2;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	zb_ctl *ctl = b->ctl;
	const zb_system *s = b->sys;
	zb_chan *c = zb_open(b, idx, 0, idx == 0 ? -1 : 0);
	if (!c || zb_start(b, idx, &c, 1))
		return 1;
	zb_child_res *res = &ctl->res[idx];
	int64_t f0 = zb_minflt();
	zb_hdr h;
	if (idx == 0) {
		int64_t t_end = zb_now() + (int64_t)(b->cap_s * 1e9);
		res->t_first = zb_now();
		for (uint64_t i = 0;; i++) {
			int64_t t0 = zb_now();
			if (t0 > t_end || *(volatile int64_t *)&ctl->res[1].received >= b->samples)
				break;
			/* seq numbers the published messages (attempts that failed take none) */
			h = (zb_hdr){.seq = (uint64_t)res->published, .stamp = t0, .size = (uint32_t)b->size};
			int r = b->fail_full ? s->try_send(c, &h, b->size, b->mode)
			                     : s->send(c, &h, b->size, b->mode, zb_deadline(b));
			if (r < 0 || (r && !b->fail_full)) {
				zb_fail(ctl, idx, "%s: send %llu failed", s->name, (unsigned long long)i);
				return 1;
			}
			if (r)
				res->failed++;
			else if (res->published++ == 0)
				f0 = zb_minflt();
		}
		res->t_last = zb_now();
		if (zb_send_stop(b, c))
			return 1;
	} else {
		for (;;) {
			if (zb_recv_or_fail(b, idx, c, &h))
				return 1;
			int64_t t = zb_now();
			if (h.flags & ZB_FLAG_STOP)
				break;
			zb_sample x = {(int64_t)h.seq, 0, h.stamp, t, t - h.stamp};
			zb_ctl_add(ctl, &x);
			*(volatile int64_t *)&res->received = res->received + 1;
			if (res->received == 1)
				f0 = zb_minflt();
			while (zb_now() - t < b->work_ns)
				; /* the slow consumer's work */
			if (b->sleep_ns) {
				struct timespec ts = {0, (long)b->sleep_ns};
				nanosleep(&ts, NULL);
			}
		}
	}
	res->minflt = zb_minflt() - f0;
	zb_close_in_turn(b, idx, &c, 1);
	return 0;
}

static void finish(zb_bench *b)
{
	zb_child_res *p = &b->ctl->res[0];
	b->published = p->published;
	b->received = b->ctl->res[1].received;
	b->failed = p->failed;
	b->messages = p->published;
	if (p->t_last > p->t_first)
		b->msgs_per_s = (double)b->received * 1e9 / (double)(p->t_last - p->t_first);
}

const zb_case zb_case_overload = {"overload", setup, child, finish};
