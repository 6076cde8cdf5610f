/* Container: an Autoware-like process graph. P container processes (--containers, default 16), each
 * with ONE thread that waits for all of its subscriptions at once (40 .. 60 of them) and publishes
 * its own topics on schedule from the same loop, as a component container's executor does. The
 * topics
 * (--topics, default 230), their sizes (128 B .. 4 MiB, most small), rates (1 .. 100 Hz),
 * publishers and subscribers come from container_plan.c (deterministic, --seed). Every container
 * runs the same schedule from a common start: --cap-s seconds measured after a warm-up, then a
 * drain of 0.5 s with no publishing. Systems: zcast (container_zcast.c: one wait set, DROP_OLD
 * subscriptions of depth 4) and uds (container_uds.c: one Unix stream socket per subscription, the
 * container waits in epoll over all its sockets, large messages are written whole); any other
 * system is skipped. Rows: one per delivery sent in the measured phase, sub = log2(message size),
 * lat = receive call returned (zcast_take / the read that completed the message) - send stamp
 * (taken before the loan / the write). report.py groups them by size class (small <= 1 KiB, medium
 * <= 64 KiB, large). Counts (json): published = deliveries due (message x subscription) in the
 * measured phase, received = those delivered, failed = messages some subscriber lost at the
 * publisher (no slot, socket still busy with the previous message); published - received =
 * everything lost. cpu_pct as in case waitset. */
#include "container.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>
#include <zcast/zcast.h>

#define CT_MIN_SUBS 40
#define CT_SOCKBUF (8 << 20) /* uds: a 4 MiB message fits the socket whole */

ct_run ct;
static zb_bench *cur_b; /* the child's own (each container is a process) */
static int cur_idx;
static int64_t meas_start, meas_end;

void ct_topic_name(char *buf, size_t n, int t)
{
	snprintf(buf, n, "/ct_%d", t);
}

void ct_fail(const char *fmt, ...)
{
	char m[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	zb_fail(cur_b->ctl, cur_idx, "container %d: %s", cur_idx, m);
}

void ct_received(const zb_hdr *h, int64_t t_recv)
{
	if (h->stamp < meas_start || h->stamp >= meas_end)
		return;
	cur_b->ctl->res[cur_idx].received++;
	zb_sample x = {(int64_t)h->seq, __builtin_ctz(h->size), h->stamp, t_recv,
		       t_recv - h->stamp};
	zb_ctl_add(cur_b->ctl, &x);
}

/* uds: one socket pair per subscription, non-blocking, with room for the largest message. */
static int make_sockets(zb_bench *b)
{
	ct.sock = calloc((size_t)ct.plan.nsubs * 2, sizeof *ct.sock);
	if (!ct.sock)
		return b->skip = "out of memory", -1;
	ct.sock_opt = SO_SNDBUFFORCE;
	for (int i = 0; i < ct.plan.nsubs; i++) {
		int *fd = &ct.sock[2 * i], v = CT_SOCKBUF;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd))
			return b->skip = "socketpair failed (fd limit?)", -1;
		if (ct.sock_opt == SO_SNDBUFFORCE &&
		    setsockopt(fd[0], SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof v))
			ct.sock_opt = SO_SNDBUF; /* not privileged: capped by net.core.wmem_max */
		if (ct.sock_opt == SO_SNDBUF)
			setsockopt(fd[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
	}
	int got = 0;
	socklen_t l = sizeof got;
	getsockopt(ct.sock[0], SOL_SOCKET, SO_SNDBUF, &got, &l);
	fprintf(stderr, "container uds: %d socket pairs, SO_SNDBUF %d B (%s)\n", ct.plan.nsubs, got,
		ct.sock_opt == SO_SNDBUFFORCE ? "SO_SNDBUFFORCE" : "SO_SNDBUF, capped by wmem_max");
	return 0;
}

static int setup(zb_bench *b)
{
	int P = b->containers > 0 ? b->containers : 16;
	if (b->topics < 1)
		b->topics = 230;
	zb_chan_init(&b->ch[0], "ct", b, 1, 4); /* only its run id (the zcast domain) is used */
	b->nch = 0;
	b->rows_per_msg = 1;
	b->warmup = 0;
	if (P < 2 || P > ZB_MAX_CHILDREN) {
		b->skip = "--containers must be 2 .. 40";
		return 0;
	}
	b->containers = P;
	int zc = 0;
#ifdef ZB_HAVE_ZCAST
	zc = b->sys == &zb_sys_zcast;
#endif
	if (b->sys && !zc && b->sys != &zb_sys_uds) {
		b->skip = "case container runs zcast and uds only";
		return P;
	}
	static char why[160];
	if (cp_generate(&ct.plan, b->topics, P, CT_MIN_SUBS, (uint64_t)b->seed, why, sizeof why)) {
		b->skip = why;
		return P;
	}
	cp_describe(&ct.plan, stderr);
	ct.meas_ns = (int64_t)(b->cap_s * 1e9);
	ct.warm_ns = b->cap_s < 6 ? 1000000000LL : 2000000000LL;
	ct.drain_ns = 500000000LL;
	/* every measured delivery is one row, with room for rate jitter */
	b->samples = (long)(cp_deliveries_per_s(&ct.plan) * (b->cap_s + 1) * 1.2) + 1000;
	struct rlimit rl; /* uds: two fds per subscription before fork */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	ct.sh =
	    mmap(NULL, sizeof *ct.sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ct.sh == MAP_FAILED) {
		ct.sh = NULL;
		b->skip = "mmap of the shared start page failed";
		return P;
	}
	if (b->sys == &zb_sys_uds)
		make_sockets(b);
	return P;
}

/* Time this process spent runnable but waiting for a CPU, ns (/proc/self/schedstat, field 2); 0 if
 * the kernel has no schedstat. */
static int64_t run_delay(void)
{
	long long on_cpu = 0, wait = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");
	if (f) {
		if (fscanf(f, "%lld %lld", &on_cpu, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait;
}

/* The container's loop: publish what is due, wait for messages until the next publish is due. */
static int container(zb_bench *b, int idx, const ct_ops *ops)
{
	const cp_plan *p = &ct.plan;
	zb_child_res *res = &b->ctl->res[idx];
	void *ctx;
	if (ops->open(b, idx, &ctx))
		return 1;
	int n = 0, *own = calloc((size_t)p->ntopics, sizeof *own);
	int64_t *due = calloc((size_t)p->ntopics, sizeof *due);
	uint64_t *seq = calloc((size_t)p->ntopics, sizeof *seq);
	if (!own || !due || !seq)
		return ct_fail("out of memory"), 1;
	for (int t = 0; t < p->ntopics; t++)
		if (p->topics[t].pub == idx)
			own[n++] = t;
	if (zb_start(b, idx, NULL, 0))
		return 1;
	int64_t zero = 0, start;
	atomic_compare_exchange_strong(&ct.sh->start, &zero, zb_now() + 10000000);
	start = atomic_load(&ct.sh->start);
	meas_start = start + ct.warm_ns;
	meas_end = meas_start + ct.meas_ns;
	int64_t quit = meas_end + ct.drain_ns, c0 = 0, f0 = 0, w0 = 0, d0 = 0;
	for (int k = 0; k < n; k++)
		due[k] = start + p->topics[own[k]].phase_ns;
	for (;;) {
		int64_t now = zb_now(), next = quit;
		if (!w0 && now >= meas_start) {
			w0 = now;
			c0 = zb_cpu_ns();
			f0 = zb_minflt();
			d0 = run_delay();
		}
		if (w0 && !res->wall_ns && now >= meas_end) {
			res->cpu_ns = zb_cpu_ns() - c0;
			res->wall_ns = now - w0;
			res->minflt = zb_minflt() - f0;
			ct.sh->run_delay[idx] = run_delay() - d0;
		}
		if (now >= quit)
			break;
		for (int k = 0; k < n && now < meas_end; k++) {
			const cp_topic *t = &p->topics[own[k]];
			if (due[k] <= now) {
				zb_hdr h = {.seq = (uint64_t)own[k] << 32 | seq[k]++,
					    .stamp = zb_now(),
					    .size = t->size};
				int r = ops->publish(ctx, own[k], &h);
				if (r < 0)
					return 1;
				if (h.stamp >= meas_start && h.stamp < meas_end) {
					res->published += t->nsubs;
					res->failed += r;
				}
				int64_t period = 1000000000LL / t->rate_hz;
				due[k] += period;
				if (due[k] <=
				    h.stamp) /* behind by a whole period: skip, as a timer would */
					due[k] = h.stamp + period;
			}
			if (due[k] < next)
				next = due[k];
		}
		now = zb_now();
		if (ops->wait(ctx, next > now ? next - now : 0))
			return 1;
	}
	ops->close(ctx);
	free(own), free(due), free(seq);
	zb_close_in_turn(b, idx, NULL, 0);
	return 0;
}

static int child(int idx, void *arg)
{
	zb_bench *b = arg;
	cur_b = b;
	cur_idx = idx;
	return container(b, idx, b->sys == &zb_sys_uds ? &ct_uds_ops : &ct_zcast_ops);
}

static void finish(zb_bench *b)
{
	b->published = b->received = b->failed = 0;
	for (int i = 0; i < b->containers; i++) {
		b->published += b->ctl->res[i].published;
		b->received += b->ctl->res[i].received;
		b->failed += b->ctl->res[i].failed;
	}
	b->messages = b->received;
	b->msgs_per_s = (double)b->received / b->cap_s;
	for (int i = 0; ct.sock && i < 2 * ct.plan.nsubs; i++)
		close(ct.sock[i]);
	free(ct.sock);
	char topic[32];
	for (int t = 0; b->sys != &zb_sys_uds && t < ct.plan.ntopics;
	     t++) { /* usually gone already */
		ct_topic_name(topic, sizeof topic, t);
		zcast_topic_remove(b->ch[0].run_id, topic);
	}
	if (ct.sh) {
		/* how long containers waited for a CPU while measured: the share of the machine's
		 * load */
		int64_t sum = 0, max = 0;
		for (int i = 0; i < b->containers; i++) {
			sum += ct.sh->run_delay[i];
			max = ct.sh->run_delay[i] > max ? ct.sh->run_delay[i] : max;
		}
		fprintf(stderr,
			"container %s: run-queue wait while measured: mean %.1f ms per container "
			"(%.2f %% of "
			"%.0f s), max %.1f ms\n",
			b->sys->name, sum / 1e6 / b->containers,
			100.0 * sum / b->containers / (b->cap_s * 1e9), b->cap_s, max / 1e6);
		munmap(ct.sh, sizeof *ct.sh);
	}
	cp_free(&ct.plan);
}

const zb_case zb_case_container = {"container", setup, child, finish};
