/* A plain Cyclone DDS program (its C types made by idlc from ros_image.idl) for the bridge's
 * interop test: publishes or receives the same patterned Image (pattern.h) on DDS topic rt/<name>.
 *   cyc_peer pub <rt/topic> <bytes> <count>   (waits for a reader, reliable, volatile)
 *   cyc_peer sub <rt/topic> <count> [timeout s] [dups-ok]
 * sub exits 0 when it got every one of 1..count intact, in order and once (with dups-ok: a message
 * received again is counted, not an error; "unique" counts the distinct ones). It also prints
 * the oldest source timestamp and counts those later than the wall clock at reception ("ts_bad"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "ros_image.h"
#include "pattern.h"

static dds_entity_t endpoint(int writer, const char *name, dds_entity_t *pp)
{
	const char *dom = getenv("ZB_DDS_DOMAIN"); /* default: the config's, or 0 */
	*pp = dds_create_participant(dom ? (dds_domainid_t)atoi(dom) : DDS_DOMAIN_DEFAULT, NULL,
				     NULL);
	dds_entity_t tp =
	    dds_create_topic(*pp, &sensor_msgs_msg_dds__Image__desc, name, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t e =
	    writer ? dds_create_writer(*pp, tp, q, NULL) : dds_create_reader(*pp, tp, q, NULL);
	dds_delete_qos(q);
	if (*pp < 0 || tp < 0 || e < 0) {
		fprintf(stderr, "cyc_peer: DDS setup failed: %s\n", dds_strretcode(e));
		exit(1);
	}
	return e;
}

static int pub(const char *name, uint32_t bytes, uint32_t count)
{
	dds_entity_t pp, w = endpoint(1, name, &pp);
	uint32_t n = bytes - ZBP_OVERHEAD;
	uint8_t *data = malloc(n ? n : 1);
	uint32_t matched = 0;
	while (!matched) { /* the bridge's reader */
		dds_publication_matched_status_t st;
		dds_get_publication_matched_status(w, &st);
		matched = st.current_count;
		dds_sleepfor(DDS_MSECS(10));
	}
	for (uint32_t seq = 1; seq <= count; seq++) {
		sensor_msgs_msg_dds__Image_ m;
		memset(&m, 0, sizeof m);
		m.header.stamp.sec = (int32_t)seq;
		m.header.frame_id = ZBP_FRAME;
		m.height = 1, m.width = n, m.step = n;
		m.encoding = ZBP_ENCODING;
		zbp_fill(data, n, seq);
		m.data._buffer = data;
		m.data._length = m.data._maximum = n;
		if (dds_write(w, &m) < 0)
			return fprintf(stderr, "cyc_peer: write failed\n"), 1;
	}
	printf("published %u\n", count);
	fflush(stdout);
	dds_sleepfor(DDS_MSECS(500)); /* let reliable delivery finish before the writer goes */
	dds_delete(pp);
	free(data);
	return 0;
}

static int sub(const char *name, uint32_t count, int timeout_s, int dups_ok)
{
	dds_entity_t pp, r = endpoint(0, name, &pp);
	printf("subscribed\n");
	fflush(stdout);
	struct zbp_tally t = {0};
	uint8_t *seen = calloc(count + 1, 1);
	uint32_t unique = 0;
	uint64_t ts_bad = 0;
	dds_time_t min_ts = INT64_MAX;
	dds_time_t deadline = dds_time() + DDS_SECS(timeout_s);
	while (unique < count && dds_time() < deadline) {
		void *s[1] = {NULL};
		dds_sample_info_t si;
		int k = dds_take(r, s, &si, 1, 1);
		if (k <= 0) {
			dds_sleepfor(DDS_MSECS(5));
			continue;
		}
		if (si.valid_data) {
			const sensor_msgs_msg_dds__Image_ *m = s[0];
			uint32_t seq = (uint32_t)m->header.stamp.sec;
			if (seq >= 1 && seq <= count && !seen[seq]++)
				unique++;
			if (si.source_timestamp > dds_time())
				ts_bad++;
			if (si.source_timestamp < min_ts)
				min_ts = si.source_timestamp;
			zbp_count(&t, seq,
				  strcmp(m->header.frame_id, ZBP_FRAME) == 0 &&
				      m->width == m->data._length &&
				      zbp_check(m->data._buffer, m->data._length, seq));
		}
		dds_return_loan(r, s, k);
	}
	printf("received %llu unique %u first %u last %u bad %llu dup %llu ts_bad %llu min_ts %lld\n",
	       (unsigned long long)t.received, unique, t.first, t.last, (unsigned long long)t.bad,
	       (unsigned long long)t.dup_or_reordered, (unsigned long long)ts_bad,
	       (long long)min_ts);
	dds_delete(pp);
	free(seen);
	return unique == count && t.first == 1 && !t.bad && !ts_bad &&
		       (dups_ok || !t.dup_or_reordered)
		   ? 0
		   : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "pub") == 0)
		return pub(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
			   (uint32_t)strtoul(argv[4], NULL, 0));
	if (argc >= 4 && strcmp(argv[1], "sub") == 0)
		return sub(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
			   argc > 4 ? atoi(argv[4]) : 20, argc > 5 && !strcmp(argv[5], "dups-ok"));
	fprintf(stderr,
		"usage: cyc_peer pub <rt/topic> <bytes> <count> | sub <rt/topic> <count>\n");
	return 2;
}
