/* Request/response (case "service"): child 0 is the server, children 1..C the clients (--clients
 * C, default 1). Every client makes warmup + samples/C calls of one request of --size bytes and a
 * 64 B response; one row per measured call: lat = round trip (send start -> response read), sub =
 * client. msgs_per_s = measured calls of all clients / the span from the first client's start to
 * the last client's end (calls per second). A response must carry its own request's sequence
 * number (client in the high bits), so a response that reaches the wrong client fails the run.
 * Zero copy: where the system can name the request's bytes (device, inode, offset), every client
 * names them for its first measured request at send, the server at take; bytes_copied = 0 if
 * every pair names the same bytes, else the request size (and -1: the system cannot tell). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "svc.h"

#define RESP_SIZE 64
#define CLIENT_SHIFT 48

static const zb_svc_system *svc_systems[] = {
	&zb_svc_floor, &zb_svc_uds,
#ifdef ZB_HAVE_ICEORYX
	&zb_svc_iceoryx,
#endif
#ifdef ZB_HAVE_ZCAST_SVC
	&zb_svc_zcast,
#endif
};

typedef struct svc_proof {
	int where_ok[ZB_MAX_CHILDREN][2]; /* [client][0: client side, 1: server side] */
	uint64_t loc[ZB_MAX_CHILDREN][2][3];
} svc_proof;

static const zb_svc_system *sys;
static zb_svc_params params;
static void *shared;
static svc_proof *proof; /* MAP_SHARED, written by the children */

static int setup(zb_bench *b)
{
	static char why[200];
	int n = b->clients > 0 ? b->clients : 1;
	b->rows_per_msg = 1;
	b->nch = 0;
	for (size_t i = 0; b->sys && i < sizeof svc_systems / sizeof *svc_systems; i++)
		if (!strcmp(svc_systems[i]->name, b->sys->name))
			sys = svc_systems[i];
	if (!sys) {
		b->skip = "no request/response in this system (bench/svc.h)";
		return n + 1;
	}
	snprintf(params.name, sizeof params.name, "svc");
	const char *e = getenv("ZB_RUN_ID");
	static char run_id[40];
	snprintf(run_id, sizeof run_id, "%s%d", e ? e : "zb", (int)getpid());
	params.run_id = run_id;
	params.req_size = b->size;
	params.resp_size = RESP_SIZE;
	params.nclients = n;
	params.depth = 4;
	proof = mmap(NULL, sizeof *proof, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (proof == MAP_FAILED || sys->prepare(&params, &shared, why, sizeof why)) {
		b->skip = why[0] ? why : "mmap failed";
		sys = NULL;
	}
	return n + 1;
}

static void close_in_turn(zb_bench *b, int idx, zb_svc *v)
{
	int64_t end = zb_now() + 10000000000LL;
	while (atomic_load(&b->ctl->arrived[2]) < idx && !atomic_load(&b->ctl->abort) && zb_now() < end) {
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	atomic_store(&b->ctl->res[idx].done, 1);
	sys->close(v);
	atomic_fetch_add(&b->ctl->arrived[2], 1);
}

/* Both barriers around ready(), as zb_start does for channels. */
static int start(zb_bench *b, int idx, zb_svc *v)
{
	int64_t t = 20000000000LL;
	if (zb_barrier(b->ctl, 0, t))
		return zb_fail(b->ctl, idx, "barrier (open) failed"), -1;
	if (sys->ready && sys->ready(v, zb_now() + t))
		return zb_fail(b->ctl, idx, "%s: not connected", sys->name), -1;
	if (zb_barrier(b->ctl, 1, t))
		return zb_fail(b->ctl, idx, "barrier (ready) failed"), -1;
	return 0;
}

static void note_where(zb_svc *v, int client, int side)
{
	if (sys->where && !sys->where(v, proof->loc[client][side]))
		proof->where_ok[client][side] = 1;
}

static int server(zb_bench *b, zb_svc *v)
{
	int stops = 0;
	while (stops < params.nclients) {
		zb_hdr req;
		if (sys->serve(v, &req, b->mode, zb_deadline(b)))
			return zb_fail(b->ctl, 0, "%s: serve failed after %lld", sys->name,
			               (long long)b->ctl->res[0].received), 1;
		b->ctl->res[0].received++;
		int client = (int)(req.seq >> CLIENT_SHIFT);
		if (client < 0 || client >= params.nclients)
			return zb_fail(b->ctl, 0, "request from client %d", client), 1;
		if (req.flags & ZB_FLAG_STOP)
			stops++;
		else if ((req.seq & ((1ull << CLIENT_SHIFT) - 1)) == (uint64_t)b->warmup)
			note_where(v, client, 1);
	}
	return 0;
}

static int client(zb_bench *b, int idx, zb_svc *v)
{
	int me = idx - 1;
	zb_child_res *res = &b->ctl->res[idx];
	long calls = (b->samples + params.nclients - 1) / params.nclients;
	int64_t t_end = 0;
	for (long i = 0; i < b->warmup + calls; i++) {
		int64_t t0 = zb_now();
		if (i == b->warmup) {
			t_end = t0 + (int64_t)(b->cap_s * 1e9);
			res->t_first = t0;
			res->minflt = zb_minflt();
		}
		zb_hdr req = {.seq = ((uint64_t)me << CLIENT_SHIFT) | (uint64_t)i, .stamp = t0,
		              .size = (uint32_t)b->size}, resp;
		if (sys->call(v, &req, &resp, b->mode, zb_deadline(b)))
			return zb_fail(b->ctl, idx, "%s: call %ld failed", sys->name, i), 1;
		int64_t t1 = zb_now();
		if (resp.seq != req.seq)
			return zb_fail(b->ctl, idx, "response %llx to request %llx", (unsigned long long)resp.seq,
			               (unsigned long long)req.seq), 1;
		if (i < b->warmup)
			continue;
		if (i == b->warmup)
			note_where(v, me, 0);
		res->published++;
		res->t_last = t1;
		zb_sample x = {i - b->warmup, me, t0, t1, t1 - t0};
		zb_ctl_add(b->ctl, &x);
		if (t1 > t_end)
			break;
	}
	res->minflt = zb_minflt() - res->minflt;
	zb_hdr stop = {.seq = (uint64_t)me << CLIENT_SHIFT, .flags = ZB_FLAG_STOP, .size = (uint32_t)b->size}, resp;
	if (sys->call(v, &stop, &resp, ZB_TRANSPORT, zb_deadline(b)))
		return zb_fail(b->ctl, idx, "%s: stop call failed", sys->name), 1;
	return 0;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	zb_svc *v = NULL;
	if (sys->open(&params, shared, idx - 1, &v))
		return zb_fail(b->ctl, idx, "%s: open %s failed", sys->name, idx ? "client" : "server"), 1;
	if (start(b, idx, v))
		return 1;
	int rc = idx == 0 ? server(b, v) : client(b, idx, v);
	if (!rc)
		close_in_turn(b, idx, v);
	return rc;
}

static void finish(zb_bench *b)
{
	int64_t first = 0, last = 0;
	b->published = b->received = 0;
	for (int i = 1; i <= params.nclients; i++) {
		zb_child_res *r = &b->ctl->res[i];
		b->published += r->published;
		if (!first || r->t_first < first)
			first = r->t_first;
		if (r->t_last > last)
			last = r->t_last;
	}
	b->received = b->published;
	b->messages = 2 * b->published; /* requests + responses */
	b->msgs_per_s = last > first ? (double)b->published * 1e9 / (double)(last - first) : 0;
	b->bytes_copied = sys->where ? 0 : -1;
	for (int i = 0; sys->where && i < params.nclients; i++)
		if (!proof->where_ok[i][0] || !proof->where_ok[i][1] ||
		    memcmp(proof->loc[i][0], proof->loc[i][1], sizeof proof->loc[i][0]))
			b->bytes_copied = (long)b->size;
	sys->cleanup(&params, shared);
}

const zb_case zb_case_service = {"service", setup, child, finish};
