/* Continuous: child 0 publishes as fast as the channel accepts (backpressure, no loss), child 1
 * receives; one sample per message = receive time - send stamp. Throughput = measured messages /
 * (last receive - first measured send stamp). Both children also report the CPU time of their
 * measured phase (cpu_s): CPU per message does not depend on what else runs on the machine the way
 * throughput does. */
#include "bench.h"

#define DEPTH 64

static int setup(zb_bench *b)
{
	zb_chan_init(&b->ch[0], "data", b, 1, DEPTH);
	b->nch = 1;
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
	int64_t f0 = zb_minflt(); /* reset when the measured phase starts */
	int64_t c0 = 0, w0 = 0;
	zb_hdr h;
	if (idx == 0) {
		int64_t t_end = 0;
		for (long i = 0; i < b->warmup + b->samples; i++) {
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
				zb_fail(ctl, idx, "%s: send %ld failed", s->name, i);
				return 1;
			}
			res->published++;
		}
		res->cpu_ns = zb_cpu_ns() - c0;
		res->wall_ns = zb_now() - w0;
		if (zb_send_stop(b, c))
			return 1;
	} else {
		uint64_t expect = 0;
		for (;;) {
			if (zb_recv_or_fail(b, idx, c, &h))
				return 1;
			int64_t t = zb_now();
			if (h.flags & ZB_FLAG_STOP) {
				res->cpu_ns = zb_cpu_ns() - c0;
				res->wall_ns = t - w0;
				break;
			}
			if (h.seq != expect++) {
				zb_fail(ctl, idx, "seq %llu, expected %llu", (unsigned long long)h.seq,
				        (unsigned long long)expect - 1);
				return 1;
			}
			if ((long)h.seq < b->warmup)
				continue;
			if ((long)h.seq == b->warmup) {
				res->t_first = h.stamp;
				f0 = zb_minflt();
				c0 = zb_cpu_ns();
				w0 = t;
			}
			res->t_last = t;
			res->received++;
			zb_sample x = {(int64_t)h.seq - b->warmup, 0, h.stamp, t, t - h.stamp};
			zb_ctl_add(ctl, &x);
		}
	}
	res->minflt = zb_minflt() - f0;
	zb_close_in_turn(b, idx, &c, 1);
	return 0;
}

static void finish(zb_bench *b)
{
	zb_child_res *r = &b->ctl->res[1];
	b->published = b->ctl->res[0].published - b->warmup;
	b->received = r->received;
	b->messages = b->published;
	if (r->t_last > r->t_first)
		b->msgs_per_s = (double)r->received * 1e9 / (double)(r->t_last - r->t_first);
}

const zb_case zb_case_continuous = {"continuous", setup, child, finish};
