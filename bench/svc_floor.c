/* The floor of a request/response round trip: no library, two futex wake-ups per call. Each client
 * owns a request slot and a response slot in shared memory and two counters: requests it posted and
 * requests the server answered (its futex word). A call writes the request in place, bumps the
 * client's counter and the shared `posted` word (the server's futex word), and sleeps on its
 * answered counter; the server scans the clients round-robin for one whose posted > answered,
 * writes the response in place and bumps answered. FUTEX_WAKE only when the other side sleeps. */
#include "svc.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CL 64
typedef struct floor_client {
	_Alignas(CL) atomic_uint asked;    /* requests posted by this client */
	_Alignas(CL) atomic_uint answered; /* requests answered (futex word of the client) */
	atomic_uint sleeping;              /* the client is inside FUTEX_WAIT */
} floor_client;

typedef struct floor_svc_shm {
	_Alignas(CL) atomic_uint posted; /* requests posted by all clients (futex word of the server) */
	_Alignas(CL) atomic_uint server_sleeping;
	floor_client c[ZB_MAX_CHILDREN];
	_Alignas(4096) unsigned char slots[]; /* per client: request slot, then response slot */
} floor_svc_shm;

struct zb_svc {
	floor_svc_shm *s;
	const zb_svc_params *p;
	int client;
	int next; /* server: the client its scan starts at (round-robin) */
};

static const struct timespec tick = {0, 100000000};

static long futex(atomic_uint *w, int op, unsigned val, const struct timespec *ts)
{
	return syscall(SYS_futex, (unsigned *)w, op, val, ts, NULL, 0);
}

static size_t round_page(size_t n) { return (n + 4095) & ~(size_t)4095; }
static size_t pair_size(const zb_svc_params *p) { return round_page(p->req_size) + round_page(p->resp_size); }
static size_t shm_size(const zb_svc_params *p) { return sizeof(floor_svc_shm) + pair_size(p) * (size_t)p->nclients; }
static unsigned char *req_slot(zb_svc *v, int i) { return v->s->slots + (size_t)i * pair_size(v->p); }
static unsigned char *resp_slot(zb_svc *v, int i) { return req_slot(v, i) + round_page(v->p->req_size); }

static int fl_prepare(zb_svc_params *p, void **shared, char *why, size_t n)
{
	void *m = mmap(NULL, shm_size(p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(why, n, "mmap %zu: %s", shm_size(p), strerror(errno));
		return -1;
	}
	*shared = m;
	return 0;
}

static int fl_open(const zb_svc_params *p, void *shared, int client, zb_svc **out)
{
	zb_svc *v = calloc(1, sizeof *v);
	v->s = shared;
	v->p = p;
	v->client = client;
	*out = v;
	return 0;
}

static int fl_call(zb_svc *v, const zb_hdr *req, zb_hdr *resp, int mode, int64_t deadline)
{
	floor_client *me = &v->s->c[v->client];
	unsigned n = atomic_load_explicit(&me->asked, memory_order_relaxed) + 1;
	zb_fill(req_slot(v, v->client), v->p->req_size, req, mode);
	atomic_store(&me->asked, n);
	atomic_fetch_add(&v->s->posted, 1); /* seq_cst: pairs with the server's sleeping flag */
	if (atomic_load(&v->s->server_sleeping))
		futex(&v->s->posted, FUTEX_WAKE, 1, NULL);
	while (atomic_load_explicit(&me->answered, memory_order_acquire) != n) {
		if (zb_now() > deadline)
			return -1;
		atomic_store(&me->sleeping, 1);
		if (atomic_load(&me->answered) != n)
			futex(&me->answered, FUTEX_WAIT, n - 1, &tick);
		atomic_store(&me->sleeping, 0);
	}
	zb_sink += zb_consume(resp_slot(v, v->client), v->p->resp_size, resp, ZB_TRANSPORT);
	return 0;
}

/* A client with a request not answered yet, or -1. */
static int fl_pending(zb_svc *v)
{
	for (int k = 0; k < v->p->nclients; k++) {
		int i = (v->next + k) % v->p->nclients;
		floor_client *c = &v->s->c[i];
		if (atomic_load_explicit(&c->asked, memory_order_acquire) !=
		    atomic_load_explicit(&c->answered, memory_order_relaxed)) {
			v->next = (i + 1) % v->p->nclients;
			return i;
		}
	}
	return -1;
}

static int fl_serve(zb_svc *v, zb_hdr *req, int mode, int64_t deadline)
{
	floor_svc_shm *s = v->s;
	int i;
	for (;;) {
		unsigned seen = atomic_load(&s->posted);
		if ((i = fl_pending(v)) >= 0)
			break;
		if (zb_now() > deadline)
			return -1;
		atomic_store(&s->server_sleeping, 1);
		if (atomic_load(&s->posted) == seen)
			futex(&s->posted, FUTEX_WAIT, seen, &tick);
		atomic_store(&s->server_sleeping, 0);
	}
	floor_client *c = &s->c[i];
	zb_sink += zb_consume(req_slot(v, i), v->p->req_size, req, mode);
	zb_hdr h = {.seq = req->seq, .stamp = req->stamp, .flags = req->flags, .size = (uint32_t)v->p->resp_size};
	zb_fill(resp_slot(v, i), v->p->resp_size, &h, ZB_TRANSPORT);
	atomic_store(&c->answered, atomic_load(&c->answered) + 1); /* seq_cst: pairs with c->sleeping */
	if (atomic_load(&c->sleeping))
		futex(&c->answered, FUTEX_WAKE, 1, NULL);
	return 0;
}

static void fl_close(zb_svc *v) { free(v); }
static void fl_cleanup(zb_svc_params *p, void *shared) { munmap(shared, shm_size(p)); }

const zb_svc_system zb_svc_floor = {"floor", fl_prepare, fl_open, NULL, fl_call, fl_serve, NULL, fl_close,
                                    fl_cleanup};
