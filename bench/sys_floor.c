/* The floor: no library. A ring of slots in shared memory, a 32-bit published counter used as
 * futex word (event mode: FUTEX_WAIT / FUTEX_WAKE, only when someone sleeps), or spinning.
 * Who wakes the sleepers is p->wake (transport.h): the writer all of them (default), the writer
 * one or two and every woken reader the next one or two (chain, tree), or a helper thread of the
 * writer's process (thread).
 * try_send: full when the slowest reader has `depth` messages unread; never waits. */
#include "transport.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CL 64
typedef struct floor_shm {
	_Alignas(CL) atomic_uint head;     /* messages published (futex word of readers) */
	_Alignas(CL) atomic_uint sleepers; /* readers inside FUTEX_WAIT */
	_Alignas(CL) atomic_uint pub_sleeping;
	struct {
		_Alignas(CL) atomic_uint tail; /* messages consumed by reader i (futex word of writer) */
	} r[ZB_MAX_CHILDREN];
	_Alignas(4096) unsigned char slots[];
} floor_shm;

struct zb_chan {
	floor_shm *s;
	const zb_chan_params *p;
	int reader;
	size_t slot;
	/* --wake thread, writer only: the helper thread and its process-private futex word */
	pthread_t waker;
	int has_waker;
	atomic_uint kick; /* bumped once per message that finds sleepers */
	atomic_int quit;
};

static long futex(atomic_uint *w, int op, unsigned val, const struct timespec *ts)
{
	return syscall(SYS_futex, (unsigned *)w, op, val, ts, NULL, 0);
}

static size_t slot_size(const zb_chan_params *p) { return (p->max_size + 4095) & ~(size_t)4095; }

/* Sleepers one FUTEX_WAKE of the writer (or of a passing reader) wakes. */
static int fanin(const zb_chan_params *p)
{
	return p->wake == ZB_WAKE_CHAIN ? 1 : p->wake == ZB_WAKE_TREE ? 2 : INT_MAX;
}

static void *waker_main(void *arg)
{
	zb_chan *c = arg;
	unsigned seen = atomic_load(&c->kick);
	while (!atomic_load(&c->quit)) {
		futex(&c->kick, FUTEX_WAIT_PRIVATE, seen, NULL);
		unsigned k = atomic_load(&c->kick);
		if (k == seen)
			continue;
		seen = k;
		futex(&c->s->head, FUTEX_WAKE, INT_MAX, NULL);
	}
	return NULL;
}

static int f_prepare(zb_chan_params *p, void **shared, char *why, size_t n)
{
	if (p->drop_old) {
		snprintf(why, n, "no drop-oldest policy");
		return -1;
	}
	size_t len = sizeof(floor_shm) + slot_size(p) * (size_t)p->depth;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(why, n, "mmap %zu: %s", len, strerror(errno));
		return -1;
	}
	*shared = m;
	return 0;
}

static int f_open(const zb_chan_params *p, void *shared, int reader, zb_chan **out)
{
	zb_chan *c = calloc(1, sizeof *c);
	c->s = shared;
	c->p = p;
	c->reader = reader;
	c->slot = slot_size(p);
	if (reader < 0 && p->wake == ZB_WAKE_THREAD && !p->spin) {
		if (pthread_create(&c->waker, NULL, waker_main, c)) {
			free(c);
			return -1;
		}
		c->has_waker = 1;
	}
	*out = c;
	return 0;
}

static const struct timespec tick = {0, 100000000};

static void f_publish(zb_chan *c, unsigned head, const zb_hdr *h, size_t size, int mode)
{
	floor_shm *s = c->s;
	zb_fill(s->slots + (size_t)(head % (unsigned)c->p->depth) * c->slot, size, h, mode);
	atomic_store(&s->head, head + 1); /* seq_cst: pairs with the sleepers check */
	if (!atomic_load(&s->sleepers))
		return;
	if (c->has_waker) { /* the helper pays for the wake-all; we pay one private wake */
		atomic_fetch_add(&c->kick, 1);
		futex(&c->kick, FUTEX_WAKE_PRIVATE, 1, NULL);
	} else {
		futex(&s->head, FUTEX_WAKE, fanin(c->p), NULL);
	}
}

static int f_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	floor_shm *s = c->s;
	unsigned head = atomic_load_explicit(&s->head, memory_order_relaxed);
	/* backpressure: wait for the slowest reader */
	for (int i = 0; i < c->p->nreaders; i++) {
		for (;;) {
			unsigned t = atomic_load(&s->r[i].tail);
			if (head - t < (unsigned)c->p->depth)
				break;
			if (zb_now() > deadline)
				return -1;
			if (c->p->spin) {
				__builtin_ia32_pause();
				continue;
			}
			atomic_store(&s->pub_sleeping, 1);
			if (head - atomic_load(&s->r[i].tail) >= (unsigned)c->p->depth)
				futex(&s->r[i].tail, FUTEX_WAIT, t, &tick);
			atomic_store(&s->pub_sleeping, 0);
		}
	}
	f_publish(c, head, h, size, mode);
	return 0;
}

static int f_try_send(zb_chan *c, const zb_hdr *h, size_t size, int mode)
{
	floor_shm *s = c->s;
	unsigned head = atomic_load_explicit(&s->head, memory_order_relaxed);
	for (int i = 0; i < c->p->nreaders; i++)
		if (head - atomic_load(&s->r[i].tail) >= (unsigned)c->p->depth)
			return 1;
	f_publish(c, head, h, size, mode);
	return 0;
}

static int f_recv(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	floor_shm *s = c->s;
	atomic_uint *tailp = &s->r[c->reader].tail;
	unsigned tail = atomic_load_explicit(tailp, memory_order_relaxed);
	unsigned spins = 0;
	int woke = 0;
	zb_take_ns = -1;
	for (;;) {
		int64_t t0 = zb_take_begin(woke);
		unsigned head = atomic_load_explicit(&s->head, memory_order_acquire); /* the "take" */
		zb_take_end(t0);
		if (head != tail)
			break;
		if ((++spins & 1023) == 0 && zb_now() > deadline)
			return -1;
		if (c->p->spin) {
			__builtin_ia32_pause();
			continue;
		}
		atomic_fetch_add(&s->sleepers, 1);
		int slept = 0;
		if (atomic_load(&s->head) == tail)
			slept = futex(&s->head, FUTEX_WAIT, tail, &tick) == 0 || errno == ETIMEDOUT;
		atomic_fetch_sub(&s->sleepers, 1);
		woke = 1;
		/* chain / tree: a reader that slept and finds a message passes the wake on before it
		 * consumes. The chain ends when nobody sleeps; a lost baton (reader killed in between)
		 * costs the others at most one tick (their FUTEX_WAIT timeout), they pass it on then. */
		if (slept && fanin(c->p) != INT_MAX && atomic_load(&s->head) != tail &&
		    atomic_load(&s->sleepers))
			futex(&s->head, FUTEX_WAKE, fanin(c->p), NULL);
		if (zb_now() > deadline)
			return -1;
	}
	zb_sink += zb_consume(s->slots + (size_t)(tail % (unsigned)c->p->depth) * c->slot, size, h, mode);
	atomic_store(tailp, tail + 1);
	if (atomic_load(&s->pub_sleeping))
		futex(tailp, FUTEX_WAKE, 1, NULL);
	return 0;
}

static void f_close(zb_chan *c)
{
	if (c->has_waker) {
		atomic_store(&c->quit, 1);
		atomic_fetch_add(&c->kick, 1);
		futex(&c->kick, FUTEX_WAKE_PRIVATE, 1, NULL);
		pthread_join(c->waker, NULL);
	}
	free(c);
}

static void f_cleanup(zb_chan_params *p, void *shared)
{
	munmap(shared, sizeof(floor_shm) + slot_size(p) * (size_t)p->depth);
}

const zb_system zb_sys_floor = {"floor", f_prepare, f_open, NULL, f_send, f_try_send, f_recv, f_close,
                                f_cleanup};
