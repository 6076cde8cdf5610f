/* Case container, system uds: one Unix stream socket pair per subscription (made before fork, with
 * a send buffer that holds the largest message whole where the driver may raise it). The container
 * waits in epoll over every socket it reads. A publish writes the whole message into each
 * subscriber's socket without blocking; what does not fit is kept and written when the socket has
 * room (EPOLLOUT), and a message that finds the socket still busy with the previous one is dropped
 * for that subscriber (keep-last with one message in flight, counted as lost). A reader reads as
 * many whole messages as one read() returns (a buffer of up to 64 KiB worth of them) and keeps a
 * partial one for the next. */
#include "container.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define CT_EVENTS 64
#define CT_READ_BATCH 65536

typedef struct uds_end {
	unsigned char *buf;
	size_t cap, off,
	    len; /* reader: buf holds off bytes; writer: bytes [off, len) still to write */
} uds_end;

typedef struct uds_ctx {
	int epfd, mode;
	unsigned char **tbuf; /* per plan topic this container publishes: the message being sent */
	uds_end *rd, *wr;     /* per plan subscription */
} uds_ctx;

static int sub_size(int i)
{
	return (int)ct.plan.topics[ct.plan.subs[i].topic].size;
}

static void uds_close(void *arg)
{
	uds_ctx *c = arg;
	for (int i = 0; i < ct.plan.nsubs; i++) {
		free(c->rd[i].buf), free(c->wr[i].buf);
		if (c->rd[i].cap)
			close(ct.sock[2 * i + 1]);
		if (c->tbuf[ct.plan.subs[i].topic])
			close(ct.sock[2 * i]);
	}
	for (int t = 0; t < ct.plan.ntopics; t++)
		free(c->tbuf[t]);
	close(c->epfd);
	free(c->tbuf), free(c->rd), free(c->wr), free(c);
}

static unsigned char *faulted(size_t n)
{
	unsigned char *p = malloc(n);
	if (p)
		memset(p, 0, n); /* fault it in before measuring */
	return p;
}

static int uds_open(zb_bench *b, int idx, void **out)
{
	const cp_plan *p = &ct.plan;
	uds_ctx *c = calloc(1, sizeof *c);
	if (!c || !(c->tbuf = calloc((size_t)p->ntopics, sizeof *c->tbuf)) ||
	    !(c->rd = calloc((size_t)p->nsubs, sizeof *c->rd)) ||
	    !(c->wr = calloc((size_t)p->nsubs, sizeof *c->wr)))
		return ct_fail("out of memory"), 1;
	c->mode = b->mode;
	if ((c->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return ct_fail("epoll_create1: %s", strerror(errno)), 1;
	for (int t = 0; t < p->ntopics; t++)
		if (p->topics[t].pub == idx && !(c->tbuf[t] = faulted(p->topics[t].size)))
			return ct_fail("out of memory"), 1;
	for (int i = 0; i < p->nsubs; i++) {
		size_t size = (size_t)sub_size(i);
		int mine = p->subs[i].container == idx,
		    pub = p->topics[p->subs[i].topic].pub == idx;
		if (!pub) /* the other containers' ends are not this one's */
			close(ct.sock[2 * i]);
		if (!mine) {
			close(ct.sock[2 * i + 1]);
			continue;
		}
		c->rd[i].cap = size >= CT_READ_BATCH ? size : CT_READ_BATCH / size * size;
		if (!(c->rd[i].buf = faulted(c->rd[i].cap)))
			return ct_fail("out of memory"), 1;
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i << 1};
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, ct.sock[2 * i + 1], &ev))
			return ct_fail("epoll_ctl: %s", strerror(errno)), 1;
	}
	*out = c;
	return 0;
}

/* Writes what is left of subscription i's message. 1 while some is left, 0 done, -1 error. */
static int flush(uds_ctx *c, int i)
{
	uds_end *w = &c->wr[i];
	while (w->off < w->len) {
		ssize_t n = write(ct.sock[2 * i], w->buf + w->off, w->len - w->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return ct_fail("write: %s", n ? strerror(errno) : "0 bytes"), -1;
		w->off += (size_t)n;
	}
	w->off = w->len = 0;
	return epoll_ctl(c->epfd, EPOLL_CTL_DEL, ct.sock[2 * i], NULL)
	       ? ct_fail("epoll_ctl del: %s", strerror(errno)),
	       -1 : 0;
}

static int uds_publish(void *arg, int topic, const zb_hdr *h)
{
	uds_ctx *c = arg;
	const cp_topic *t = &ct.plan.topics[topic];
	int dropped = 0;
	zb_fill(c->tbuf[topic], t->size, h, c->mode);
	for (int i = t->first_sub; i < t->first_sub + t->nsubs; i++) {
		uds_end *w = &c->wr[i];
		int r = w->len ? flush(c, i) : 0;
		if (r) { /* still busy with the previous message: this one is lost for it */
			if (r < 0)
				return -1;
			dropped = 1;
			continue;
		}
		ssize_t n;
		while ((n = write(ct.sock[2 * i], c->tbuf[topic], t->size)) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)t->size)
			continue;
		if (n < 0 && errno != EAGAIN)
			return ct_fail("write: %s", strerror(errno)), -1;
		if (!w->buf && !(w->buf = malloc(t->size)))
			return ct_fail("out of memory"), -1;
		w->off = n > 0 ? (size_t)n : 0;
		w->len = t->size;
		memcpy(w->buf + w->off, c->tbuf[topic] + w->off, w->len - w->off);
		struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = (uint64_t)i << 1 | 1};
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, ct.sock[2 * i], &ev))
			return ct_fail("epoll_ctl add: %s", strerror(errno)), -1;
	}
	return dropped;
}

/* Reads what subscription i's socket has; hands over every whole message. 0 or -1. */
static int drain(uds_ctx *c, int i)
{
	uds_end *r = &c->rd[i];
	size_t size = (size_t)sub_size(i);
	ssize_t n = read(ct.sock[2 * i + 1], r->buf + r->off, r->cap - r->off);
	int64_t t = zb_now(); /* the container has every whole message read so far */
	if (n < 0)
		return errno == EAGAIN || errno == EINTR
			   ? 0
			   : (ct_fail("read: %s", strerror(errno)), -1);
	if (n == 0) /* the publisher closed its end (it finished first) */
		return epoll_ctl(c->epfd, EPOLL_CTL_DEL, ct.sock[2 * i + 1], NULL), 0;
	r->off += (size_t)n;
	size_t k = 0;
	for (; k + size <= r->off; k += size) {
		zb_hdr h;
		zb_sink += zb_consume(r->buf + k, size, &h, c->mode);
		ct_received(&h, t);
	}
	if (k) {
		memmove(r->buf, r->buf + k, r->off - k);
		r->off -= k;
	}
	return 0;
}

static int uds_wait(void *arg, int64_t timeout_ns)
{
	uds_ctx *c = arg;
	struct epoll_event ev[CT_EVENTS];
	struct timespec ts = {timeout_ns / 1000000000, timeout_ns % 1000000000};
	int n = epoll_pwait2(c->epfd, ev, CT_EVENTS, &ts, NULL);
	if (n < 0)
		return errno == EINTR ? 0 : (ct_fail("epoll_pwait2: %s", strerror(errno)), -1);
	for (int e = 0; e < n; e++) {
		int i = (int)(ev[e].data.u64 >> 1);
		if ((ev[e].data.u64 & 1 ? flush(c, i) : drain(c, i)) < 0)
			return -1;
	}
	return 0;
}

const ct_ops ct_uds_ops = {uds_open, uds_publish, uds_wait, uds_close};
