/* Fan-out: child 0 publishes at rate_hz to S subscriber processes (children 1..S).
 * Rows with sub = -1: publisher side, lat = duration of the send call (loan+fill+publish).
 * Rows with sub >= 0: lat = receive time - send stamp (E2E of that subscriber; pooled in the
 * summary). Rows with sub = -2 - i: lat = duration of subscriber i's take call (zb_take_ns;
 * none for systems whose blocking read cannot tell the take from the wait). Event-driven only. */
#include "bench.h"

static int setup(zb_bench *b)
{
	zb_chan_init(&b->ch[0], "fan", b, b->subs, 16);
	b->nch = 1;
	b->rows_per_msg = 1 + 2 * b->subs;
	return 1 + b->subs;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	zb_ctl *ctl = b->ctl;
	const zb_system *s = b->sys;
	zb_chan *c = zb_open(b, idx, 0, idx - 1);
	if (!c || zb_start(b, idx, &c, 1))
		return 1;
	zb_child_res *res = &ctl->res[idx];
	int64_t f0 = zb_minflt(); /* reset when the measured phase starts */
	int64_t c0 = zb_cpu_ns(), w0 = zb_now(); /* likewise: CPU and wall time of the measured phase */
	zb_hdr h;
	if (idx == 0) {
		int64_t period = (int64_t)(1e9 / b->rate_hz), t_end = 0;
		struct timespec next;
		clock_gettime(CLOCK_MONOTONIC, &next);
		for (long i = 0; i < b->warmup + b->samples; i++) {
			next.tv_nsec += period;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
			int64_t t0 = zb_now();
			if (i == b->warmup) {
				t_end = t0 + (int64_t)(b->cap_s * 1e9);
				f0 = zb_minflt();
				c0 = zb_cpu_ns();
				w0 = t0;
			}
			else if (i > b->warmup && t0 > t_end)
				break;
			h = (zb_hdr){.seq = (uint64_t)i, .stamp = t0, .size = (uint32_t)b->size};
			if (s->send(c, &h, b->size, b->mode, zb_deadline(b))) {
				zb_fail(ctl, idx, "%s: publish %ld failed", s->name, i);
				return 1;
			}
			int64_t t1 = zb_now();
			res->published++;
			if (i >= b->warmup) {
				zb_sample x = {i - b->warmup, -1, t0, t1, t1 - t0};
				zb_ctl_add(ctl, &x);
			}
		}
		if (zb_send_stop(b, c))
			return 1;
	} else {
		for (;;) {
			if (zb_recv_or_fail(b, idx, c, &h))
				return 1;
			int64_t t = zb_now();
			if (h.flags & ZB_FLAG_STOP)
				break;
			res->received++;
			if ((long)h.seq == b->warmup) {
				f0 = zb_minflt();
				c0 = zb_cpu_ns();
				w0 = t;
			}
			if ((long)h.seq >= b->warmup) {
				zb_sample x = {(int64_t)h.seq - b->warmup, idx - 1, h.stamp, t, t - h.stamp};
				zb_ctl_add(ctl, &x);
				if (zb_take_ns >= 0) {
					zb_sample y = {x.seq, -2 - (idx - 1), t - zb_take_ns, t, zb_take_ns};
					zb_ctl_add(ctl, &y);
				}
			}
		}
	}
	res->minflt = zb_minflt() - f0;
	res->cpu_ns = zb_cpu_ns() - c0;
	res->wall_ns = zb_now() - w0;
	zb_close_in_turn(b, idx, &c, 1);
	return 0;
}

static void finish(zb_bench *b)
{
	b->published = b->ctl->res[0].published - b->warmup;
	b->received = 0;
	for (int i = 1; i <= b->subs; i++)
		b->received += b->ctl->res[i].received - b->warmup;
	b->messages = b->published;
}

const zb_case zb_case_fanout = {"fanout", setup, child, finish};
