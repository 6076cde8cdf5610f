/* Scribbler for services (hostile shared memory while calls run): a server process and two client
 * processes call and answer, while a scribbler process rewrites the 64-byte service header of
 * slots at random — magic, kind, client id, nonce, sequence — in every pool of the domain
 * (requests, responses, markers). Mostly it toggles a field to a bad value and back after a few
 * microseconds (the window between a check and a use); sometimes it leaves it bad.
 *
 * Invariants: no member crashes (each exits 0 when told to stop); every call returns 0 or a
 * defined ZCAST_E* code within its bounded timeout (watchdog: 30 s); a call that returns 0 got the
 * sum of its own operands (a scribbled header never makes another call's response, or a request
 * that is not this call's, answer it); once the scribbler stops, calls succeed again; when all
 * closed, a gc leaves nothing in /dev/shm. Runs ZCAST_SCRIBBLE_SECONDS (default 5, 60 with
 * ZCAST_LONG=1); ZCAST_SEED repeats a run's scribbling. */
#include <dirent.h>
#include <signal.h>

#include "zt_seg.h"
#include "zt_svc_tolerant.h"

#define SERVICE "/svc/scribble"
#define N_CLIENTS 2
#define CALL_NS 200000000ll /* 200 ms: a call whose request or response was spoilt times out */
#define STUCK_NS 30000000000ll

struct shared {
	_Atomic int stop_clients, stop_servers, stop_scribbler;
	_Atomic int64_t call_start[N_CLIENTS]; /* 0 outside a call */
	_Atomic uint64_t calls[N_CLIENTS], ok[N_CLIENTS], timeouts[N_CLIENTS], other[N_CLIENTS];
	_Atomic uint64_t writes;
	_Atomic uint64_t served;
	_Atomic int said; /* other errors printed */
};
static struct shared *sh;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int client_main(void *arg)
{
	int me = (int)(intptr_t)arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &cli), 0);
	for (int64_t i = 1; !atomic_load(&sh->stop_clients); i++) {
		int64_t a = i, b = (int64_t)(me + 1) << 32;
		zcast_msg *resp = NULL, *req;
		atomic_store(&sh->call_start[me], now_ns());
		int r = zcast_request_loan(cli, sizeof(struct add_req), &req);
		if (r == 0) {
			*(struct add_req *)zcast_service_data(req) = (struct add_req){.op = OP_ADD, .a = a, .b = b};
			r = zcast_client_call(cli, req, CALL_NS, &resp);
		}
		atomic_store(&sh->call_start[me], 0);
		atomic_fetch_add(&sh->calls[me], 1);
		if (r == 0) {
			CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, a + b);
			atomic_fetch_add(&sh->ok[me], 1);
		} else {
			CHECK(r < 0 && zcast_strerror(r) != NULL);
			atomic_fetch_add(r == ZCAST_ETIMEDOUT ? &sh->timeouts[me] : &sh->other[me], 1);
			if (r != ZCAST_ETIMEDOUT && atomic_fetch_add(&sh->said, 1) < 5)
				printf("# client %d: %s (%s)\n", me, zcast_strerror(r), zcast_last_error());
		}
		if (resp)
			zcast_msg_drop(resp);
	}
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

/* One pool file of the domain, mapped. */
struct pool {
	uint8_t *p;
	size_t size;
};

/* Maps up to `max` pool files of the test's domain ("zcast.<domain>.@..."). */
static int map_pools(struct pool *pools, int max)
{
	char prefix[96];
	snprintf(prefix, sizeof prefix, "zcast.%s.@", zt_domain());
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) && n < max) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		char path[320];
		snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct zc_pool_hdr)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (p != MAP_FAILED)
			pools[n++] = (struct pool){p, (size_t)st.st_size};
	}
	if (d)
		closedir(d);
	return n;
}

/* The service header of a random slot of the pool, or NULL (a header that does not fit). */
static uint8_t *random_header(const struct pool *pl)
{
	const struct zc_pool_hdr *h = (const struct zc_pool_hdr *)pl->p;
	uint64_t count = h->slot_count, size = h->slot_size, off = h->payload_off;
	if (count == 0 || size < ZCAST_SERVICE_HEADER || off >= pl->size)
		return NULL;
	uint64_t at = off + (uint64_t)(rand() % (int)(count > 1024 ? 1024 : count)) * size;
	return at + ZCAST_SERVICE_HEADER <= pl->size ? pl->p + at : NULL;
}

static const struct {
	unsigned off, len;
} fields[] = {{0, 4}, {4, 4}, {8, 8}, {16, 4}, {24, 8}}; /* magic kind client_id nonce seq */

static uint64_t bad_value(uint64_t old)
{
	switch (rand() % 5) {
	case 0: return 0;
	case 1: return ~0ull;
	case 2: return old + 1;
	case 3: return old - 1;
	default: return ((uint64_t)rand() << 32) ^ (uint64_t)rand();
	}
}

static int scribbler_main(void *arg)
{
	(void)arg;
	struct pool pools[64];
	int n = 0;
	for (unsigned round = 0; !atomic_load(&sh->stop_scribbler); round++) {
		if (round % 256 == 0) { /* clients and routes come and go: look again */
			for (int i = 0; i < n; i++)
				munmap(pools[i].p, pools[i].size);
			n = map_pools(pools, 64);
		}
		if (n == 0) {
			zt_sleep_ms(1);
			continue;
		}
		uint8_t *hdr = random_header(&pools[rand() % n]);
		if (!hdr)
			continue;
		int f = rand() % (int)(sizeof fields / sizeof fields[0]);
		uint8_t *at = hdr + fields[f].off;
		uint64_t old = 0, bad;
		memcpy(&old, at, fields[f].len);
		bad = bad_value(old);
		memcpy(at, &bad, fields[f].len);
		atomic_fetch_add(&sh->writes, 1);
		struct timespec ts = {0, (rand() % 50) * 1000};
		nanosleep(&ts, NULL);
		if (rand() % 8) /* put it back, unless the slot was written meanwhile */
			if (!memcmp(at, &bad, fields[f].len))
				memcpy(at, &old, fields[f].len);
	}
	return 0;
}

static pid_t start_server(void)
{
	static struct zt_tolerant s;
	int p[2];
	CHECK_EQ(pipe(p), 0);
	s = (struct zt_tolerant){.s = {.service = SERVICE, .ready_w = p[1], .took_w = -1, .start_r = -1},
				 .stop = &sh->stop_servers,
				 .served = &sh->served};
	pid_t pid = zt_fork(zt_tolerant_server, &s);
	zt_get_byte(p[0]);
	close(p[0]);
	close(p[1]);
	return pid;
}

/* No call may last beyond STUCK_NS; nobody may die by itself. */
static void watch(pid_t *pids, int n)
{
	for (int c = 0; c < N_CLIENTS; c++) {
		int64_t t0 = atomic_load(&sh->call_start[c]);
		if (t0 && now_ns() - t0 > STUCK_NS) {
			fprintf(stderr, "FAIL: client %d stuck in a call for 30 s\n", c);
			zt_fail();
		}
	}
	for (int i = 0; i < n; i++) {
		int st;
		if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
			char how[64];
			zt_describe_status(how, sizeof how, st);
			fprintf(stderr, "FAIL: member %d died by itself (%s), %llu fields written\n", i, how,
				(unsigned long long)atomic_load(&sh->writes));
			zt_fail();
		}
	}
}

int main(void)
{
	const char *l = getenv("ZCAST_LONG"), *secs_env = getenv("ZCAST_SCRIBBLE_SECONDS");
	const char *seed_env = getenv("ZCAST_SEED");
	int secs = secs_env ? atoi(secs_env) : l && l[0] == '1' ? 60 : 5;
	unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)getpid();
	zt_setup("svc_scribble", 120 + (unsigned)secs * 2);
	printf("# ZCAST_SEED=%u\n", seed);
	srand(seed);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	pid_t pids[2 + N_CLIENTS];
	pids[0] = start_server();
	for (int c = 0; c < N_CLIENTS; c++)
		pids[1 + c] = zt_fork(client_main, (void *)(intptr_t)c);
	pids[1 + N_CLIENTS] = zt_fork(scribbler_main, NULL);
	for (int64_t end = now_ns() + (int64_t)secs * 1000000000ll; now_ns() < end;) {
		zt_sleep_ms(10);
		watch(pids, 2 + N_CLIENTS);
	}
	atomic_store(&sh->stop_scribbler, 1);
	CHECK_EQ(zt_wait_bounded(pids[1 + N_CLIENTS], 10000, "the scribbler"), 0);
	/* Unspoilt again: every client gets an answer once more. */
	uint64_t ok[N_CLIENTS];
	for (int c = 0; c < N_CLIENTS; c++)
		ok[c] = atomic_load(&sh->ok[c]);
	for (int c = 0; c < N_CLIENTS; c++)
		for (int ms = 0; atomic_load(&sh->ok[c]) == ok[c]; ms++) {
			CHECK(ms < 30000);
			watch(pids, 1 + N_CLIENTS);
			zt_sleep_ms(1);
		}
	atomic_store(&sh->stop_clients, 1);
	for (int c = 0; c < N_CLIENTS; c++)
		CHECK_EQ(zt_wait_bounded(pids[1 + c], 30000, "a stopping client"), 0);
	atomic_store(&sh->stop_servers, 1);
	CHECK_EQ(zt_wait_bounded(pids[0], 30000, "the stopping server"), 0);
	zt_gc_domain();
	CHECK_EQ(zt_shm_count(), 0);
	uint64_t calls = 0, oks = 0, tmo = 0, other = 0;
	for (int c = 0; c < N_CLIENTS; c++) {
		calls += atomic_load(&sh->calls[c]);
		oks += atomic_load(&sh->ok[c]);
		tmo += atomic_load(&sh->timeouts[c]);
		other += atomic_load(&sh->other[c]);
	}
	printf("PASS svc_scribble: %llu header fields scribbled, %llu calls: %llu answered, %llu timed out, "
	       "%llu other errors\n",
	       (unsigned long long)atomic_load(&sh->writes), (unsigned long long)calls,
	       (unsigned long long)oks, (unsigned long long)tmo, (unsigned long long)other);
	return 0;
}
