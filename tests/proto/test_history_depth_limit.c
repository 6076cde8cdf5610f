/* Issue 10, finding 8: a history depth that leaves a publisher no slot to loan wedges it, so it is
 * refused at zcast_pub_open (ZCAST_EINVAL or ZCAST_ELIMIT, the message naming both numbers):
 *  - history_depth >= slot_count of the publisher itself;
 *  - a second publisher whose history depth would raise the topic's depth above the first
 *    publisher's slot_count - 1 (that depth applies to every publisher's pool).
 * A depth that leaves every pool one slot (slot_count - 1) is accepted and works. */
#include "zt_hostile.h"

static int open_pub(const char *topic, uint32_t slots, uint32_t hist, zcast_pub **p)
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = 64;
	o.slot_count = slots;
	o.history_depth = hist;
	*p = NULL;
	return zcast_pub_open(topic, &o, p);
}

static void expect_refused(const char *topic, uint32_t slots, uint32_t hist, const char *n1,
			   const char *n2)
{
	zcast_pub *p;
	int r = open_pub(topic, slots, hist, &p);
	printf("slot_count %u, history_depth %u: %d (%s)\n", slots, hist, r, zcast_last_error());
	if (r == 0) {
		fprintf(stderr, "FAIL: history depth %u accepted with %s slots\n", hist, n2);
		zcast_pub_close(p);
		zt_fail();
	}
	CHECK(r == ZCAST_EINVAL || r == ZCAST_ELIMIT);
	CHECK_MSG_HAS(zcast_last_error(), n1);
	CHECK_MSG_HAS(zcast_last_error(), n2);
}

static void own_pool(void)
{
	expect_refused("/hdl/own", 5, 7, "7", "5");
	expect_refused("/hdl/own", 6, 6, "6", "6");
	zcast_pub *p;
	CHECK_EQ(open_pub("/hdl/own", 6, 5, &p), 0); /* one slot left to loan */
	for (uint64_t i = 1; i <= 20; i++)
		zt_publish(p, i, 64);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void raised_by_another(void)
{
	zcast_pub *a;
	CHECK_EQ(open_pub("/hdl/two", 4, 1, &a), 0);
	expect_refused("/hdl/two", 32, 9, "9", "4"); /* would leave a's 4 slots none to loan */
	zcast_pub *b;
	CHECK_EQ(open_pub("/hdl/two", 32, 3, &b), 0); /* a keeps one slot */
	for (uint64_t i = 1; i <= 20; i++) {
		zt_publish(a, i, 64);
		zt_publish(b, i, 64);
	}
	CHECK_EQ(zcast_pub_close(b), 0);
	CHECK_EQ(zcast_pub_close(a), 0);
}

int main(void)
{
	zt_setup("histlimit", 60);
	static const struct zt_case cases[] = {ZT_CASE(own_pool), ZT_CASE(raised_by_another)};
	return zt_run_cases(cases, 2, 20);
}
