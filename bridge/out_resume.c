/* The sending half of exactly once (docs/BRIDGE.md, "Exactly once").
 *
 * Every message an OUT route writes to DDS is first recorded in the topic's claim file: its zcast
 * sequence, its publish time and the source timestamp it is sent with. Timestamps strictly grow
 * with the sequence (each is the publish time on the wall clock, or one more than the previous
 * one's if that is not newer: two publishers' times need not follow their sequence). The ack thread
 * records the newest sequence every matched reader acknowledged. A successor (a standby taking
 * over, a restarted bridge) copies that record once and, for each message it takes:
 *   - not newer than the acknowledged one: skips it (every reader has it);
 *   - up to the newest written: sends it again with the recorded timestamp if the record has it
 *     (same sequence and publish time), else skips it (its predecessor did not send it);
 *   - newer: stamps it after the newest recorded timestamp.
 * So a receiving bridge, which keeps the newest timestamp per source, sees every message with one
 * timestamp, in increasing order, and drops exactly the resends. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int zb_out_resume(struct zb_route_rt *rt)
{
	struct zb_out *o = rt->out;
	struct zb_state *st = rt->claim->state;
	if (!o->resume && !(o->resume = calloc(ZB_RING, sizeof *o->resume)))
		return -1;
	uint64_t acked = ZB_READ_ONCE(st->out_acked), written = ZB_READ_ONCE(st->out_written);
	zcast_topic_stat ts;
	/* sequences restart with a topic made anew: nothing of the record applies */
	if (acked > written ||
	    (zcast_topic_stat_get(zb_zdomain_opt(rt->b->cfg), rt->cfg->topic, &ts) == 0 &&
	     ts.last_sequence < written))
		acked = written = 0;
	for (size_t i = 0; i < ZB_RING; i++) { /* copied once; only the copy is used */
		o->resume[i].seq = ZB_READ_ONCE(st->out[i].seq);
		o->resume[i].time_ns = ZB_READ_ONCE(st->out[i].time_ns);
		o->resume[i].ts = ZB_READ_ONCE(st->out[i].ts);
	}
	const struct zb_out_entry *last = &o->resume[written % ZB_RING];
	o->last_ts = written && last->seq == written ? last->ts : INT64_MIN;
	o->resume_acked = acked;
	o->resume_written = written;
	/* what this route writes counts from here; the predecessor's unacknowledged messages are
	 * acknowledged when this writer's resends are */
	o->written = o->acked = acked;
	/* the wall clock is read anew when nothing is owed (ts stays above last_ts regardless) */
	if (acked == written)
		st->clock_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	o->clock_offset_ns = ZB_READ_ONCE(st->clock_offset_ns);
	return 0;
}

int64_t zb_out_stamp(struct zb_out *o, uint64_t seq, int64_t time_ns, int *resend)
{
	*resend = 0;
	if (seq <= o->resume_acked)
		return 0;
	if (seq <= o->resume_written) {
		const struct zb_out_entry *e = &o->resume[seq % ZB_RING];
		if (e->seq != seq || e->time_ns != time_ns)
			return 0;
		*resend = 1;
		return e->ts;
	}
	int64_t ts = time_ns + o->clock_offset_ns;
	if (o->last_ts != INT64_MIN && ts <= o->last_ts)
		ts = o->last_ts + 1;
	return ts ? ts : 1;
}

/* SYNC: zb_out_resume of a successor reads an entry's seq as written last here (a crash between
 * leaves a mismatching seq: not sent). */
void zb_out_record(struct zb_route_rt *rt, uint64_t seq, int64_t time_ns, int64_t ts)
{
	struct zb_out_entry *e = &rt->claim->state->out[seq % ZB_RING];
	e->seq = 0;
	e->time_ns = time_ns;
	e->ts = ts;
	atomic_thread_fence(memory_order_release);
	e->seq = seq;
	atomic_thread_fence(memory_order_release);
	/* a resend does not take back what the predecessor recorded beyond it */
	if (seq > rt->out->resume_written)
		rt->claim->state->out_written = seq;
	if (ts > rt->out->last_ts)
		rt->out->last_ts = ts;
}

void zb_out_written(struct zb_route_rt *rt, uint64_t seq)
{
	struct zb_out *o = rt->out;
	pthread_mutex_lock(o->mu);
	o->written = seq;
	pthread_cond_broadcast(o->cv);
	pthread_mutex_unlock(o->mu);
}

int zb_out_window(struct zb_route_rt *rt, uint64_t seq)
{
	struct zb_out *o = rt->out;
	pthread_mutex_lock(o->mu);
	/* an entry is reused only once its message was acknowledged */
	while (o->written > o->acked && seq - o->acked >= ZB_RING && !atomic_load(&rt->b->stop)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000)
			ts.tv_sec++, ts.tv_nsec -= 1000000000;
		pthread_cond_timedwait(o->cv, o->mu, &ts);
	}
	pthread_mutex_unlock(o->mu);
	return atomic_load(&rt->b->stop) ? -1 : 0;
}
