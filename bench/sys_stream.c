/* Copying stream transports: Unix domain stream socket ("uds") and pipe ("pipe"). One fd pair per
 * reader, created before fork; the writer copies each message into every reader's fd. Busy-poll
 * mode: the reader's fd is non-blocking and read() is retried on EAGAIN. */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct stream_shared {
	int rd[ZB_MAX_CHILDREN], wr[ZB_MAX_CHILDREN];
	int n;
} stream_shared;

struct zb_chan {
	stream_shared *sh;
	const zb_chan_params *p;
	int reader;
	unsigned char *buf;
};

static int prepare(zb_chan_params *p, void **shared, char *why, size_t n, int uds)
{
	if (p->drop_old) {
		snprintf(why, n, "no drop-oldest policy");
		return -1;
	}
	stream_shared *sh = calloc(1, sizeof *sh);
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

static int s_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	(void)deadline; /* blocking write; the driver's timeout bounds it */
	zb_fill(c->buf, size, h, mode);
	for (int i = 0; i < c->p->nreaders; i++) {
		size_t off = 0;
		while (off < size) {
			ssize_t w = write(c->sh->wr[i], c->buf + off, size - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
			off += (size_t)w;
		}
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

const zb_system zb_sys_uds = {"uds", uds_prepare, s_open, NULL, s_send, s_recv, s_close, s_cleanup};
const zb_system zb_sys_pipe = {"pipe", pipe_prepare, s_open, NULL, s_send, s_recv, s_close, s_cleanup};
