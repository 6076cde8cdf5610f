/* Issue 22, item 1 (executor): a take that fails in an executor's turn is surfaced, not re-polled.
 * A subscriber whose ring was scribbled on (its tail far past its head: "ring is corrupted") stays
 * ready to its wait set, and every take fails. Before, the executor broke out of the turn, found
 * the entry ready again and looped (a core busy, no callback, no error) until spin_until's deadline
 * and returned ZCAST_ETIMEDOUT; now spin returns the take's error, with its text. Single thread
 * and pool. */
#include "zt_hostile.h"
#include "zcast/executor.h"

static int calls;

static void on_msg(zcast_sub *s, zcast_msg *m, void *ctx)
{
	(void)s, (void)m, (void)ctx;
	calls++;
}

static void run(uint32_t threads, const char *topic)
{
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open(topic, NULL, &s), 0);
	zcast_pub *p = zt_open_pub(topic, 64, 4);
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = threads;
	zcast_executor *ex = NULL;
	CHECK_EQ(zcast_executor_create(&eo, &ex), 0);
	CHECK_EQ(zcast_executor_add_sub(ex, s, on_msg, NULL, 0), 0);
	zt_publish(p, 1, 32); /* ready */
	struct zc_topic_hdr *h = zt_map_topic(topic, NULL);
	struct zc_sub_rec *r = zt_sub_rec(h, zcast_sub_id(s));
	CHECK(r != NULL);
	atomic_store(&r->tail, (ZC_HEAD_POS(atomic_load(&r->head)) + 1000) & ZC_POS_MASK);
	int64_t t0 = zt_now_ns();
	int ret = zcast_executor_spin_until(ex, t0 + 300000000);
	printf("threads %u: spin_until -> %d (%s), %d callbacks\n", threads, ret,
	       zcast_last_error(), calls);
	CHECK_EQ(ret, ZCAST_ECORRUPT);
	CHECK_MSG_HAS(zcast_last_error(), "corrupted");
	CHECK_EQ(calls, 0);
	atomic_store(&r->tail, ZC_HEAD_POS(atomic_load(&r->head))); /* let close drain nothing */
	zcast_executor_destroy(ex);
	zcast_pub_close(p);
	zcast_sub_close(s);
}

int main(void)
{
	zt_setup("exectakeerr", 60);
	run(1, "/exec/takeerr1");
	run(2, "/exec/takeerr2");
	printf("ok\n");
	return 0;
}
