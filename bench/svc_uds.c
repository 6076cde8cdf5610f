/* Unix-socket request/response: one stream socketpair per client, created before fork. A call
 * writes the request and reads the response (blocking); the server waits in epoll on every
 * client's socket and answers on the socket the request came from. The kernel copies every byte
 * twice (into the socket buffer, out of it). */
#include "svc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct uds_shared {
	int cl[ZB_MAX_CHILDREN], sv[ZB_MAX_CHILDREN]; /* client end, server end of pair i */
	int n;
} uds_shared;

struct zb_svc {
	uds_shared *sh;
	const zb_svc_params *p;
	int client;
	int ep; /* server: epoll over sv[] */
	unsigned char *req, *resp;
};

static void u_cleanup(zb_svc_params *p, void *shared)
{
	(void)p;
	uds_shared *sh = shared;
	for (int i = 0; i < sh->n; i++)
		close(sh->cl[i]), close(sh->sv[i]);
	free(sh);
}

static int u_prepare(zb_svc_params *p, void **shared, char *why, size_t n)
{
	uds_shared *sh = calloc(1, sizeof *sh);
	for (int i = 0; i < p->nclients; i++) {
		int fd[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd)) {
			snprintf(why, n, "socketpair: %s", strerror(errno));
			u_cleanup(p, sh);
			return -1;
		}
		sh->cl[i] = fd[0], sh->sv[i] = fd[1];
		sh->n++;
	}
	*shared = sh;
	return 0;
}

static int u_open(const zb_svc_params *p, void *shared, int client, zb_svc **out)
{
	zb_svc *v = calloc(1, sizeof *v);
	v->sh = shared;
	v->p = p;
	v->client = client;
	v->ep = -1;
	v->req = calloc(1, p->req_size);
	v->resp = calloc(1, p->resp_size);
	if (client < 0) {
		v->ep = epoll_create1(EPOLL_CLOEXEC);
		for (int i = 0; i < p->nclients; i++) {
			struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
			if (epoll_ctl(v->ep, EPOLL_CTL_ADD, v->sh->sv[i], &e))
				return -1;
		}
	}
	*out = v;
	return 0;
}

static int io_all(int fd, unsigned char *buf, size_t size, int writing)
{
	for (size_t off = 0; off < size;) {
		ssize_t r = writing ? write(fd, buf + off, size - off) : read(fd, buf + off, size - off);
		if (r > 0)
			off += (size_t)r;
		else if (r == 0 || errno != EINTR)
			return -1;
	}
	return 0;
}

static int u_call(zb_svc *v, const zb_hdr *req, zb_hdr *resp, int mode, int64_t deadline)
{
	(void)deadline; /* blocking socket: the driver's timeout ends a hang */
	int fd = v->sh->cl[v->client];
	zb_fill(v->req, v->p->req_size, req, mode);
	if (io_all(fd, v->req, v->p->req_size, 1) || io_all(fd, v->resp, v->p->resp_size, 0))
		return -1;
	zb_sink += zb_consume(v->resp, v->p->resp_size, resp, ZB_TRANSPORT);
	return 0;
}

static int u_serve(zb_svc *v, zb_hdr *req, int mode, int64_t deadline)
{
	struct epoll_event e;
	int r;
	while ((r = epoll_wait(v->ep, &e, 1, 100)) <= 0) {
		if ((r < 0 && errno != EINTR) || zb_now() > deadline)
			return -1;
	}
	int fd = v->sh->sv[e.data.u32];
	if (io_all(fd, v->req, v->p->req_size, 0))
		return -1;
	zb_sink += zb_consume(v->req, v->p->req_size, req, mode);
	zb_hdr h = {.seq = req->seq, .stamp = req->stamp, .flags = req->flags, .size = (uint32_t)v->p->resp_size};
	zb_fill(v->resp, v->p->resp_size, &h, ZB_TRANSPORT);
	return io_all(fd, v->resp, v->p->resp_size, 1);
}

static void u_close(zb_svc *v)
{
	if (v->ep >= 0)
		close(v->ep);
	free(v->req);
	free(v->resp);
	free(v);
}

const zb_svc_system zb_svc_uds = {"uds", u_prepare, u_open, NULL, u_call, u_serve, NULL, u_close, u_cleanup};
