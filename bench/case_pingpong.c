/* Acked latency: child 0 sends "ping", child 1 answers with "pong" of the same size and mode;
 * one sample = RTT/2, measured by child 0 (rows sub = pair k). Also the direct one-way latency,
 * send stamp -> receive returned, of both directions (rows sub = -1 - k): the pong's by child 0,
 * the ping's by child 1, which keeps them in a local buffer until the end so that recording costs
 * nothing on the measured path. Used for ack_64B_* and payload_<size>_<mode>.
 * With pairs = T > 1 (topics_T<n>): T independent ping-pong pairs (children 2k, 2k+1 on topics
 * ping<k>/pong<k>) run at the same time; samples are pooled, column `sub` = pair. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int setup(zb_bench *b)
{
	for (int k = 0; k < b->pairs; k++) {
		char n[16];
		snprintf(n, sizeof n, "ping%d", k);
		zb_chan_init(&b->ch[2 * k], n, b, 1, 4);
		snprintf(n, sizeof n, "pong%d", k);
		zb_chan_init(&b->ch[2 * k + 1], n, b, 1, 4);
	}
	b->nch = 2 * b->pairs;
	b->rows_per_msg = 3; /* RTT/2, one-way ping, one-way pong */
	return 2 * b->pairs;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	zb_ctl *ctl = b->ctl;
	int k = idx / 2, initiator = idx % 2 == 0;
	zb_chan *tx = zb_open(b, idx, 2 * k + !initiator, -1);
	zb_chan *rx = zb_open(b, idx, 2 * k + initiator, 0);
	zb_chan *eps[2] = {tx, rx};
	if (!tx || !rx || zb_start(b, idx, eps, 2))
		return 1;
	const zb_system *s = b->sys;
	zb_child_res *res = &ctl->res[idx];
	int64_t f0 = zb_minflt(); /* reset when the measured phase starts */
	zb_hdr h, in;
	if (initiator) {
		int64_t t_end = 0;
		long total = b->warmup + b->samples;
		for (long i = 0; i < total; i++) {
			if (i == b->warmup) {
				t_end = zb_now() + (int64_t)(b->cap_s * 1e9);
				f0 = zb_minflt();
			}
			int64_t t0 = zb_now();
			h = (zb_hdr){.seq = (uint64_t)i, .stamp = t0, .size = (uint32_t)b->size};
			if (s->send(tx, &h, b->size, b->mode, zb_deadline(b)) ||
			    s->recv(rx, &in, b->size, b->mode, zb_deadline(b))) {
				zb_fail(ctl, idx, "%s: ping-pong %ld failed", s->name, i);
				return 1;
			}
			int64_t t1 = zb_now();
			res->published++;
			res->received++;
			if (in.seq != (uint64_t)i) {
				zb_fail(ctl, idx, "pong seq %llu, expected %ld", (unsigned long long)in.seq, i);
				return 1;
			}
			if (i >= b->warmup) {
				zb_sample x = {i - b->warmup, k, t0, t1, (t1 - t0) / 2};
				zb_ctl_add(ctl, &x);
				zb_sample y = {i - b->warmup, -1 - k, in.stamp, t1, t1 - in.stamp};
				zb_ctl_add(ctl, &y);
				if (t1 > t_end)
					break;
			}
		}
		h = (zb_hdr){.flags = ZB_FLAG_STOP, .stamp = zb_now()};
		s->send(tx, &h, b->size, ZB_TRANSPORT, zb_deadline(b));
	} else {
		zb_sample *own = malloc((size_t)b->samples * sizeof *own);
		if (own)
			memset(own, 0xff, (size_t)b->samples * sizeof *own); /* no page faults while measuring
			                                                      * (not 0: gcc would make it calloc) */
		long nown = 0;
		for (;;) {
			if (s->recv(rx, &in, b->size, b->mode, zb_deadline(b))) {
				zb_fail(ctl, idx, "%s: echo receive failed", s->name);
				free(own);
				return 1;
			}
			int64_t t = zb_now(); /* receive returned = the pong's send stamp */
			if (in.flags & ZB_FLAG_STOP)
				break;
			if (in.seq == (uint64_t)b->warmup)
				f0 = zb_minflt();
			res->received++;
			h = (zb_hdr){.seq = in.seq, .stamp = t, .size = (uint32_t)b->size};
			if (s->send(tx, &h, b->size, b->mode, zb_deadline(b))) {
				zb_fail(ctl, idx, "%s: echo send failed", s->name);
				free(own);
				return 1;
			}
			res->published++;
			if (own && in.seq >= (uint64_t)b->warmup && nown < b->samples)
				own[nown++] = (zb_sample){(int64_t)in.seq - b->warmup, -1 - k, in.stamp, t, t - in.stamp};
		}
		for (long i = 0; i < nown; i++)
			zb_ctl_add(ctl, &own[i]);
		free(own);
	}
	res->minflt = zb_minflt() - f0;
	zb_close_in_turn(b, idx, eps, 2);
	return 0;
}

static void finish(zb_bench *b)
{
	b->published = b->received = 0;
	for (int k = 0; k < b->pairs; k++) {
		b->published += b->ctl->res[2 * k].published;
		b->received += b->ctl->res[2 * k].received;
	}
	b->messages = 2 * (b->published - b->warmup * b->pairs); /* measured pings + pongs */
}

const zb_case zb_case_pingpong = {"pingpong", setup, child, finish};
