/* Shared-memory segments, OFD byte locks and the fork rule. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int zc_shm_create(const char *name, size_t size, unsigned mode)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return ZCAST_EAGAIN;
		if (errno == EACCES)
			return zc_err(ZCAST_EPERM, "cannot create %s: permission denied", name);
		return zc_errno(ZCAST_ESYS, name);
	}
	(void)fchmod(fd, mode); /* exact mode, whatever the umask */
	/* posix_fallocate reserves the pages now: a full /dev/shm is an error here, not a SIGBUS later. */
	int r = posix_fallocate(fd, 0, (off_t)size);
	if (r != 0) {
		close(fd);
		shm_unlink(name);
		if (r == ENOSPC || r == ENOMEM || r == EFBIG)
			return zc_err(ZCAST_ENOMEM, "cannot allocate %zu bytes for %s: /dev/shm is full", size,
				      name);
		errno = r;
		return zc_errno(ZCAST_ESYS, "posix_fallocate");
	}
	return fd;
}

void *zc_map(int fd, size_t size, off_t off, bool writable, bool populate)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	/* MAP_POPULATE prefaults every page: the steady state takes no page fault. */
	void *p = mmap(NULL, size, prot, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, off);
	if (p == MAP_FAILED)
		return NULL;
	/* A mapping holds its open file description, and with it the OFD liveness locks: a forked
	 * child that inherited it would keep a killed parent "alive" even after closing the fds. */
	(void)madvise(p, size, MADV_DONTFORK);
	return p;
}

static int ofd(int fd, int cmd, short type, off_t byte)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	return fcntl(fd, cmd, &fl);
}

int zc_ofd_lock(int fd, off_t byte, bool exclusive)
{
	if (ofd(fd, F_OFD_SETLK, exclusive ? F_WRLCK : F_RDLCK, byte) == 0)
		return 0;
	return (errno == EAGAIN || errno == EACCES) ? ZCAST_EAGAIN : zc_errno(ZCAST_ESYS, "F_OFD_SETLK");
}

int zc_ofd_unlock(int fd, off_t byte)
{
	return ofd(fd, F_OFD_SETLK, F_UNLCK, byte) == 0 ? 0 : ZCAST_ESYS;
}

bool zc_ofd_held(int fd, off_t byte)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
		return true; /* cannot tell: assume alive, never reclaim on doubt */
	return fl.l_type != F_UNLCK;
}

/* ---- fork: a child must not keep the parent's OFD locks (a killed parent would look alive) ---- */
static pthread_mutex_t fds_mu = PTHREAD_MUTEX_INITIALIZER;
static int *fds;
static size_t n_fds, cap_fds;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void child_close_fds(void)
{
	/* The child is single-threaded here; the mutex may be held by a thread that no longer exists. */
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	n_fds = 0;
	pthread_mutex_init(&fds_mu, NULL);
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

void zc_fd_register(int fd)
{
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&fds_mu);
	if (n_fds == cap_fds) {
		size_t cap = cap_fds ? cap_fds * 2 : 16;
		int *p = realloc(fds, cap * sizeof *p);
		if (!p) {
			pthread_mutex_unlock(&fds_mu);
			return;
		}
		fds = p;
		cap_fds = cap;
	}
	fds[n_fds++] = fd;
	pthread_mutex_unlock(&fds_mu);
}

void zc_fd_unregister(int fd)
{
	pthread_mutex_lock(&fds_mu);
	for (size_t i = 0; i < n_fds; i++) {
		if (fds[i] == fd) {
			fds[i] = fds[--n_fds];
			break;
		}
	}
	pthread_mutex_unlock(&fds_mu);
}
