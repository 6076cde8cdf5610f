#include "common.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

volatile uint64_t zb_sink;
int64_t zb_take_ns = -1;

void zb_fill(void *buf, size_t size, const zb_hdr *h, int mode)
{
	unsigned char *p = buf;
	if (mode == ZB_TOUCH)
		memset(p, (int)(h->seq & 0xff) | 1, size);
	else
		p[size - 1] = (unsigned char)(h->seq | 1);
	memcpy(p, h, sizeof *h);
}

uint64_t zb_consume(const void *buf, size_t size, zb_hdr *h, int mode)
{
	const unsigned char *p = buf;
	memcpy(h, p, sizeof *h);
	uint64_t sum = p[size - 1];
	if (mode == ZB_TOUCH) {
		const uint64_t *w = (const uint64_t *)p;
		size_t n = size / 8;
		for (size_t i = 0; i < n; i++)
			sum += w[i];
	}
	return sum;
}

zb_ctl *zb_ctl_create(long cap)
{
	size_t len = sizeof(zb_ctl) + (size_t)cap * sizeof(zb_sample);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	zb_ctl *c = m;
	c->cap = cap;
	return c;
}

int zb_ctl_add(zb_ctl *c, const zb_sample *s)
{
	long i = atomic_fetch_add(&c->nsamples, 1);
	if (i >= c->cap) {
		atomic_fetch_sub(&c->nsamples, 1);
		return -1;
	}
	c->samples[i] = *s;
	return 0;
}

int zb_barrier(zb_ctl *c, int gen, int64_t timeout_ns)
{
	atomic_fetch_add(&c->arrived[gen], 1);
	int64_t end = zb_now() + timeout_ns;
	while (atomic_load(&c->arrived[gen]) < c->nchildren) {
		if (atomic_load(&c->abort) || zb_now() > end)
			return -1;
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

void zb_fail(zb_ctl *c, int idx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->res[idx].err, sizeof c->res[idx].err, fmt, ap);
	va_end(ap);
	c->res[idx].status = 1;
	atomic_store(&c->abort, 1);
	fprintf(stderr, "zcast-bench: child %d: %s\n", idx, c->res[idx].err);
}

int64_t zb_cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int64_t zb_minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int zb_run_children(int n, int (*fn)(int idx, void *arg), void *arg, int64_t timeout_ns, zb_ctl *ctl)
{
	pid_t pgid = 0;
	int bad = 0;
	pid_t parent = getpid();
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			bad = 1;
			n = i;
			break;
		}
		if (p == 0) {
			setpgid(0, pgid);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(99);
			int rc = fn(i, arg);
			/* exit(), not _exit(): static destructors let iceoryx's runtime deregister */
			exit(rc ? 1 : 0);
		}
		setpgid(p, pgid); /* both sides: no race on the group */
		if (!pgid)
			pgid = p;
	}
	int64_t end = zb_now() + timeout_ns;
	int left = n, killed = 0, teardown = 0;
	while (left > 0) {
		int st;
		pid_t p = waitpid(-pgid, &st, WNOHANG);
		if (p > 0) {
			left--;
			if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !(killed && teardown)) {
				if (!bad)
					fprintf(stderr, "zcast-bench: child pid %d failed (%s %d)\n", (int)p,
					        WIFEXITED(st) ? "exit" : "signal",
					        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
				bad = 1;
				kill(-pgid, SIGKILL);
			}
			continue;
		}
		if (p < 0 && errno == ECHILD)
			break;
		if (!teardown && !killed) {
			int d = 0;
			for (int i = 0; i < n; i++)
				d += atomic_load(&ctl->res[i].done);
			if (d == n) { /* all measured: the rest is teardown */
				teardown = 1;
				if (end > zb_now() + 10000000000LL)
					end = zb_now() + 10000000000LL;
			}
		}
		if (zb_now() > end) {
			if (killed)
				break; /* reaping is bounded too */
			fprintf(stderr, "zcast-bench: %s timed out, killing process group %d\n",
			        teardown ? "teardown" : "run", (int)pgid);
			kill(-pgid, SIGKILL);
			killed = 1;
			if (!teardown)
				bad = 1;
			end = zb_now() + 5000000000LL;
		}
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	return bad ? -1 : killed ? 1 : 0;
}

int zb_write_csv(const char *path, zb_ctl *c)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "seq,sub,t_send_ns,t_recv_ns,lat_ns\n");
	long n = atomic_load(&c->nsamples);
	for (long i = 0; i < n; i++) {
		zb_sample *s = &c->samples[i];
		fprintf(f, "%lld,%d,%lld,%lld,%lld\n", (long long)s->seq, s->sub, (long long)s->t_send,
		        (long long)s->t_recv, (long long)s->lat);
	}
	return fclose(f);
}

size_t zb_parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end == 'K' || *end == 'k')
		v *= 1024;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024;
	else if (*end == 'G' || *end == 'g')
		v *= 1024.0 * 1024 * 1024;
	return (size_t)v;
}
