/* One bridge per topic on a host: a route runs only while its bridge holds an exclusive flock on
 * /dev/shm/zcast-bridge.<zcast domain>.<topic>, so a second bridge (or a restarted one racing the
 * old) is a standby and duplicates nothing. The kernel drops the lock when its holder dies (kill -9
 * included), and a standby takes over. The file also holds the routes' state (struct zb_state: what
 * readers acknowledged, what was delivered per source), so the next holder resumes.
 * The file is never removed (an unlinked, locked file would let a newcomer lock a fresh one beside
 * it); docs/BRIDGE.md says when it may be. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define ZB_STATE_MAGIC 0x325453424353435aull /* "ZCSCBST2" */

static int claim_locked(struct zb_claim *c, const char *zdomain, const char *topic)
{
	if (c->state)
		return 1;
	if (c->fd < 0) {
		char t[256];
		size_t i = 0;
		for (const char *s = topic + 1; *s && i + 1 < sizeof t; s++)
			t[i++] = *s == '/' ? '.' : *s;
		t[i] = 0;
		snprintf(c->path, sizeof c->path, "/dev/shm/zcast-bridge.%s.%s", zdomain, t);
		c->fd = open(c->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (c->fd < 0)
			return -errno;
	}
	if (flock(c->fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? 0 : -errno;
	/* Ours now: a file of another size (another version, or garbage) is made ours anew. */
	struct stat st;
	if (fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_size != sizeof(struct zb_state) &&
	     (ftruncate(c->fd, 0) < 0 || ftruncate(c->fd, sizeof(struct zb_state)) < 0))) {
		flock(c->fd, LOCK_UN);
		return -EINVAL;
	}
	void *p = mmap(NULL, sizeof(struct zb_state), PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED) {
		flock(c->fd, LOCK_UN);
		return -errno;
	}
	c->state = p;
	if (c->state->magic != ZB_STATE_MAGIC) { /* new, or not ours: start from nothing */
		memset(c->state, 0, sizeof *c->state);
		c->state->magic = ZB_STATE_MAGIC;
	}
	return 1;
}

int zb_claim_try(struct zb_claim *c, const char *zdomain, const char *topic)
{
	pthread_mutex_lock(&c->lock);
	int r = claim_locked(c, zdomain, topic);
	pthread_mutex_unlock(&c->lock);
	return r;
}

void zb_claim_release(struct zb_claim *c)
{
	if (c->state)
		munmap(c->state, sizeof *c->state);
	c->state = NULL;
	if (c->fd >= 0)
		close(c->fd); /* drops the lock */
	c->fd = -1;
}
