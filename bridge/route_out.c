/* A route from a local zcast topic to DDS: take a typed message, hand its CDR bytes (header
 * included) to dds_forwardcdr with a source timestamp derived from the message (sources.c). */
#include <stdio.h>
#include <stdlib.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

/* Opens the route's subscriber: FULL or DROP_OLD as the QoS says, with the history if any. */
static int open_sub(struct zb_route_rt *rt)
{
	const zcast_bridge_route *r = rt->cfg;
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = zb_zdomain_opt(rt->b->cfg);
	zcast_typed_sub_opts(&o, r->type);
	o.policy = r->reliable ? ZCAST_POLICY_FULL : ZCAST_POLICY_DROP_OLD;
	/* The queue holds the history at join (a subscriber cannot ask for more than its depth). */
	o.queue_depth = r->depth > r->history ? r->depth : r->history;
	o.history = r->history;
	int e = zcast_sub_open(r->topic, &o, &rt->sub);
	if (e < 0)
		fprintf(stderr, "zcast-bridge: out %s: %s\n", r->topic, zcast_last_error());
	return e;
}

/* Newest sequence every reader acknowledged under an earlier holder of the claim: what follows is
 * sent again (receiving bridges drop what they had, sources.c). 0 if the topic was made anew since
 * (sequences restart with the topic). Read once: the state file is shared memory. */
static uint64_t resume_point(struct zb_route_rt *rt)
{
	uint64_t last = ZB_READ_ONCE(rt->claim->state->out_acked_seq);
	zcast_topic_stat st;
	const char *d = zb_zdomain_opt(rt->b->cfg);
	if (zcast_topic_stat_get(d, rt->cfg->topic, &st) < 0 || st.last_sequence < last)
		return 0;
	return last;
}

static void forward(struct zb_route_rt *rt, zcast_msg *m, uint64_t *last)
{
	zcast_msg_info info;
	if (zcast_msg_info_get(m, &info) < 0) {
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	/* loop avoidance: what our own IN route published came from DDS */
	if ((rt->sibling && info.publisher_id == atomic_load(&rt->sibling->pub_id)) ||
	    info.sequence <= *last) {
		atomic_fetch_add(&rt->skipped, 1);
		return;
	}
	size_t n = zcast_msg_size(m);
	const uint8_t *d = zcast_msg_data(m);
	struct ddsi_serdata *sd = NULL;
	if (d && n >= ZCAST_TYPED_PREFIX)
		sd = zb_serdata_new(rt->sertype, d + ZCAST_TYPED_HEADER_OFFSET,
				    n - ZCAST_TYPED_HEADER_OFFSET);
	/* dds_forwardcdr keeps our source timestamp (sources.c) and, like dds_writecdr, consumes
	 * one reference on every path; ours keeps the sample for a retry when a reliable writer had
	 * no room for a second (the bound lets a stop end the wait) */
	int rc = DDS_RETCODE_ERROR;
	if (sd) {
		sd->statusinfo = 0;
		sd->timestamp.v = zb_source_ts(info.publish_time_ns);
		do
			rc = dds_forwardcdr(rt->endpoint, ddsi_serdata_ref(sd));
		while (rc == DDS_RETCODE_TIMEOUT && !atomic_load(&rt->b->stop));
		ddsi_serdata_unref(sd);
	}
	if (rc < 0) {
		atomic_fetch_add(&rt->dropped, 1);
		return;
	}
	*last = info.sequence;
	atomic_fetch_add(&rt->forwarded, 1);
}

void *zb_route_out(void *arg)
{
	struct zb_route_rt *rt = arg;
	if (zb_route_claim(rt) < 0)
		return NULL;
	if (zb_route_dds_open(rt, NULL) < 0 || open_sub(rt) < 0) {
		atomic_store(&rt->state, ZCAST_BRIDGE_FAILED);
		return NULL;
	}
	uint64_t last = resume_point(rt), acked = last;
	unsigned since = 0;
	atomic_store(&rt->state, ZCAST_BRIDGE_ACTIVE);
	while (!atomic_load(&rt->b->stop)) {
		zcast_msg *m;
		int e = zcast_take(rt->sub, &m);
		/* What every reader acknowledged is recorded when idle or every 64 messages, off
		 * the per-message path; while some is not, idle waits are short so it is soon */
		if ((e == ZCAST_EAGAIN || ++since >= 64) && acked < last) {
			since = 0;
			if (dds_wait_for_acks(rt->endpoint, 0) ==
			    DDS_RETCODE_OK) /* a check, no wait */
				rt->claim->state->out_acked_seq = acked = last;
		}
		if (e == ZCAST_EAGAIN) {
			zcast_wait(rt->sub, (acked < last ? 5 : 100) * 1000 * 1000);
			continue;
		}
		if (e < 0) {
			fprintf(stderr, "zcast-bridge: out %s: take: %s\n", rt->cfg->topic,
				zcast_last_error());
			zcast_wait(rt->sub, 100 * 1000 * 1000);
			continue;
		}
		forward(rt, m, &last);
		zcast_msg_drop(m);
	}
	return NULL;
}
