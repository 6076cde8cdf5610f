/* One bridge per topic on a host: a route runs only while its bridge holds the OFD write lock of
 * /dev/shm/zcast-bridge.<zcast domain>.<topic>, so a second bridge (or a restarted one racing the
 * old) stands by and duplicates nothing. The kernel drops the lock the moment the holder closes
 * the file or dies (kill -9 included), and the standby, waiting on the holder's marker lock in the
 * same file (standby.c: one thread per bridge waited for), takes over at once, without polling.
 * The file also holds the routes' state (struct zb_state), so the next holder resumes. It is made
 * whole before it is visible (a filled temporary file linked to the name), so every opener reads a
 * valid source id, and it is never removed (an unlinked, locked file would let a newcomer lock a
 * fresh one beside it); docs/BRIDGE.md says when it may be. Each grant counts the file's
 * generation up, and the bridge announces it (peers.c): a bridge that announced a lower one is
 * dead. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define ZB_STATE_MAGIC 0x355453424353435aull /* "ZCSCBST5" */

static void boot_id(char out[40])
{
	memset(out, 0, 40);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(out, 40, f))
			out[0] = 0;
		fclose(f);
	}
	out[strcspn(out, "\n")] = 0;
}

/* A new state file in place of path (absent, another version, or from another boot): written in
 * full under a temporary name, then linked (first maker wins) or renamed (replacing) to path. */
static int make_file(const char *path, int replace)
{
	struct zb_state *s = calloc(1, sizeof *s);
	char tmp[320];
	snprintf(tmp, sizeof tmp, "%s.new.%d", path, (int)getpid());
	int fd = s ? open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
	int e = 0;
	if (fd < 0) {
		e = s ? -errno : -ENOMEM;
		free(s);
		return e;
	}
	s->magic = ZB_STATE_MAGIC;
	if (getrandom(&s->source, sizeof s->source, 0) != sizeof s->source) {
		struct timespec ts; /* no entropy source: time and pid, unique enough on one host */
		clock_gettime(CLOCK_REALTIME, &ts);
		s->source = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40;
	}
	s->source |= !s->source; /* 0 means "no source" */
	boot_id(s->boot_id);
	if (write(fd, s, sizeof *s) != (ssize_t)sizeof *s)
		e = -EIO;
	else if (replace ? rename(tmp, path) < 0 : link(tmp, path) < 0 && errno != EEXIST)
		e = -errno;
	close(fd);
	unlink(tmp); /* after a rename it names nothing */
	free(s);
	return e;
}

/* Maps the file, making or replacing it if it is not a state file of this boot and version. */
static int map_file(struct zb_claim *c)
{
	char boot[40];
	boot_id(boot);
	for (int tries = 0; tries < 4; tries++) {
		int fd = open(c->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno != ENOENT)
			return -errno;
		if (fd < 0) {
			int e = make_file(c->path, 0);
			if (e < 0)
				return e;
			continue;
		}
		struct stat st;
		struct zb_state *s = MAP_FAILED;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == sizeof *s)
			s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (s != MAP_FAILED && ZB_READ_ONCE(s->magic) == ZB_STATE_MAGIC &&
		    memcmp((const void *)s->boot_id, boot, sizeof boot) == 0) {
			c->fd = fd;
			c->state = s;
			c->source = ZB_READ_ONCE(s->source);
			return 0;
		}
		if (s != MAP_FAILED)
			munmap(s, sizeof *s);
		close(fd);
		int e = make_file(c->path, 1);
		if (e < 0)
			return e;
	}
	return -EAGAIN;
}

/* SYNC: zb_claim_wait reads `granted` (acquire) after this stores it (release) under c->lock. */
void zb_claim_granted(struct zb_claim *c)
{
	/* under the claim lock (every caller holds it): no other holder counts at the same time;
	 * read once (shared memory) */
	uint64_t gen = ZB_READ_ONCE(c->state->generation) + 1;
	c->state->generation = gen;
	pthread_mutex_lock(&c->lock);
	atomic_store_explicit(&c->granted, 1, memory_order_release);
	pthread_cond_broadcast(&c->granted_cv);
	for (int i = 0; i < 2; i++)
		if (c->wake[i])
			zcast_guard_trigger(c->wake[i]);
	pthread_mutex_unlock(&c->lock);
	if (c->peers)
		zb_peers_claimed(c->peers, c->source, gen);
	if (c->bridge) /* no longer a standby's node, if it was */
		zb_graph_role_changed(c->bridge);
}

static void *waiter(void *arg)
{
	struct zb_claim *c = arg;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	/* a cancellation point: zb_claim_release cancels a waiter that was never granted */
	while (fcntl(c->fd, F_OFD_SETLKW, &fl) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "zcast-bridge: cannot lock %s: %s\n", c->path,
				strerror(errno));
			return NULL;
		}
	/* granted: no cancel from here on (zb_claim_release joins what follows: it takes locks) */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	zb_claim_granted(c);
	return NULL;
}

int zb_claim_lock_thread(struct zb_claim *c)
{
	int e = -pthread_create(&c->waiter, NULL, waiter, c);
	c->waiting = e == 0;
	return e;
}

int zb_claim_open(struct zb_claim *c, const char *zdomain, const char *topic, zcast_guard *wake)
{
	pthread_mutex_lock(&c->lock);
	int e = 0, stand = 0;
	if (c->users < 2)
		c->wake[c->users] = wake;
	if (c->users++ == 0) {
		char t[256];
		size_t i = 0;
		for (const char *s = topic + 1; *s && i + 1 < sizeof t; s++)
			t[i++] = *s == '/' ? '.' : *s;
		t[i] = 0;
		snprintf(c->path, sizeof c->path, "/dev/shm/zcast-bridge.%s.%s", zdomain, t);
		/* the bridge's standby waits for the holder (standby.c), else a thread of its own */
		if ((e = map_file(c)) == 0 && !(stand = c->sb != NULL))
			e = zb_claim_lock_thread(c);
	}
	if (!e && !c->state)
		e = -EIO; /* the first route's open failed */
	pthread_mutex_unlock(&c->lock);
	if (stand) /* it grants under c->lock */
		zb_standby_add(c->sb, c);
	return e;
}

int zb_claim_wait(struct zb_claim *c, _Atomic int *stop)
{
	pthread_mutex_lock(&c->lock);
	while (!atomic_load_explicit(&c->granted, memory_order_acquire) && !atomic_load(stop)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000)
			ts.tv_sec++, ts.tv_nsec -= 1000000000;
		pthread_cond_timedwait(&c->granted_cv, &c->lock, &ts);
	}
	int r = atomic_load(&c->granted) ? 0 : -1;
	pthread_mutex_unlock(&c->lock);
	return r;
}

void zb_claim_kick(struct zb_claim *c)
{
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->granted_cv);
	pthread_mutex_unlock(&c->lock);
}

void zb_claim_release(struct zb_claim *c)
{
	if (c->waiting) {
		pthread_cancel(c->waiter); /* ends a wait in the lock; a granted waiter has ended */
		pthread_join(c->waiter, NULL);
		c->waiting = 0;
	}
	if (c->state)
		munmap(c->state, sizeof *c->state);
	c->state = NULL;
	if (c->fd >= 0)
		close(c->fd); /* drops the lock */
	c->fd = -1;
}
