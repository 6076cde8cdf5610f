/* The fork rule: a forked child must not keep the parent's OFD locks (a killed parent would look
 * alive), so every segment descriptor is registered and closed in the child, and every mapping is
 * MADV_DONTFORK (docs/CRASH_SAFETY.md). */
#include <errno.h>
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

static pthread_mutex_t fds_mu = PTHREAD_MUTEX_INITIALIZER;
_Atomic unsigned zc_fork_generation; /* bumped in every forked child */
static int *fds;
static size_t n_fds, cap_fds;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void);

void *zc_map(int fd, size_t size, off_t off, bool writable, bool populate)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	/* A mapping holds its open file description, and with it the OFD liveness locks: a forked
	 * child that inherited it would keep a killed parent "alive" even after closing the fds. So
	 * it is MADV_DONTFORK, and fork is held off between mmap and madvise. */
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&fds_mu);
	/* MAP_POPULATE prefaults every page: the steady state takes no page fault. */
	void *p = mmap(NULL, size, prot, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, off);
	if (p != MAP_FAILED)
		(void)madvise(p, size, MADV_DONTFORK);
	pthread_mutex_unlock(&fds_mu);
	return p == MAP_FAILED ? NULL : p;
}
static void child_close_fds(void)
{
	/* The forking thread took fds_mu in prepare(); in the child it is that same thread. */
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	n_fds = 0;
	atomic_fetch_add(&zc_fork_generation, 1); /* every inherited handle is now dead */
	pthread_mutex_unlock(&fds_mu);
}

static void prepare(void)
{
	pthread_mutex_lock(&fds_mu);
}
static void parent(void)
{
	pthread_mutex_unlock(&fds_mu);
}
static void install_atfork(void)
{
	pthread_atfork(prepare, parent, child_close_fds);
}

/* Under fds_mu. */
static bool remember(int fd)
{
	if (n_fds == cap_fds) {
		size_t cap = cap_fds ? cap_fds * 2 : 16;
		int *p = realloc(fds, cap * sizeof *p);
		if (!p)
			return false;
		fds = p;
		cap_fds = cap;
	}
	fds[n_fds++] = fd;
	return true;
}

int zc_fd_open(const char *name, int flags, unsigned mode)
{
	pthread_once(&atfork_once, install_atfork);
	/* Opened and registered with fork held off (the prepare handler takes fds_mu): a child
	 * forked by another thread can never inherit a descriptor the atfork handler does not know.
	 */
	pthread_mutex_lock(&fds_mu);
	int fd = shm_open(name, flags | O_CLOEXEC, mode);
	int err = errno;
	if (fd >= 0 && !remember(fd)) {
		close(fd);
		shm_unlink(name);
		fd = -1;
		err = ENOMEM;
	}
	pthread_mutex_unlock(&fds_mu);
	if (fd >= 0)
		return fd;
	errno = err;
	switch (err) {
	case ENOENT:
		return ZCAST_ENOENT;
	case EEXIST:
		return ZCAST_EEXIST_;
	case EACCES:
	case EPERM:
		return zc_err(ZCAST_EPERM, "%s: permission denied", name);
	case ENOSPC:
		return ZCAST_ENOMEM; /* tmpfs out of inodes */
	case ENOMEM:
		return zc_err(ZCAST_ENOMEM, "%s: out of memory", name);
	case EMFILE:
	case ENFILE:
		return zc_errno(ZCAST_ENOMEM, name);
	case EISDIR:
	case ENXIO:
		return zc_err(ZCAST_EPERM, "%s: the segment is not a regular file", name);
	default:
		return zc_errno(ZCAST_ESYS, name);
	}
}

void zc_fd_close(int fd)
{
	pthread_mutex_lock(&fds_mu);
	for (size_t i = 0; i < n_fds; i++) {
		if (fds[i] == fd) {
			fds[i] = fds[--n_fds];
			break;
		}
	}
	close(fd); /* before fork is allowed again: a child never inherits an unregistered fd */
	pthread_mutex_unlock(&fds_mu);
}
