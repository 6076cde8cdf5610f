/* The cleanup of doorbells (doorbell.h): a doorbell's file outlives a killed owner until somebody
 * removes it. The owner holds an exclusive OFD lock on byte 0 while it lives; a cleaner removes the
 * file only while it holds that lock itself, and marks it closed first so every mapper lets go. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "doorbell.h"

/* Removes the doorbell file `name` if nobody holds its liveness lock. */
static bool reap_name(const char *name)
{
	int fd = zc_fd_open(name, O_RDWR, 0);
	if (fd < 0)
		return false;
	bool gone = false;
	struct stat st;
	/* Holding the lock ourselves, nobody else unlinks it: the name still names this file. */
	if (zc_ofd_lock(fd, 0, true) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
		struct zc_bell_hdr *h = zc_bell_map_checked(fd, name, 0600);
		if (h) {
			atomic_store(&h->closed, 1);
			munmap(h, ZC_BELL_SIZE);
		}
		gone = shm_unlink(name) == 0;
	}
	zc_fd_close(fd);
	return gone;
}

void zc_bell_reap(uint64_t ref)
{
	if (!ref)
		return;
	char name[64];
	zc_bell_name(name, sizeof name, ZC_BELL_REF_KEY(ref));
	reap_name(name);
}

int zc_bell_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return zc_errno(ZCAST_ESYS, "opendir /dev/shm");
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, ZC_BELL_PREFIX, sizeof ZC_BELL_PREFIX - 1) != 0 ||
		    strlen(e->d_name) > 60)
			continue;
		char name[64];
		snprintf(name, sizeof name, "/%s", e->d_name);
		n += reap_name(name);
	}
	closedir(d);
	return n;
}
