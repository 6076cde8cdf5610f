/* Shared-memory segments, OFD byte locks and the fork rule. */
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

#include "internal.h"

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

int zc_shm_create(const char *name, size_t size, unsigned mode)
{
	int fd = zc_fd_open(name, O_RDWR | O_CREAT | O_EXCL, mode);
	if (fd < 0) {
		if (fd == ZCAST_ENOMEM && errno == ENOSPC) /* not EMFILE: its message says so */
			return no_room(name, size);
		return fd == ZCAST_EEXIST_ ? ZCAST_EAGAIN : fd;
	}
	(void)fchmod(fd, mode); /* exact mode, whatever the umask */
	/* posix_fallocate reserves the pages now: a full /dev/shm is an error here, not a SIGBUS
	 * later. */
	int r = posix_fallocate(fd, 0, (off_t)size);
	if (r != 0) {
		zc_fd_close(fd);
		shm_unlink(name);
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

/* Forward: the fork lock (fds_mu) and its handlers are below. */
static pthread_mutex_t fds_mu;
static pthread_once_t atfork_once;
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

bool zc_in_group(gid_t gid)
{
	gid_t list[256];
	int n = getgroups(256, list);
	for (int i = 0; i < n; i++)
		if (list[i] == gid)
			return true;
	return false;
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
	return (errno == EAGAIN || errno == EACCES) ? ZCAST_EAGAIN
						    : zc_errno(ZCAST_ESYS, "F_OFD_SETLK");
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

/* ---- fork: a child must not keep the parent's OFD locks (a killed parent would look alive) ----
 */
static pthread_mutex_t fds_mu = PTHREAD_MUTEX_INITIALIZER;
_Atomic unsigned zc_fork_generation; /* bumped in every forked child */
static int *fds;
static size_t n_fds, cap_fds;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

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

/* The error of a failed open of `name` (errno err). */
static int open_error(const char *name, int err)
{
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
		return zc_err(ZCAST_ENOMEM,
			      "cannot open %s: this process is out of file descriptors (EMFILE: "
			      "all of its limit, ulimit -n / RLIMIT_NOFILE, are open)",
			      name);
	case ENFILE:
		return zc_err(ZCAST_ENOMEM,
			      "cannot open %s: the system is out of file descriptors (ENFILE: "
			      "its file table is full, fs.file-max)",
			      name);
	case EISDIR:
	case ENXIO:
		return zc_err(ZCAST_EPERM, "%s: the segment is not a regular file", name);
	default:
		return zc_errno(ZCAST_ESYS, name);
	}
}

/* Opens a name without blocking: a FIFO planted at it (any uid can make one in the sticky /dev/shm)
 * would block a read-only open until a writer came, before any check could run. Returns the
 * descriptor, blocking again, of a regular file only; -1 with errno (ENXIO for another type). */
static int open_regular(const char *name, int flags, unsigned mode)
{
	int fd = shm_open(name, flags | O_CLOEXEC | O_NONBLOCK, mode);
	if (fd < 0)
		return -1;
	struct stat st;
	int err = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? ENXIO : 0;
	int fl = err == 0 ? fcntl(fd, F_GETFL) : 0;
	if (err == 0 && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0))
		err = errno;
	if (err == 0)
		return fd;
	close(fd);
	errno = err;
	return -1;
}

int zc_fd_open(const char *name, int flags, unsigned mode)
{
	pthread_once(&atfork_once, install_atfork);
	/* Opened and registered with fork held off (the prepare handler takes fds_mu): a child
	 * forked by another thread can never inherit a descriptor the atfork handler does not know.
	 */
	pthread_mutex_lock(&fds_mu);
	int fd = open_regular(name, flags, mode);
	int err = errno;
	if (fd >= 0 && !remember(fd)) {
		close(fd);
		if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
			shm_unlink(name); /* only a file this call created: an opened one is live */
		fd = -1;
		err = ENOMEM;
	}
	pthread_mutex_unlock(&fds_mu);
	if (fd >= 0)
		return fd;
	int r = open_error(name, err);
	errno = err; /* callers tell "not permitted" (EACCES, EPERM) from "not a regular file" */
	return r;
}


bool zc_open_denied(int r)
{
	return r == ZCAST_EPERM && (errno == EACCES || errno == EPERM);
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

int zc_thread_start(void *(*fn)(void *), void *arg, pthread_t *th, bool detached)
{
	sigset_t all, old;
	sigfillset(&all);
	/* The new thread inherits the creator's mask: block everything around the create. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (detached)
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	int r = pthread_create(th, &a, fn, arg);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r == 0 ? 0 : zc_err(ZCAST_ESYS, "cannot start a zcast thread: %s", strerror(r));
}
