/* Shared-memory segments: creating one with the space it needs, and the trust check of one found. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <grp.h>
#include <unistd.h>

#include "os_internal.h"

/* "256.0 GiB" */
static const char *human(char *buf, size_t n, double bytes)
{
	const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, n, "%.1f %s", bytes, unit[u]);
	return buf;
}

/* Says why `size` bytes do not fit: /dev/shm's free space, not a guess. */
static int no_room(const char *name, size_t size)
{
	struct statvfs vs;
	char want[32], avail[32], total[32];
	human(want, sizeof want, (double)size);
	if (statvfs("/dev/shm", &vs) != 0)
		return zc_err(ZCAST_ENOMEM, "cannot allocate %s (%zu bytes) for %s", want, size, name);
	if (vs.f_favail == 0)
		return zc_err(ZCAST_ENOMEM, "cannot create %s: /dev/shm has no free inodes", name);
	return zc_err(ZCAST_ENOMEM, "cannot allocate %s (%zu bytes) for %s: /dev/shm has %s free of %s",
		      want, size, name, human(avail, sizeof avail, (double)vs.f_bavail * (double)vs.f_frsize),
		      human(total, sizeof total, (double)vs.f_blocks * (double)vs.f_frsize));
}

/* MemAvailable + SwapFree of /proc/meminfo in bytes: what a tmpfs file can take without the kernel
 * taking it from other processes. 0 if unknown. */
static uint64_t memory_available(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	char line[128];
	unsigned long long kib, sum = 0;
	int found = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1 ||
		    sscanf(line, "SwapFree: %llu kB", &kib) == 1)
			sum += kib, found++;
	fclose(f);
	return found == 2 ? (uint64_t)sum * 1024 : 0;
}

/* Refuses a segment that cannot fit before anything is made: posix_fallocate fills /dev/shm up to
 * its free space before it fails, and a tmpfs file's pages are memory, so one bigger than the
 * memory available takes it from every process of the host for as long as it is written (a /dev/shm
 * may be bigger than the RAM). Both are read now; posix_fallocate stays the final word. */
static int check_fits(const char *name, size_t size)
{
	struct statvfs vs;
	if (statvfs("/dev/shm", &vs) == 0 &&
	    (double)size > (double)vs.f_bavail * (double)vs.f_frsize)
		return no_room(name, size);
	uint64_t mem = memory_available();
	if (mem && size > mem) {
		char want[32], have[32];
		return zc_err(ZCAST_ENOMEM,
			      "cannot allocate %s (%zu bytes) for %s: the host has %s of memory "
			      "available (MemAvailable + SwapFree), and /dev/shm is memory",
			      human(want, sizeof want, (double)size), size, name,
			      human(have, sizeof have, (double)mem));
	}
	return 0;
}

int zc_shm_create(const char *name, size_t size, unsigned mode, bool held)
{
	int e = check_fits(name, size);
	if (e < 0)
		return e;
	int fd = zc_fd_open(name, O_RDWR | O_CREAT | O_EXCL, mode);
	if (fd < 0) {
		if (fd == ZCAST_ENOMEM && errno == ENOSPC) /* not EMFILE: its message says so */
			return no_room(name, size);
		return fd == ZCAST_EEXIST_ ? ZCAST_EAGAIN : fd;
	}
	if (held && zc_ofd_lock(fd, 0, true) != 0) {
		zc_fd_close(fd); /* another opener found our empty file first: it rebuilds it */
		return ZCAST_EAGAIN;
	}
	(void)fchmod(fd, mode); /* exact mode, whatever the umask */
	/* posix_fallocate reserves the pages now: a full /dev/shm is an error here, not a SIGBUS
	 * later. */
	int r = posix_fallocate(fd, 0, (off_t)size);
	if (r != 0) {
		/* Unlinked before the descriptor goes: once byte 0 is free, an opener may take our
		 * empty file for a dead creator's, remove it and create the topic anew, and a late
		 * unlink would remove that live one. Not when the file was unlinked already (an
		 * opener came between our create and our lock): the name may be another's now. */
		struct stat st;
		if (!held || (fstat(fd, &st) == 0 && st.st_nlink > 0))
			shm_unlink(name);
		ZC_PAUSE("shm:create-failed"); /* tests: test_create_fail_unlink */
		zc_fd_close(fd);
		if (r == ENOSPC || r == ENOMEM || r == EFBIG)
			return no_room(name, size);
		errno = r;
		return zc_errno(ZCAST_ESYS, "posix_fallocate");
	}
	return fd;
}

int zc_shm_check(int fd, const char *what, unsigned mode, struct stat *st)
{
	if (fstat(fd, st) != 0)
		return zc_errno(ZCAST_ESYS, "fstat");
	if (!S_ISREG(st->st_mode))
		return zc_err(ZCAST_EPERM, "%s: the segment is not a regular file", what);
	uid_t me = geteuid();
	bool group_ok = (mode & 0060u) && (st->st_gid == getegid() || zc_in_group(st->st_gid));
	if (st->st_uid != me && st->st_uid != 0 && !group_ok)
		return zc_err(
		    ZCAST_EPERM,
		    "%s: the segment belongs to uid %u (group %u, mode %04o) and this process runs "
		    "as uid %u: only segments of your own uid, root, or (with a group topic.mode "
		    "such as 0660) a group you are in are trusted",
		    what, (unsigned)st->st_uid, (unsigned)st->st_gid,
		    (unsigned)(st->st_mode & 07777), (unsigned)me);
	unsigned extra = (unsigned)st->st_mode & 0022u & ~mode;
	if (extra)
		return zc_err(
		    ZCAST_EPERM,
		    "%s: the segment (uid %u, mode %04o) is writable by %s, beyond the topic.mode "
		    "%04o this process asked for: open with the same topic.mode as its creator",
		    what, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
		    (extra & 0002u) ? "everyone" : "its group", mode);
	return 0;
}

bool zc_in_group(gid_t gid)
{
	gid_t list[256];
	int n = getgroups(256, list);
	for (int i = 0; i < n; i++)
		if (list[i] == gid)
			return true;
	return false;
}
