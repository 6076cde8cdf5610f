/* A hostile doorbell reference: a scribbler rewrites a subscriber record's doorbell field (the
 * reference a publisher follows after every push) with values that name a file of the wrong size, a
 * file others may write, a 1 GiB sparse file, a symbolic link, a real doorbell with a bit beyond
 * the ready set, another wait set's doorbell, garbage — once each, and then flipping among them
 * from a thread while the publisher publishes. The publisher neither fails nor crashes, and writes
 * nothing outside the ready set of a file that passes its checks: the rejected files keep their
 * content, the accepted fake keeps everything but in-range bits and the word. The wait set whose
 * doorbell was named gets at most a spurious check (no false event), and works after the record is
 * restored. */
#include <pthread.h>
#include <sys/stat.h>

#include "zt_hostile.h"
#include "zcast/waitset.h"

/* Above any pid_max (at most 2^22): no real process names its doorbells so. Ours in the low bits:
 * a concurrent run of this test (its _nowaitv variant) has fakes of its own. */
static uint32_t fake_pid;
#define N_FAKES 6

enum { WRONG_SIZE = 1, GROUP_WRITABLE = 2, ACCEPTED = 3, SPARSE = 4, SYMLINK = 5, MISSING = 6 };

static int fake_fd[N_FAKES + 1];

static void fake_path(char *out, size_t n, int serial)
{
	snprintf(out, n, "/dev/shm/zcast-bell.%u.%d", fake_pid, serial);
}

/* A file under a doorbell's name, held locked as its owner would (sweeps leave it alone). Made
 * under another name and renamed once locked: a sweep by a concurrent test never sees it
 * unlocked. */
static int make_fake(int serial, off_t size, mode_t mode)
{
	char path[96], tmp[112];
	fake_path(path, sizeof path, serial);
	snprintf(tmp, sizeof tmp, "/dev/shm/zt-hostile-bell.%d.%d", (int)getpid(), serial);
	unlink(path);
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	CHECK_EQ(fcntl(fd, F_OFD_SETLK, &fl), 0);
	CHECK_EQ(fchmod(fd, mode), 0);
	CHECK_EQ(ftruncate(fd, size), 0);
	CHECK_EQ(rename(tmp, path), 0);
	fake_fd[serial] = fd;
	return fd;
}

static uint64_t ref(uint32_t pid, uint32_t serial, uint32_t bit)
{
	return ZC_BELL_REF(pid, serial, bit);
}

struct flip {
	_Atomic uint64_t *field;
	const uint64_t *values;
	int n;
	_Atomic int stop;
};

static void *flipper(void *arg)
{
	struct flip *f = arg;
	for (unsigned i = 0; !atomic_load(&f->stop); i++)
		atomic_store(f->field, f->values[i % (unsigned)f->n]);
	return NULL;
}

/* Every publish succeeds and reaches both subscribers. */
static void publish_some(zcast_pub *p, zcast_sub *victim, zcast_sub *attached, int n)
{
	for (int i = 0; i < n; i++) {
		zt_publish(p, (uint64_t)i, 64);
		CHECK_EQ(zt_drain(victim), 1);
		CHECK_EQ(zt_drain(attached), 1);
	}
}

int main(void)
{
	zt_setup("hostile_doorbell", 120);
	fake_pid = 0x7f000000u | (uint32_t)getpid();
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.slot_size = 64;
	po.slot_count = 8;
	zcast_pub *p;
	CHECK_EQ(zcast_pub_open("/hb/t", &po, &p), 0);
	zcast_sub *victim, *attached;
	CHECK_EQ(zcast_sub_open("/hb/t", NULL, &victim), 0);
	CHECK_EQ(zcast_sub_open("/hb/t", NULL, &attached), 0);
	zcast_waitset *ws;
	CHECK_EQ(zcast_waitset_create(&ws), 0);
	int id;
	CHECK_EQ(zcast_waitset_add_sub(ws, attached, attached, &id), 0);

	struct zc_topic_hdr *h = zt_map_topic("/hb/t", NULL);
	struct zc_sub_rec *vr = zt_sub_rec(h, zcast_sub_id(victim));
	struct zc_sub_rec *ar = zt_sub_rec(h, zcast_sub_id(attached));
	CHECK(vr && ar);
	uint64_t good = atomic_load(&ar->bell);
	CHECK(good != 0); /* the attached subscriber rings its wait set's doorbell */
	CHECK_EQ(atomic_load(&vr->bell), 0);

	int fd = make_fake(WRONG_SIZE, 1, 0600);
	CHECK_EQ(pwrite(fd, "x", 1, 0), 1);
	make_fake(GROUP_WRITABLE, ZC_BELL_SIZE, 0666); /* passes size and magic, not the mode */
	fd = make_fake(ACCEPTED, ZC_BELL_SIZE, 0600);
	struct zc_bell_hdr *fake =
	    mmap(NULL, ZC_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(fake != MAP_FAILED);
	fake->layout_version = ZC_LAYOUT_VERSION;
	atomic_store(&fake->magic, ZC_BELL_MAGIC);
	atomic_store(&fake->sleeping, 1); /* claims to sleep: the publisher wakes it */
	struct zc_bell_hdr *gw = mmap(NULL, ZC_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
				      fake_fd[GROUP_WRITABLE], 0);
	CHECK(gw != MAP_FAILED);
	gw->layout_version = ZC_LAYOUT_VERSION;
	atomic_store(&gw->magic, ZC_BELL_MAGIC);
	make_fake(SPARSE, 1ll << 30, 0600);
	char target[96], link_path[96];
	fake_path(target, sizeof target, ACCEPTED);
	fake_path(link_path, sizeof link_path, SYMLINK);
	unlink(link_path);
	CHECK_EQ(symlink(target, link_path), 0);

	const uint64_t hostile[] = {
	    ref(fake_pid, WRONG_SIZE, 3),
	    ref(fake_pid, GROUP_WRITABLE, 3),
	    ref(fake_pid, SPARSE, 3),
	    ref(fake_pid, SYMLINK, 3),
	    ref(fake_pid, MISSING, 3),
	    ref(fake_pid, ACCEPTED, ZC_BELL_BITS),
	    ref(fake_pid, ACCEPTED, 65535),
	    good ^ 1, /* the wait set's doorbell, another bit */
	    good,
	    ~0ull,
	    0x8000000000000000ull,
	    ref(0, 0, 0) | 1,
	};
	const int n_hostile = (int)(sizeof hostile / sizeof hostile[0]);
	for (int i = 0; i < n_hostile; i++) {
		atomic_store(&vr->bell, hostile[i]);
		publish_some(p, victim, attached, 20);
	}
	/* Nothing of the rejected files changed; of the accepted fake, no bit (all were out of
	 * range or named other files). */
	char c = 0;
	CHECK_EQ(pread(fake_fd[WRONG_SIZE], &c, 1, 0), 1);
	CHECK_EQ(c, 'x');
	for (uint32_t w = 0; w < ZC_BELL_BITS / 64; w++) {
		CHECK_EQ(atomic_load(&gw->bits[w]), 0);
		CHECK_EQ(atomic_load(&fake->bits[w]), 0);
	}
	CHECK_EQ(atomic_load(&gw->word), 0);
	CHECK_EQ(atomic_load(&fake->word), 0);
	struct stat st;
	CHECK_EQ(fstat(fake_fd[SPARSE], &st), 0);
	CHECK_EQ(st.st_blocks, 0); /* never written (not even mapped) */

	/* An in-range bit of the accepted fake is set, and its "sleeping" owner woken: the checks
	 * above looked at a path the publisher really takes. */
	atomic_store(&vr->bell, ref(fake_pid, ACCEPTED, 77));
	publish_some(p, victim, attached, 1);
	CHECK_EQ(atomic_load(&fake->bits[1]), 1ull << 13);
	CHECK(atomic_load(&fake->word) != 0);
	atomic_store(&fake->bits[1], 0);

	/* Flipping among all of them while the publisher publishes (read once, or it would trip).
	 */
	struct flip f = {&vr->bell, hostile, n_hostile, 0};
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, flipper, &f), 0);
	publish_some(p, victim, attached, 3000);
	atomic_store(&f.stop, 1);
	CHECK_EQ(pthread_join(th, NULL), 0);
	for (uint32_t w = 0; w < ZC_BELL_BITS / 64; w++)
		CHECK_EQ(atomic_load(&gw->bits[w]), 0);
	const uint8_t *raw = (const uint8_t *)fake;
	for (size_t b = sizeof *fake; b < ZC_BELL_SIZE; b++)
		CHECK_EQ(raw[b], 0); /* past the ready set: untouched */

	/* The named wait set saw at most spurious checks, and works once the record is restored. */
	atomic_store(&vr->bell, 0);
	zcast_ws_event ev[4];
	CHECK_EQ(zcast_waitset_wait(ws, 0, ev, 4), ZCAST_ETIMEDOUT);
	CHECK_EQ(atomic_load(&ar->bell), good);
	zt_publish(p, 1, 64);
	CHECK_EQ(zcast_waitset_wait(ws, 10000000000ll, ev, 4), 1);
	CHECK(ev[0].user == attached);
	CHECK_EQ(zt_drain(attached), 1);
	CHECK_EQ(zt_drain(victim), 1);

	zcast_waitset_destroy(ws);
	CHECK_EQ(zcast_sub_close(victim), 0);
	CHECK_EQ(zcast_sub_close(attached), 0);
	CHECK_EQ(zcast_pub_close(p), 0);
	for (int s = 1; s <= N_FAKES; s++) {
		char path[96];
		fake_path(path, sizeof path, s);
		unlink(path);
		if (fake_fd[s] > 0)
			close(fake_fd[s]);
	}
	printf("ok hostile doorbell references: nothing written out of bounds, nobody harmed\n");
	CHECK_EQ(zt_shm_count(), 0);
	return 0;
}
