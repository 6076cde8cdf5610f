/* Issue 22, item 6: a planted pool record must cost a mapper nothing before the pool's header is
 * checked. A member can write a pool record naming a pool of 4 Mi slots and put a sparse file of
 * the matching size (hundreds of MiB, nothing allocated, no valid header) at its name; every process
 * that maps the pool's headers (a stat, a take, a reclaim) once prefaulted all of them read-write,
 * allocating the whole file, before it looked at the header. The turn-2 fix (hostile_sparse_file)
 * covers the control segment; this is the same for pools. A fresh child runs zcast_topic_stat_get:
 * its peak resident set may grow by at most 8 MiB, and the file may have at most 8 MiB allocated
 * afterwards. */
#include "zt_hostile.h"

#define ALLOWED_KIB (8 * 1024)

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static char pool_path[400];

static int stat_main(void *arg)
{
	(void)arg;
	long before = zt_mem_kib("VmHWM");
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(NULL, "/planted/t", &st);
	long after = zt_mem_kib("VmHWM");
	printf("stat: %d (%s); peak RSS %ld -> %ld KiB\n", r, zcast_last_error(), before, after);
	if (after - before > ALLOWED_KIB) {
		fprintf(stderr, "FAIL: a planted pool grew the peak RSS by %ld KiB\n", after - before);
		return 1;
	}
	return 0;
}

int main(void)
{
	zt_setup("planted", 120);
	zcast_pub *p = zt_open_pub("/planted/t", 64, 4);
	struct zc_topic_hdr *h = zt_map_topic("/planted/t", NULL);
	struct zc_pool_rec *pools = (struct zc_pool_rec *)((char *)h + h->off_pools);
	uint32_t j = 0;
	while (j < h->max_pools && atomic_load(&pools[j].state) != ZC_POOL_UNUSED)
		j++;
	CHECK(j < h->max_pools);
	/* The geometry a 4 Mi-slot pool of 64-byte slots has (pool.c). */
	uint64_t slots = ZC_MAX_SLOTS_LIMIT, page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t stride = round_up(sizeof(struct zc_slot_hdr) + 8ull * h->bitmap_words, 64);
	uint64_t payload_off = round_up(sizeof(struct zc_pool_hdr) + slots * stride, page);
	uint64_t size = payload_off + slots * 64;
	uint64_t id = 0x5eed5eed5eedull;
	snprintf(pool_path, sizeof pool_path, "/dev/shm/zcast.%s.@%016llx.%016llx", zt_domain(),
		 (unsigned long long)h->topic_hash, (unsigned long long)id);
	int fd = open(pool_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, (off_t)size), 0);
	close(fd);
	pools[j].owner = 0;
	pools[j].id = id;
	pools[j].slot_size = 64;
	pools[j].slot_count = (uint32_t)slots;
	atomic_store(&pools[j].state, ZC_POOL_ACTIVE);
	printf("planted pool record %u: %llu slots, headers %llu MiB, file %llu MiB\n", j,
	       (unsigned long long)slots, (unsigned long long)(payload_off >> 20),
	       (unsigned long long)(size >> 20));

	pid_t c = zt_fork(stat_main, NULL);
	zt_child_ok_within(c, 60000, "stat of a topic with a planted pool");
	struct stat st;
	CHECK_EQ(stat(pool_path, &st), 0);
	long kib = (long)(st.st_blocks / 2);
	printf("%ld KiB of the planted file allocated after the stat\n", kib);
	atomic_store(&pools[j].state, ZC_POOL_UNUSED);
	unlink(pool_path);
	if (kib > ALLOWED_KIB) {
		fprintf(stderr, "FAIL: the mapper prefaulted %ld KiB of a planted pool\n", kib);
		zt_fail();
	}
	zcast_pub_close(p);
	return 0;
}
