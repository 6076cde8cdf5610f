/* Chaos for services: two server processes and three client processes of one service; every few
 * milliseconds one of them, at random, is kill -9'ed and replaced, for ZCAST_CHAOS_KILLS rounds
 * (default 300, 5000 with ZCAST_LONG=1). Clients call without a timeout (zcast_client_call, -1),
 * so an outcome a death owes and never delivers shows as a hang: each call must end with its
 * response (the sum of its own operands, which name the client and the call: a response that
 * reached another client fails) or with ZCAST_ESRVGONE (its server was killed with it). Watchdog:
 * after every round each client that was there before it must finish another call within 15 s,
 * else the test fails naming it; a member that dies by itself fails the test at once. At the end
 * the clients and then the servers stop by themselves (exit 0), a gc finds whatever the killed
 * left behind, and no segment of the domain may remain: every request and response slot came back
 * with its pool. Reports how many kills landed inside a call. */
#include <signal.h>

#include "zt_svc_tolerant.h"

#define N_SERVERS 2
#define N_CLIENTS 3
#define N_MEMBERS (N_SERVERS + N_CLIENTS)
#define STUCK_S 15
#define SERVICE "/svc/chaos"

struct shared {
	_Atomic uint64_t progress[N_MEMBERS]; /* clients: calls finished */
	_Atomic uint64_t gone[N_MEMBERS];     /* clients: calls that ended with ZCAST_ESRVGONE */
	_Atomic int in_call[N_MEMBERS];
	_Atomic int stop_clients, stop_servers;
	_Atomic uint64_t served;
};
static struct shared *sh;
static pid_t pids[N_MEMBERS];
static struct zt_tolerant srv_arg;

static int client_main(void *arg)
{
	int me = (int)(intptr_t)arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &cli), 0);
	for (int64_t i = 1; !atomic_load(&sh->stop_clients); i++) {
		int64_t a = i, b = (int64_t)getpid() << 24;
		zcast_msg *resp = NULL;
		atomic_store(&sh->in_call[me], 1);
		int r = zcast_client_call(cli, zt_request(cli, OP_ADD, a, b), -1, &resp);
		atomic_store(&sh->in_call[me], 0);
		if (r == 0) {
			CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, a + b);
			zcast_msg_drop(resp);
		} else {
			if (r != ZCAST_ESRVGONE)
				fprintf(stderr, "client %d: call %lld: %s (%s)\n", me, (long long)i,
					zcast_strerror(r), zcast_last_error());
			CHECK_EQ(r, ZCAST_ESRVGONE);
			if (resp)
				zcast_msg_drop(resp);
			atomic_fetch_add(&sh->gone[me], 1);
		}
		CHECK_EQ(zcast_client_pending(cli), 0);
		atomic_fetch_add(&sh->progress[me], 1);
	}
	CHECK_EQ(zcast_client_close(cli), 0);
	return 0;
}

static pid_t start(int m)
{
	if (m >= N_SERVERS)
		return zt_fork(client_main, (void *)(intptr_t)m);
	int p[2];
	CHECK_EQ(pipe(p), 0);
	srv_arg = (struct zt_tolerant){.s = {.service = SERVICE, .ready_w = p[1], .took_w = -1, .start_r = -1},
				       .stop = &sh->stop_servers,
				       .served = &sh->served};
	pid_t pid = zt_fork(zt_tolerant_server, &srv_arg);
	zt_get_byte(p[0]);
	close(p[0]);
	close(p[1]);
	return pid;
}

/* No member may have died by itself. */
static void check_alive(void)
{
	for (int m = 0; m < N_MEMBERS; m++) {
		int st;
		if (waitpid(pids[m], &st, WNOHANG) == pids[m]) {
			char how[64];
			zt_describe_status(how, sizeof how, st);
			fprintf(stderr, "FAIL: %s %d died by itself (%s)\n", m < N_SERVERS ? "server" : "client", m,
				how);
			zt_fail();
		}
	}
}

/* Every client but `fresh` finishes another call within STUCK_S. */
static void watchdog(int fresh, uint64_t before[N_MEMBERS])
{
	for (int m = N_SERVERS; m < N_MEMBERS; m++) {
		if (m == fresh)
			continue;
		int ms = 0;
		while (atomic_load(&sh->progress[m]) == before[m] && ms < STUCK_S * 1000) {
			zt_sleep_ms(1);
			ms++;
		}
		if (atomic_load(&sh->progress[m]) == before[m]) {
			fprintf(stderr, "FAIL: client %d made no call in %d s (in a call: %d)\n", m, STUCK_S,
				atomic_load(&sh->in_call[m]));
			zt_fail();
		}
	}
}

int main(void)
{
	const char *long_run = getenv("ZCAST_LONG");
	const char *k = getenv("ZCAST_CHAOS_KILLS");
	int kills = k ? atoi(k) : long_run && long_run[0] == '1' ? 5000 : 300;
	zt_setup("svc_chaos", 280 + (unsigned)kills / 10);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	for (int m = 0; m < N_MEMBERS; m++)
		pids[m] = start(m);
	srand((unsigned)getpid());
	int in_call = 0;
	for (int round = 0; round < kills; round++) {
		uint64_t before[N_MEMBERS];
		for (int m = 0; m < N_MEMBERS; m++)
			before[m] = atomic_load(&sh->progress[m]);
		zt_sleep_ms(1 + rand() % 4);
		check_alive();
		int victim = rand() % N_MEMBERS;
		in_call += victim >= N_SERVERS && atomic_load(&sh->in_call[victim]);
		CHECK_EQ(kill(pids[victim], SIGKILL), 0);
		int st = zt_wait_bounded(pids[victim], 10000, "a killed member");
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		atomic_store(&sh->in_call[victim], 0);
		pids[victim] = start(victim);
		watchdog(victim, before);
	}
	/* The clients stop by themselves (their last calls are answered: the servers still run),
	 * then the servers. */
	atomic_store(&sh->stop_clients, 1);
	for (int m = N_SERVERS; m < N_MEMBERS; m++)
		CHECK_EQ(zt_wait_bounded(pids[m], STUCK_S * 1000, "a stopping client"), 0);
	atomic_store(&sh->stop_servers, 1);
	for (int m = 0; m < N_SERVERS; m++)
		CHECK_EQ(zt_wait_bounded(pids[m], STUCK_S * 1000, "a stopping server"), 0);
	zt_gc_domain(); /* what the killed left */
	CHECK_EQ(zt_shm_count(), 0);
	uint64_t calls = 0, gone = 0;
	for (int m = N_SERVERS; m < N_MEMBERS; m++)
		calls += atomic_load(&sh->progress[m]), gone += atomic_load(&sh->gone[m]);
	printf("PASS svc_chaos: %d kills (%d of a client inside a call), %llu calls finished, "
	       "%llu of them with ZCAST_ESRVGONE, %llu requests taken\n",
	       kills, in_call, (unsigned long long)calls, (unsigned long long)gone,
	       (unsigned long long)atomic_load(&sh->served));
	return 0;
}
