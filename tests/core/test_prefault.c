/* No page faults in the steady state: pools are prefaulted when created and when mapped, so
 * writing and reading whole payloads takes no minor fault after the first round. */
#include <sys/resource.h>

#include "harness.h"

#define SLOT (1u << 20)
#define SLOTS 8

static long minor_faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static uint64_t round_trip(zcast_pub *p, zcast_sub *s, uint64_t seq)
{
	zcast_msg *m;
	CHECK_EQ(zcast_loan(p, SLOT, &m), 0);
	memset(zcast_msg_data(m), (int)(seq & 0xff), SLOT); /* every byte written */
	CHECK_EQ(zcast_publish(p, m), 0);
	CHECK_EQ(zcast_take(s, &m), 0);
	const volatile uint8_t *d = zcast_msg_data(m);
	uint64_t sum = 0;
	for (size_t i = 0; i < SLOT; i += 64) /* every cache line read */
		sum += d[i];
	zcast_msg_drop(m);
	return sum;
}

static void test_steady_state_takes_no_page_fault(void)
{
	zcast_sub *s;
	zcast_pub *p;
	CHECK_EQ(zcast_sub_open("/prefault", NULL, &s), 0);
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.slot_size = SLOT;
	o.slot_count = SLOTS;
	CHECK_EQ(zcast_pub_open("/prefault", &o, &p), 0);
	/* One round trip maps the subscriber's view of the pool and warms the allocator; it touches
	 * slot 0 only. The next rounds use slots whose pages nobody has touched yet: without the
	 * prefault each would fault 2 x 256 times (write side and read side). */
	uint64_t sum = round_trip(p, s, 0);
	long before = minor_faults();
	for (uint64_t i = 1; i < 200; i++)
		sum += round_trip(p, s, i);
	long faults = minor_faults() - before;
	printf("minor faults in 199 round trips of %u KiB: %ld (checksum %llu)\n", SLOT >> 10, faults,
	       (unsigned long long)sum);
	CHECK_EQ(faults, 0);
	zcast_pub_close(p);
	zcast_sub_close(s);
}

int main(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The sanitizers' allocators and shadow memory fault on their own: nothing to learn here. */
	printf("skip: page faults are not ours to count under a sanitizer\n");
	return ZT_SKIP;
#endif
	zt_setup("prefault", 60);
	RUN(test_steady_state_takes_no_page_fault);
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
