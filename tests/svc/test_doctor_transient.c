/* Services (issue 23): `zcast doctor` reports no live service's state. While a server answers and
 * client processes open a client, call and close again and again (every client instance creates
 * its response topic and removes it), doctor runs again and again and must find nothing in the
 * domain. Then, with the server gone, a client is killed: doctor must report its response topic
 * (a client that died) with exit status 6. The tool is $ZCAST_TOOL (tests/svc-doctor.cmake), or
 * tools/zcast of the build tree this test lives in. */
#include <stdbool.h>

#include "zt_svc.h"
#include "zt_tool.h"

#define SERVICE "/dtr/svc"
#define CLIENTS 2
#define DOCTOR_RUNS 30

static char tool[4096];

/* Runs doctor on the test's domain; its output in out, its exit status returned. */
static int doctor(char *out, size_t n)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "'%s' -d %s doctor 2>&1", tool, zt_domain());
	FILE *f = popen(cmd, "r");
	CHECK(f != NULL);
	size_t len = fread(out, 1, n - 1, f);
	out[len] = 0;
	int st = pclose(f);
	CHECK(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The first finding (a PROBLEM or WARN line) about the test's domain at or after `from`, or NULL.
 * Findings about the host (/dev/shm, kernel features) are not this test's. */
static const char *finding(const char *from)
{
	for (const char *l = from; *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)len, l);
		if ((!strncmp(line, "PROBLEM ", 8) || !strncmp(line, "WARN ", 5)) &&
		    strstr(line, zt_domain()))
			return l;
		l += len + (end != NULL);
	}
	return NULL;
}

struct looper {
	_Atomic int *stop;
	_Atomic uint64_t *calls;
};

/* A client process: a new client instance for every few calls, until told to stop. */
static int looper_main(void *arg)
{
	struct looper *l = arg;
	while (!atomic_load(l->stop)) {
		zcast_client *cli;
		CHECK_EQ(zcast_client_open(SERVICE, NULL, &cli), 0);
		for (int i = 0; i < 3; i++) {
			zt_call_add(cli, i, getpid());
			atomic_fetch_add(l->calls, 1);
		}
		CHECK_EQ(zcast_client_close(cli), 0);
	}
	return 0;
}

static int killed_main(void *arg)
{
	int ready_w = *(int *)arg;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &cli), 0);
	zt_put_byte(ready_w);
	for (;;)
		pause();
}

int main(void)
{
	zt_setup("doctortr", 60);
	zt_tool_path(tool, sizeof tool);
	static char out[1 << 16];
	_Atomic int *stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				 -1, 0);
	CHECK(stop != MAP_FAILED);
	_Atomic uint64_t *calls = (_Atomic uint64_t *)(void *)((char *)stop + 64);

	struct zt_server s = {.service = SERVICE, .took_w = -1, .start_r = -1};
	pid_t srv = zt_start_server(&s);
	struct looper l = {stop, calls};
	pid_t loopers[CLIENTS];
	for (int i = 0; i < CLIENTS; i++)
		loopers[i] = zt_fork(looper_main, &l);
	for (int run = 0; run < DOCTOR_RUNS; run++) {
		int rc = doctor(out, sizeof out);
		const char *f = finding(out);
		if (rc != 0 || f) {
			fprintf(stderr, "FAIL: doctor run %d (exit %d) reports a live service:\n%s",
				run, rc, out);
			zt_fail();
		}
	}
	uint64_t before = atomic_load(calls);
	atomic_store(stop, 1);
	for (int i = 0; i < CLIENTS; i++)
		CHECK_CHILD_OK(loopers[i]);
	CHECK(before > 0); /* the clients were calling while doctor ran */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &cli), 0);
	zt_stop_server(cli, srv);
	CHECK_EQ(zcast_client_close(cli), 0);
	CHECK_EQ(doctor(out, sizeof out), 0);
	CHECK(finding(out) == NULL);

	/* No server left to remove it: a killed client's response topic stays, and is reported. */
	int p[2];
	CHECK_EQ(pipe(p), 0);
	pid_t victim = zt_fork(killed_main, &p[1]);
	zt_get_byte(p[0]);
	CHECK_EQ(kill(victim, SIGKILL), 0);
	CHECK_EQ(waitpid(victim, NULL, 0), victim);
	CHECK_EQ(doctor(out, sizeof out), 6);
	const char *f = finding(out);
	bool dead_client = false;
	for (; f; f = strchr(f, '\n') ? finding(strchr(f, '\n') + 1) : NULL)
		dead_client |= !strncmp(f, "PROBLEM ", 8) && strstr(f, SERVICE "/_rs/c") &&
			       strstr(f, "response topic of a client of " SERVICE " that died") &&
			       strstr(f, "response topic") < strchr(f, '\n');
	if (!dead_client) {
		fprintf(stderr, "FAIL: doctor does not report the killed client's topic:\n%s", out);
		zt_fail();
	}
	printf("doctor_transient: %d doctor runs during %llu calls, then the killed client found\n",
	       DOCTOR_RUNS, (unsigned long long)before);
	return 0;
}
