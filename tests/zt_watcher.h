/* What this process's death watcher follows, seen from outside the library: its epoll set tags each
 * peer's pidfd with the peer's pid (src/core/deaths.c), and /proc/self/fdinfo of an epoll
 * descriptor lists every entry's tag ("data:", hex). A test that needs the watcher to have followed
 * a join, or to have nothing left to do, waits for these instead of sleeping a while. */
#ifndef ZT_WATCHER_H
#define ZT_WATCHER_H

#include <dirent.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "harness.h"

/* Does an epoll set of this process hold an entry tagged `pid`? */
static inline bool zt_watcher_follows(pid_t pid)
{
	bool found = false;
	DIR *d = opendir("/proc/self/fd");
	CHECK(d != NULL);
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		char path[300], target[64] = {0}, line[256];
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		if (readlink(path, target, sizeof target - 1) <= 0 ||
		    strcmp(target, "anon_inode:[eventpoll]") != 0)
			continue;
		snprintf(path, sizeof path, "/proc/self/fdinfo/%s", e->d_name);
		FILE *f = fopen(path, "r");
		while (f && !found && fgets(line, sizeof line, f)) {
			const char *data = strstr(line, "data:");
			unsigned long long tag;
			found = strncmp(line, "tfd:", 4) == 0 && data &&
				sscanf(data + 5, "%llx", &tag) == 1 && tag == (unsigned long long)pid;
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return found;
}

/* Is a thread of this process asleep in epoll_wait with no timeout? The watcher sleeps so once
 * nothing is left to retry (lock probes after a close, a dead peer's lingering locks); until then
 * it sleeps with a timeout. /proc/self/task/<tid>/syscall: the number, then the arguments (the
 * fourth is the timeout). */
static inline bool zt_watcher_idle(void)
{
	bool idle = false;
	DIR *d = opendir("/proc/self/task");
	CHECK(d != NULL);
	struct dirent *e;
	while (!idle && (e = readdir(d))) {
		char path[300], buf[256] = {0};
		snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long nr = -1;
		unsigned long long timeout = 0;
		if (fgets(buf, sizeof buf, f) &&
		    sscanf(buf, "%ld %*x %*x %*x %llx", &nr, &timeout) == 2) {
#ifdef SYS_epoll_wait
			idle = nr == SYS_epoll_wait;
#endif
			idle = (idle || nr == SYS_epoll_pwait) && (int)timeout == -1;
		}
		fclose(f);
	}
	closedir(d);
	return idle;
}

#endif
