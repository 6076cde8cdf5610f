/* Who may change a file: its writer holds an exclusive flock(2) on it from before it empties it
 * until it closes it (a recorder killed with kill -9 lets go with its process). `zcast bag reindex`
 * takes the same lock without waiting: a file whose lock it cannot have is still being written, and
 * replacing it would send the rest of the recording to an unlinked file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag.h"

int bag_lock_fd(int fd)
{
	int r;
	while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
		;
	return r;
}

int bag_lock(const char *path, struct bag_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		bag_err_set(e, path, -1, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (bag_lock_fd(fd) != 0) {
		int err = errno;
		close(fd);
		if (err == EWOULDBLOCK)
			bag_err_set(e, path, -1, "is being written (a recorder has it open)");
		else
			bag_err_set(e, path, -1, "cannot lock: %s", strerror(err));
		return -1;
	}
	return fd;
}

bool bag_lock_still(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}
