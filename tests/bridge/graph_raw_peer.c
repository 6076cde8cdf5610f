/* A raw reader of ros_discovery_info (the bridge's opaque type, bridge/sertype.c) that checks the
 * layout of every ParticipantEntitiesInfo sample a bridge writes, for graph_race_audit_test.sh:
 *   graph_raw_peer <readers> <writers> <timeout s>
 * A sample must be: GID (16), one node (namespace, name), a reader count and that many GIDs, a
 * writer count and that many GIDs, and nothing after (but the padding the options announce). Prints
 * "ready", then at the end "good G bad B"; exits 0 once a sample lists <readers> and <writers> and
 * none was malformed, 1 otherwise (or after the timeout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"

struct in {
	const unsigned char *d; /* the CDR origin */
	size_t n, p;
};

static int u32(struct in *s, uint32_t *v)
{
	s->p = (s->p + 3) & ~(size_t)3;
	if (s->p > s->n || s->n - s->p < 4)
		return -1;
	memcpy(v, s->d + s->p, 4);
	s->p += 4;
	return 0;
}

static int skip(struct in *s, size_t k)
{
	if (s->p > s->n || s->n - s->p < k)
		return -1;
	s->p += k;
	return 0;
}

static int str(struct in *s)
{
	uint32_t l;
	return u32(s, &l) < 0 ? -1 : skip(s, l);
}

/* 0: well formed (*nr, *nw: its counts) */
static int check(const unsigned char *b, size_t size, uint32_t *nr, uint32_t *nw)
{
	if (size < 4 || size - 4 < (b[3] & 3u))
		return -1;
	struct in s = {b + 4, size - 4 - (b[3] & 3u), 0};
	uint32_t nodes;
	if (skip(&s, 16) || u32(&s, &nodes) || nodes != 1 || str(&s) || str(&s) || u32(&s, nr) ||
	    skip(&s, 16 * (size_t)*nr) || u32(&s, nw) || skip(&s, 16 * (size_t)*nw))
		return -1;
	return s.p == s.n ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	uint32_t want_r = (uint32_t)atoi(argv[1]), want_w = (uint32_t)atoi(argv[2]);
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	struct ddsi_sertype *st =
	    zb_sertype_new("rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_");
	dds_entity_t tp = dds_create_topic_sertype(pp, "ros_discovery_info", &st, NULL, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (rd < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	long good = 0, bad = 0;
	int done = 0;
	dds_time_t end = dds_time() + DDS_SECS(atoi(argv[3]));
	while (!done && dds_time() < end) {
		struct ddsi_serdata *sd = NULL;
		dds_sample_info_t si;
		if (dds_takecdr(rd, &sd, 1, &si, DDS_ANY_STATE) <= 0) {
			dds_sleepfor(DDS_MSECS(2));
			continue;
		}
		if (si.valid_data) {
			size_t n;
			const unsigned char *b = zb_serdata_bytes(sd, &n);
			uint32_t nr = 0, nw = 0;
			if (check(b, n, &nr, &nw) < 0)
				bad++;
			else
				good++, done = nr == want_r && nw == want_w;
		}
		ddsi_serdata_unref(sd);
	}
	printf("good %ld bad %ld%s\n", good, bad, done ? "" : " (the full list never came)");
	dds_delete(pp);
	return done && !bad ? 0 : 1;
}
