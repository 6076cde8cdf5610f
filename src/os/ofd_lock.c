/* OFD byte locks: the liveness locks of members and doorbell owners, and their probes. */
#include <errno.h>
#include <fcntl.h>

#include "os_internal.h"

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

/* Asks which lock would stop one of `type`: a write lock conflicts with any, a read lock only with
 * an exclusive one. */
static bool held_against(int fd, off_t byte, short type)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
		return true; /* cannot tell: assume alive, never reclaim on doubt */
	return fl.l_type != F_UNLCK;
}

bool zc_ofd_held(int fd, off_t byte)
{
	return held_against(fd, byte, F_WRLCK);
}

bool zc_ofd_held_exclusive(int fd, off_t byte)
{
	return held_against(fd, byte, F_RDLCK);
}
