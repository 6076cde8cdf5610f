/* Tests that hold a race window open with ZCAST_PAUSE_AT (test builds): is a process's main thread
 * asleep in that pause right now? Or, deterministic under any load, a hold: the process stays at
 * the point until the test lets it go. */
#ifndef ZT_PAUSE_H
#define ZT_PAUSE_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

/* The pause sleeps in nanosleep (clock_nanosleep on x86-64 is syscall 230, nanosleep 35). */
static inline bool zt_in_pause(pid_t pid)
{
	char path[64], buf[64] = {0};
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool yes = fgets(buf, sizeof buf, f) &&
		   (strncmp(buf, "230 ", 4) == 0 || strncmp(buf, "35 ", 3) == 0);
	fclose(f);
	return yes;
}

/* A hold (ZCAST_PAUSE_AT=<point>:hold:<fd>, src/os/crash.c): the first arrival at the point says so
 * on its end of a socket pair and waits there for the test's byte. Made before the fork. */
struct zt_hold {
	int test_end, held_end;
};

static inline void zt_hold_init(struct zt_hold *h)
{
	int sv[2];
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*h = (struct zt_hold){sv[0], sv[1]};
}

/* In the test itself, before the library starts a thread (setenv is unsafe beside their getenv):
 * the next arrival of one of the test's own threads at `point` holds it. */
static inline void zt_hold_own(struct zt_hold *h, const char *point)
{
	char v[160];
	snprintf(v, sizeof v, "%s:hold:%d", point, h->held_end);
	setenv("ZCAST_PAUSE_AT", v, 1);
}

/* In the process to hold (a child of the test): the next arrival of the calling thread at `point`
 * holds it (the process's death watcher may take the same lock first: it passes). Once it let go,
 * unset ZCAST_PAUSE_AT before anything else can reach the point in a way the test does not
 * expect. */
static inline void zt_hold_at(struct zt_hold *h, const char *point)
{
	close(h->test_end); /* the test's end is the test's: a test that dies lets the hold go (EOF) */
	char v[160]; /* this thread only: the process's watcher thread takes the same locks */
	snprintf(v, sizeof v, "%s:hold:%d:%ld", point, h->held_end, (long)syscall(SYS_gettid));
	setenv("ZCAST_PAUSE_AT", v, 1);
}

/* In the test: waits until the process is held at its point (it stays there). */
static inline void zt_hold_reached(struct zt_hold *h)
{
	char c;
	CHECK_EQ(read(h->test_end, &c, 1), 1);
}

/* In the test: lets the held process go on. */
static inline void zt_hold_release(struct zt_hold *h)
{
	char c = 1;
	CHECK_EQ(write(h->test_end, &c, 1), 1);
}

#endif
