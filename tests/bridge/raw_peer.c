/* A DDS writer of raw CDR bytes (the bridge's opaque type, bridge/sertype.c) for the bridge's
 * leniency test: sends the patterned sensor_msgs/Image of pattern.h as other DDS writers may:
 * odd sequence numbers in big-endian XCDR1, even ones little endian padded to a multiple of 4
 * with the padding not announced in the options (as rmw_cyclonedds writes).
 *   raw_peer <rt/topic> <data bytes> <count> [invalid]   (waits for a reader; reliable, volatile)
 * invalid: every sample's data count is more than its bytes (malformed, to be dropped), and then
 * one valid sample, seq <count> + 1: whoever gets it knows the reader went past the invalid ones.
 * Exits once every reader acknowledged every sample (deleting the writer earlier may lose them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>

#include "internal.h"
#include "pattern.h"

struct enc {
	uint8_t *b;
	size_t n;
	int be;
};

static void put(struct enc *e, uint64_t v, size_t k)
{
	while ((e->n - 4) % k)
		e->b[e->n++] = 0;
	for (size_t i = 0; i < k; i++)
		e->b[e->n + i] = (uint8_t)(v >> (8 * (e->be ? k - 1 - i : i)));
	e->n += k;
}

static void put_str(struct enc *e, const char *s)
{
	put(e, strlen(s) + 1, 4);
	memcpy(e->b + e->n, s, strlen(s) + 1);
	e->n += strlen(s) + 1;
}

/* The sample of seq: its CDR bytes, header included, padded to 4 (options 0). */
static size_t image(uint8_t *b, uint32_t seq, uint32_t n, int invalid)
{
	struct enc e = {b, 4, seq % 2};
	memset(b, 0, 4);
	b[1] = e.be ? 0 : 1;
	put(&e, seq, 4);
	put(&e, 0, 4);
	put_str(&e, ZBP_FRAME);
	put(&e, 1, 4);
	put(&e, n, 4);
	put_str(&e, ZBP_ENCODING);
	put(&e, 0, 1);
	put(&e, n, 4);
	put(&e, n + (invalid ? 8 : 0), 4);
	zbp_fill(e.b + e.n, n, seq);
	e.n += n;
	while (e.n % 4)
		e.b[e.n++] = 0;
	return e.n;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5)
		return fprintf(stderr, "usage: raw_peer <rt/topic> <data bytes> <count> [invalid]\n"), 2;
	int invalid = argc == 5 && strcmp(argv[4], "invalid") == 0;
	uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0), count = (uint32_t)strtoul(argv[3], NULL, 0);
	dds_entity_t pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	struct ddsi_sertype *st = zb_sertype_new("sensor_msgs::msg::dds_::Image_");
	dds_entity_t tp = dds_create_topic_sertype(pp, argv[1], &st, NULL, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (pp < 0 || tp < 0 || w < 0)
		return fprintf(stderr, "raw_peer: DDS setup failed\n"), 1;
	for (uint32_t matched = 0; !matched; dds_sleepfor(DDS_MSECS(10))) {
		dds_publication_matched_status_t m;
		dds_get_publication_matched_status(w, &m);
		matched = m.current_count;
	}
	uint8_t *b = malloc(n + 64);
	for (uint32_t seq = 1; seq <= count + (invalid ? 1 : 0); seq++) {
		size_t len = image(b, seq, n, invalid && seq <= count);
		struct ddsi_serdata *sd = zb_serdata_new(st, b, len);
		if (!sd || dds_writecdr(w, sd) < 0)
			return fprintf(stderr, "raw_peer: write failed\n"), 1;
	}
	printf("published %u\n", count);
	fflush(stdout);
	dds_return_t acked = dds_wait_for_acks(w, DDS_SECS(30));
	dds_delete(pp);
	free(b);
	if (acked != DDS_RETCODE_OK)
		return fprintf(stderr, "raw_peer: not acknowledged: %s\n", dds_strretcode(acked)), 1;
	return 0;
}
