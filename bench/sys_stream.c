/* Copying stream transports: Unix domain stream socket ("uds") and pipe ("pipe"). One fd pair per
 * reader, created before fork; the writer copies each message into every reader's fd. Busy-poll
 * mode: the reader's fd is non-blocking and read() is retried on EAGAIN.
 * try_send (fail_full): the kernel buffer is the queue. A stream has no message boundary and a
 * non-blocking write takes what fits, cutting the message; so a message is written only if it fits
 * whole, else it fails with nothing written:
 *  - uds: bytes charged to the sender (SIOCOUTQ, skb overhead included) + size + size/32 + 1 KiB
 *    (the overhead of its own skbs) <= SO_SNDBUF;
 *  - pipe: a write of at most PIPE_BUF is atomic (all or EAGAIN), no check. Larger ones: the pipe
 *    holds F_GETPIPE_SZ / page pages, not bytes; the pages in use are queued bytes (FIONREAD) /
 *    page for page-multiple sizes (exact), else at most ceil(queued / size) messages x
 *    ceil(size / page) pages + 1 (the page a message's head was merged into). Byte counting alone
 *    let every 5000 B write be cut.
 * If a write is still cut, the rest is written blocking, so the stream stays intact, the message
 * counts as sent, and close reports how often. A message larger than the whole buffer never fits:
 * the system is skipped. */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct stream_shared {
	int rd[ZB_MAX_CHILDREN], wr[ZB_MAX_CHILDREN];
	int cap[ZB_MAX_CHILDREN]; /* fail_full: bytes the kernel buffer of wr[i] holds */
	int n, uds;
	size_t page;
} stream_shared;

struct zb_chan {
	stream_shared *sh;
	const zb_chan_params *p;
	int reader;
	unsigned char *buf;
	long cut; /* try_send writes the kernel cut despite the check (completed blocking) */
};

/* 1 if a message of `size` is written whole into wr[i] without waiting (see the top comment), 0 if
 * not, -1 on error. */
static int fits(const stream_shared *sh, int i, size_t size)
{
	int queued = 0;
	if (!sh->uds && size <= PIPE_BUF)
		return 1;
	if (ioctl(sh->wr[i], sh->uds ? SIOCOUTQ : FIONREAD, &queued) || queued < 0)
		return -1;
	size_t q = (size_t)queued, pg = sh->page;
	if (sh->uds)
		return q + size + size / 32 + 1024 <= (size_t)sh->cap[i];
	size_t per = (size + pg - 1) / pg;
	size_t used = size % pg == 0 ? (q + pg - 1) / pg : (q + size - 1) / size * per + 1;
	return used + per <= (size_t)sh->cap[i] / pg;
}

static void s_cleanup(zb_chan_params *p, void *shared);

static int prepare(zb_chan_params *p, void **shared, char *why, size_t n, int uds)
{
	if (p->drop_old) {
		snprintf(why, n, "no drop-oldest policy");
		return -1;
	}
	if (p->wake != ZB_WAKE_ALL) {
		snprintf(why, n, "the kernel wakes the readers: no --wake %s", zb_wake_names[p->wake]);
		return -1;
	}
	stream_shared *sh = calloc(1, sizeof *sh);
	sh->uds = uds;
	sh->page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < p->nreaders; i++) {
		int fd[2];
		if (uds ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) : pipe2(fd, O_CLOEXEC)) {
			snprintf(why, n, "%s: %s", uds ? "socketpair" : "pipe", strerror(errno));
			return -1;
		}
		if (!uds)
			fcntl(fd[1], F_SETPIPE_SZ, 1 << 20); /* best effort: 1 MiB pipe buffer */
		sh->rd[i] = fd[0];
		sh->wr[i] = fd[1];
		sh->n++;
		if (p->fail_full) {
			/* O_NONBLOCK lives in the open file description: set once here, inherited */
			fcntl(fd[1], F_SETFL, fcntl(fd[1], F_GETFL) | O_NONBLOCK);
			socklen_t l = sizeof sh->cap[i];
			if (uds)
				getsockopt(fd[1], SOL_SOCKET, SO_SNDBUF, &sh->cap[i], &l);
			else
				sh->cap[i] = fcntl(fd[1], F_GETPIPE_SZ);
			if (sh->cap[i] < 0 || fits(sh, i, p->max_size) != 1) { /* empty now: never fits */
				snprintf(why, n, "a %zu B message never fits whole in the %s buffer (%s %d B): a "
				         "non-blocking write would cut it", p->max_size, uds ? "socket" : "pipe",
				         uds ? "SO_SNDBUF" : "F_GETPIPE_SZ", sh->cap[i]);
				s_cleanup(p, sh);
				return -1;
			}
		}
	}
	*shared = sh;
	return 0;
}
static int uds_prepare(zb_chan_params *p, void **s, char *w, size_t n) { return prepare(p, s, w, n, 1); }
static int pipe_prepare(zb_chan_params *p, void **s, char *w, size_t n) { return prepare(p, s, w, n, 0); }

static int s_open(const zb_chan_params *p, void *shared, int reader, zb_chan **out)
{
	zb_chan *c = calloc(1, sizeof *c);
	c->sh = shared;
	c->p = p;
	c->reader = reader;
	c->buf = malloc(p->max_size);
	memset(c->buf, 0, p->max_size); /* fault the buffer in before measuring */
	if (reader >= 0 && p->spin) {
		int fd = c->sh->rd[reader];
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	*out = c;
	return 0;
}

/* Writes buf[off, size) to fd, waiting for room (fail_full made the fd non-blocking). */
static int write_rest(int fd, const unsigned char *buf, size_t off, size_t size, int64_t deadline)
{
	while (off < size) {
		ssize_t w = write(fd, buf + off, size - off);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0 || errno != EAGAIN)
			return -1;
		int64_t left = deadline - zb_now();
		if (left <= 0)
			return -1;
		struct pollfd pfd = {fd, POLLOUT, 0};
		poll(&pfd, 1, (int)(left / 1000000 + 1));
	}
	return 0;
}

static int s_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	/* blocking write; the deadline only bounds the poll of a non-blocking (fail_full) fd */
	zb_fill(c->buf, size, h, mode);
	for (int i = 0; i < c->p->nreaders; i++)
		if (write_rest(c->sh->wr[i], c->buf, 0, size, deadline))
			return -1;
	return 0;
}

static int s_try_send(zb_chan *c, const zb_hdr *h, size_t size, int mode)
{
	stream_shared *sh = c->sh;
	/* every reader must have room before anything is written (the writer is the only one adding,
	 * so room seen here stays) */
	for (int i = 0; i < c->p->nreaders; i++) {
		int r = fits(sh, i, size);
		if (r <= 0)
			return r < 0 ? -1 : 1;
	}
	zb_fill(c->buf, size, h, mode);
	for (int i = 0; i < c->p->nreaders; i++) {
		ssize_t w;
		while ((w = write(sh->wr[i], c->buf, size)) < 0 && errno == EINTR)
			;
		if (w < 0 && errno != EAGAIN)
			return -1;
		if (w < 0 && i == 0)
			return 1; /* the check was too optimistic, but nothing was written */
		if (w == (ssize_t)size)
			continue;
		c->cut++;
		if (write_rest(sh->wr[i], c->buf, w > 0 ? (size_t)w : 0, size, zb_now() + 10000000000LL))
			return -1;
	}
	return 0;
}

static int s_recv(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	int fd = c->sh->rd[c->reader];
	size_t off = 0;
	unsigned spins = 0;
	while (off < size) {
		ssize_t r = read(fd, c->buf + off, size - off);
		if (r > 0) {
			off += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if ((++spins & 1023) == 0 && zb_now() > deadline)
				return -1;
			continue;
		}
		return -1;
	}
	zb_sink += zb_consume(c->buf, size, h, mode);
	return 0;
}

static void s_close(zb_chan *c)
{
	if (c->cut)
		fprintf(stderr, "%s: %ld try_send writes were cut by the kernel and completed blocking\n",
		        c->sh->uds ? "uds" : "pipe", c->cut);
	free(c->buf);
	free(c);
}

static void s_cleanup(zb_chan_params *p, void *shared)
{
	(void)p;
	stream_shared *sh = shared;
	for (int i = 0; i < sh->n; i++) {
		close(sh->rd[i]);
		close(sh->wr[i]);
	}
	free(sh);
}

const zb_system zb_sys_uds = {"uds", uds_prepare, s_open, NULL, s_send, s_try_send, s_recv, s_close, s_cleanup};
const zb_system zb_sys_pipe = {"pipe", pipe_prepare, s_open, NULL, s_send, s_try_send, s_recv, s_close,
                               s_cleanup};
