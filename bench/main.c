/* zcast-bench: runs ONE benchmark configuration (one case x one system) and writes
 * <out>/<name>__<system>.csv (raw samples) and <out>/<name>__<system>.json (meta).
 * bench/run.sh calls it once per configuration; bench/report.py summarizes. */
#include "bench.h"

#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const zb_system *systems[] = {
	&zb_sys_floor, &zb_sys_uds, &zb_sys_mq, &zb_sys_pipe,
#ifdef ZB_HAVE_ZCAST
	&zb_sys_zcast,
#endif
#ifdef ZB_HAVE_ICEORYX
	&zb_sys_iceoryx,
#endif
};
const char *const zb_wake_names[] = {"all", "chain", "tree", "thread"};

static const zb_case *cases[] = {&zb_case_pingpong, &zb_case_continuous, &zb_case_fanout, &zb_case_overload,
                                 &zb_case_waitset, &zb_case_join, &zb_case_join_collide,
                                 &zb_case_container, &zb_case_service};

void zb_chan_init(zb_chan_params *p, const char *name, const zb_bench *b, int nreaders, int depth)
{
	static char run_id[40];
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	if (!run_id[0]) {
		const char *e = getenv("ZB_RUN_ID");
		snprintf(run_id, sizeof run_id, "%s%d", e ? e : "zb", (int)getpid());
	}
	p->run_id = run_id;
	p->max_size = b->size;
	p->nreaders = nreaders;
	p->depth = depth;
	p->spin = b->spin;
	p->spin_ns = b->spin_ns;
	p->wake = b->wake;
}

zb_chan *zb_open(zb_bench *b, int idx, int ch, int reader)
{
	zb_chan *c = NULL;
	if (b->sys->open(&b->ch[ch], b->shared[ch], reader, &c)) {
		zb_fail(b->ctl, idx, "%s: open %s %s failed", b->sys->name, b->ch[ch].name,
		        reader < 0 ? "writer" : "reader");
		return NULL;
	}
	return c;
}

static void pin_child(int idx)
{
	cpu_set_t all, one;
	if (sched_getaffinity(0, sizeof all, &all))
		return;
	int n = CPU_COUNT(&all), k = idx % n;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all) && k-- == 0) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof one, &one);
			return;
		}
}

int zb_send_stop(zb_bench *b, zb_chan *c)
{
	zb_hdr h = {.flags = ZB_FLAG_STOP, .stamp = zb_now()};
	return b->sys->send(c, &h, b->size, ZB_TRANSPORT, zb_deadline(b)) ? 1 : 0;
}

int zb_recv_or_fail(zb_bench *b, int idx, zb_chan *c, zb_hdr *h)
{
	if (!b->sys->recv(c, h, b->size, b->mode, zb_deadline(b)))
		return 0;
	zb_fail(b->ctl, idx, "%s: receive failed after %lld", b->sys->name,
		(long long)b->ctl->res[idx].received);
	return 1;
}

int zb_start(zb_bench *b, int idx, zb_chan **eps, int neps)
{
	if (b->pin)
		pin_child(idx);
	/* Map the shared sample buffer writable in this process now, so that appending samples does
	 * not show up as page faults of the measured phase (nothing is written before barrier 1). */
	volatile unsigned char *p = (volatile unsigned char *)b->ctl->samples;
	for (size_t off = 0; off < (size_t)b->ctl->cap * sizeof(zb_sample); off += 4096)
		p[off] = p[off];
	int64_t t = 20000000000LL;
	if (zb_barrier(b->ctl, 0, t))
		return zb_fail(b->ctl, idx, "barrier (open) failed"), -1;
	for (int i = 0; i < neps; i++)
		if (b->sys->ready && b->sys->ready(eps[i], zb_now() + t))
			return zb_fail(b->ctl, idx, "%s: not connected", b->sys->name), -1;
	if (zb_barrier(b->ctl, 1, t))
		return zb_fail(b->ctl, idx, "barrier (ready) failed"), -1;
	return 0;
}

void zb_close_in_turn(zb_bench *b, int idx, zb_chan **eps, int neps)
{
	int64_t end = zb_now() + 10000000000LL;
	while (atomic_load(&b->ctl->arrived[2]) < idx && !atomic_load(&b->ctl->abort) && zb_now() < end) {
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	atomic_store(&b->ctl->res[idx].done, 1);
	for (int i = 0; i < neps; i++)
		b->sys->close(eps[i]);
	atomic_fetch_add(&b->ctl->arrived[2], 1);
}

static void json_str(FILE *f, const char *k, const char *v, int comma)
{
	fprintf(f, "  \"%s\": \"", k);
	for (; *v; v++)
		fprintf(f, (*v == '"' || *v == '\\') ? "\\%c" : "%c", *v);
	fprintf(f, "\"%s\n", comma ? "," : "");
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: zcast-bench --system S --case pingpong|continuous|fanout|overload|waitset|join|join_collide|container|service\n"
	        "       --name NAME --out DIR\n"
	        "       [--size 64|4K|1M..] [--mode transport|touch] [--spin] [--samples N] [--warmup N]\n"
	        "       [--cap-s SECONDS] [--subs S] [--rate HZ] [--timeout-s SECONDS]\n"
	        "       [--policy full|full_fail|drop_old] [--work-us US] [--sleep-us US] [--depth N]  (case overload)\n"
	        "       [--pairs T]  (case pingpong: T concurrent pairs on 2T topics)\n"
	        "       [--topics T]  (case waitset: T topics, 2 subscriber processes with one wait set each;\n"
	        "                      --rate = total msgs/s over all topics)\n"
	        "       [--busy N]  (case waitset: messages go to the first N topics only, the others stay idle)\n"
	        "       [--members M]  (case join: M members when the measured subscriber joins, 2..1024)\n"
	        "       [--rate HZ]  (case join_collide: publish rate while another process joins/leaves, >= 1000)\n"
	        "       [--containers P] [--topics T] [--seed N] [--cap-s SECONDS]  (case container: P processes\n"
	        "                      (default 16) over a generated graph of T topics (default 230), measured\n"
	        "                      for SECONDS; systems zcast and uds)\n"
	        "       [--clients C]  (case service: C client processes call one server; --size = request,\n"
	        "                      the response is 64 B; systems zcast floor iceoryx uds)\n"
	        "       [--pin]  (child i on the (i mod ncpu)-th allowed CPU)\n"
	        "       [--spin-us US]  (zcast, event mode: receivers spin US before sleeping; others skipped)\n"
	        "       [--wake all|chain|tree|thread]  (who wakes sleeping readers; floor: all four,\n"
	        "                      zcast: all|chain|tree, other systems: all)\n"
	        "systems:");
	for (size_t i = 0; i < sizeof systems / sizeof *systems; i++)
		fprintf(stderr, " %s", systems[i]->name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	zb_bench b = {.size = 64, .samples = 5000, .warmup = 200, .cap_s = 60, .subs = 1,
	              .rate_hz = 100, .pairs = 1, .seed = 1, .bytes_copied = -1, .op_timeout_ns = 10000000000LL};
	const char *sysname = NULL, *casename = NULL, *out = ".";
	double timeout_s = 300;
	static struct option lo[] = {
		{"system", 1, 0, 'S'}, {"case", 1, 0, 'c'}, {"name", 1, 0, 'n'}, {"out", 1, 0, 'o'},
		{"size", 1, 0, 'z'}, {"mode", 1, 0, 'm'}, {"spin", 0, 0, 'p'}, {"samples", 1, 0, 'N'},
		{"warmup", 1, 0, 'w'}, {"cap-s", 1, 0, 'C'}, {"subs", 1, 0, 's'}, {"rate", 1, 0, 'r'},
		{"timeout-s", 1, 0, 'T'}, {"policy", 1, 0, 'P'}, {"work-us", 1, 0, 'W'}, {"sleep-us", 1, 0, 'Z'}, {"depth", 1, 0, 'D'}, {"pairs", 1, 0, 'k'}, {"pin", 0, 0, 'A'},
		{"topics", 1, 0, 'K'}, {"busy", 1, 0, 'U'}, {"members", 1, 0, 'M'}, {"spin-us", 1, 0, 'B'}, {"wake", 1, 0, 'x'},
		{"containers", 1, 0, 'G'}, {"clients", 1, 0, 'L'}, {"seed", 1, 0, 'E'}, {0, 0, 0, 0}};
	int o;
	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'S': sysname = optarg; break;
		case 'c': casename = optarg; break;
		case 'n': b.name = optarg; break;
		case 'o': out = optarg; break;
		case 'z': b.size = zb_parse_size(optarg); break;
		case 'm': b.mode = !strcmp(optarg, "touch") ? ZB_TOUCH : ZB_TRANSPORT; break;
		case 'p': b.spin = 1; break;
		case 'N': b.samples = atol(optarg); break;
		case 'w': b.warmup = atol(optarg); break;
		case 'C': b.cap_s = atof(optarg); break;
		case 's': b.subs = atoi(optarg); break;
		case 'r': b.rate_hz = atof(optarg); break;
		case 'T': timeout_s = atof(optarg); break;
		case 'P':
			b.drop_old = !strcmp(optarg, "drop_old");
			b.fail_full = !strcmp(optarg, "full_fail");
			if (!b.drop_old && !b.fail_full && strcmp(optarg, "full"))
				usage();
			break;
		case 'A': b.pin = 1; break;
		case 'k': b.pairs = atoi(optarg); break;
		case 'K': b.topics = atoi(optarg); break;
		case 'U': b.busy = atoi(optarg); break;
		case 'M': b.members = atoi(optarg); break;
		case 'G': b.containers = atoi(optarg); break;
		case 'L': b.clients = atoi(optarg); break;
		case 'E': b.seed = atol(optarg); break;
		case 'W': b.work_ns = (int64_t)(atof(optarg) * 1000); break;
		case 'Z': b.sleep_ns = (int64_t)(atof(optarg) * 1000); break;
		case 'D': b.depth = atoi(optarg); break;
		case 'B': b.spin_ns = (int64_t)(atof(optarg) * 1000); break;
		case 'x':
			b.wake = -1;
			for (int i = 0; i <= ZB_WAKE_THREAD; i++)
				if (!strcmp(optarg, zb_wake_names[i]))
					b.wake = i;
			if (b.wake < 0)
				usage();
			break;
		default: usage();
		}
	}
	for (size_t i = 0; sysname && i < sizeof systems / sizeof *systems; i++)
		if (!strcmp(systems[i]->name, sysname))
			b.sys = systems[i];
	const zb_case *cs = NULL;
	for (size_t i = 0; casename && i < sizeof cases / sizeof *cases; i++)
		if (!strcmp(cases[i]->name, casename))
			cs = cases[i];
	if (!cs || !b.name || b.size < sizeof(zb_hdr) || b.subs < 1 || b.subs >= ZB_MAX_CHILDREN ||
	    b.pairs < 1 || 2 * b.pairs > ZB_MAX_CHILDREN ||
	    b.clients < 0 || b.clients >= ZB_MAX_CHILDREN || b.topics < 0 || b.topics > 4096)
		usage();

	char path[4096], why[256] = "";
	const char *status = "ok";
	int nchild = cs->setup(&b);
	if (b.spin_ns && sysname && strcmp(sysname, "zcast"))
		b.skip = "--spin-us: only zcast has a spin-then-sleep wait";
	int rc = 0;
	if (!b.sys) {
		status = "skipped";
		snprintf(why, sizeof why, "system %s not built", sysname);
	} else if (b.skip) {
		status = "skipped";
		snprintf(why, sizeof why, "%s", b.skip);
	}
	int prepared = 0;
	for (; b.sys && !b.skip && prepared < b.nch; prepared++)
		if (b.sys->prepare(&b.ch[prepared], &b.shared[prepared], why, sizeof why)) {
			status = "skipped";
			break;
		}
	if (!strcmp(status, "ok")) {
		b.ctl = zb_ctl_create((b.samples + b.warmup + 16) * (b.rows_per_msg ? b.rows_per_msg : b.subs + 1) *
		                      b.pairs);
		b.ctl->nchildren = nchild;
		int r = zb_run_children(nchild, cs->child, &b, (int64_t)(timeout_s * 1e9), b.ctl);
		if (r == 1)
			snprintf(why, sizeof why, "measurement complete; teardown hung and was killed");
		if (r < 0) {
			status = "failed";
			for (int i = 0; i < nchild; i++)
				if (b.ctl->res[i].status)
					snprintf(why, sizeof why, "child %d: %s", i, b.ctl->res[i].err);
			if (!why[0])
				snprintf(why, sizeof why, "a child crashed or timed out");
			rc = 1;
		} else {
			cs->finish(&b);
		}
	}
	for (int i = 0; i < prepared; i++)
		b.sys->cleanup(&b.ch[i], b.shared[i]);

	long nsamp = b.ctl ? atomic_load(&b.ctl->nsamples) : 0;
	if (b.ctl && !strcmp(status, "ok")) {
		snprintf(path, sizeof path, "%s/%s__%s.csv", out, b.name, sysname);
		if (zb_write_csv(path, b.ctl))
			perror(path);
	}
	int64_t minflt = 0;
	for (int i = 0; b.ctl && i < nchild; i++)
		minflt += b.ctl->res[i].minflt;
	/* cpu_pct: sum over the children of (CPU time / wall time of its measured phase), as a share of
	 * all CPUs this driver may run on (100 = every core busy); -1 = not measured by this case. */
	double cpu_pct = -1, cpu_s = 0;
	cpu_set_t aff;
	int ncpu = !sched_getaffinity(0, sizeof aff, &aff) ? CPU_COUNT(&aff) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	for (int i = 0; b.ctl && !strcmp(status, "ok") && i < nchild; i++)
		if (b.ctl->res[i].wall_ns > 0) {
			if (cpu_pct < 0)
				cpu_pct = 0;
			cpu_pct += 100.0 * (double)b.ctl->res[i].cpu_ns / (double)b.ctl->res[i].wall_ns / ncpu;
			cpu_s += b.ctl->res[i].cpu_ns / 1e9;
		}
	snprintf(path, sizeof path, "%s/%s__%s.json", out, b.name, sysname);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "{\n");
	json_str(f, "case", b.name, 1);
	json_str(f, "kind", cs->name, 1);
	json_str(f, "system", sysname, 1);
	json_str(f, "status", status, 1);
	json_str(f, "reason", why, 1);
	fprintf(f, "  \"size\": %zu,\n  \"mode\": \"%s\",\n  \"spin\": %d,\n  \"subs\": %d,\n  \"pairs\": %d,\n  \"topics\": %d,\n  \"busy\": %d,\n  \"pin\": %d,\n", b.size,
	        b.mode == ZB_TOUCH ? "touch" : "transport", b.spin, b.subs, b.pairs, b.topics, b.busy, b.pin);
	fprintf(f, "  \"rate_hz\": %g,\n  \"samples_requested\": %ld,\n  \"warmup\": %ld,\n  \"cap_s\": %g,\n",
	        b.rate_hz, b.samples, b.warmup, b.cap_s);
	fprintf(f, "  \"rows\": %ld,\n  \"published\": %ld,\n  \"received\": %ld,\n  \"failed\": %ld,\n", nsamp,
	        b.published, b.received, b.failed);
	fprintf(f, "  \"msgs_per_s\": %.3f,\n  \"policy\": \"%s\",\n  \"work_ns\": %lld,\n", b.msgs_per_s,
	        b.drop_old ? "drop_old" : b.fail_full ? "full_fail" : "full", (long long)b.work_ns);
	fprintf(f, "  \"sleep_ns\": %lld,\n  \"depth\": %d,\n  \"spin_ns\": %lld,\n  \"members\": %d,\n",
	        (long long)b.sleep_ns, b.depth, (long long)b.spin_ns, b.members);
	fprintf(f, "  \"containers\": %d,\n  \"seed\": %ld,\n", b.containers, b.seed);
	fprintf(f, "  \"clients\": %d,\n  \"bytes_copied\": %ld,\n", b.clients, b.bytes_copied);
	json_str(f, "wake", zb_wake_names[b.wake], 1);
	fprintf(f, "  \"cpu_pct\": %.3f,\n  \"cpu_s\": %.6f,\n  \"cpu_cores\": %d,\n", cpu_pct, cpu_s, ncpu);
	fprintf(f, "  \"minflt_per_msg\": %.6f\n}\n",
	        b.messages > 0 ? (double)minflt / (double)b.messages : 0.0);
	fclose(f);
	if (cpu_pct >= 0)
		printf("%-24s %-8s %-7s %ld rows cpu %.1f%% of %d cores %s\n", b.name, sysname, status, nsamp, cpu_pct,
		       ncpu, why);
	else
		printf("%-24s %-8s %-7s %ld rows %s\n", b.name, sysname, status, nsamp, why);
	return rc;
}
