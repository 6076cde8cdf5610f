/* Copying message transport: POSIX message queues, one queue per reader. Skipped when the kernel
 * refuses a queue of the needed message size / depth. Busy-poll: O_NONBLOCK receive retried.
 * try_send: mq_send on a second, O_NONBLOCK descriptor of the queue (EAGAIN = full); the blocking
 * one stays for send (the end-of-stream message must wait for room). */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct zb_chan {
	const zb_chan_params *p;
	mqd_t q[ZB_MAX_CHILDREN];
	mqd_t nb[ZB_MAX_CHILDREN]; /* fail_full writer: O_NONBLOCK descriptors */
	int n, reader;
	unsigned char *buf;
};

static void qname(char *out, size_t n, const zb_chan_params *p, int i)
{
	snprintf(out, n, "/%s_%s_%d", p->run_id, p->name, i);
}

static int m_prepare(zb_chan_params *p, void **shared, char *why, size_t n)
{
	if (p->drop_old) {
		snprintf(why, n, "no drop-oldest policy");
		return -1;
	}
	if (p->wake != ZB_WAKE_ALL) {
		snprintf(why, n, "the kernel wakes the readers: no --wake %s", zb_wake_names[p->wake]);
		return -1;
	}
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	setrlimit(RLIMIT_MSGQUEUE, &rl); /* best effort (needs privilege) */
	*shared = NULL;
	for (int i = 0; i < p->nreaders; i++) {
		char name[96];
		qname(name, sizeof name, p, i);
		struct mq_attr a = {0};
		a.mq_maxmsg = p->depth;
		a.mq_msgsize = (long)p->max_size;
		mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
		if (q == (mqd_t)-1 && errno == EINVAL && p->depth > 10) {
			a.mq_maxmsg = 10; /* default msg_max */
			q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
		}
		if (q == (mqd_t)-1) {
			snprintf(why, n, "mq_open(msgsize=%zu, maxmsg=%d): %s", p->max_size, p->depth,
			         strerror(errno));
			for (int j = 0; j < i; j++) {
				qname(name, sizeof name, p, j);
				mq_unlink(name);
			}
			return -1;
		}
		mq_close(q);
	}
	return 0;
}

static int m_open(const zb_chan_params *p, void *shared, int reader, zb_chan **out)
{
	(void)shared;
	zb_chan *c = calloc(1, sizeof *c);
	c->p = p;
	c->reader = reader;
	c->buf = malloc(p->max_size);
	memset(c->buf, 0, p->max_size);
	char name[96];
	for (int i = 0; i < p->nreaders; i++) {
		if (reader >= 0 && i != reader)
			continue;
		qname(name, sizeof name, p, i);
		int fl = reader >= 0 ? (O_RDONLY | (p->spin ? O_NONBLOCK : 0)) : O_WRONLY;
		c->q[i] = mq_open(name, fl);
		if (c->q[i] == (mqd_t)-1)
			return -1;
		if (reader < 0 && p->fail_full && (c->nb[i] = mq_open(name, O_WRONLY | O_NONBLOCK)) == (mqd_t)-1)
			return -1;
	}
	*out = c;
	return 0;
}

static int m_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	(void)deadline;
	zb_fill(c->buf, size, h, mode);
	for (int i = 0; i < c->p->nreaders; i++)
		while (mq_send(c->q[i], (const char *)c->buf, size, 0))
			if (errno != EINTR)
				return -1;
	return 0;
}

static int m_try_send(zb_chan *c, const zb_hdr *h, size_t size, int mode)
{
	/* with several readers nothing is sent unless every queue has room (the writer is the only
	 * sender, so room seen here stays) */
	for (int i = 0; c->p->nreaders > 1 && i < c->p->nreaders; i++) {
		struct mq_attr a;
		if (mq_getattr(c->nb[i], &a))
			return -1;
		if (a.mq_curmsgs >= a.mq_maxmsg)
			return 1;
	}
	zb_fill(c->buf, size, h, mode);
	for (int i = 0; i < c->p->nreaders; i++)
		while (mq_send(c->nb[i], (const char *)c->buf, size, 0)) {
			if (errno == EAGAIN)
				return 1;
			if (errno != EINTR)
				return -1;
		}
	return 0;
}

static int m_recv(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	unsigned spins = 0;
	for (;;) {
		ssize_t r = mq_receive(c->q[c->reader], (char *)c->buf, c->p->max_size, NULL);
		if (r >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		if ((++spins & 1023) == 0 && zb_now() > deadline)
			return -1;
	}
	zb_sink += zb_consume(c->buf, size, h, mode);
	return 0;
}

static void m_close(zb_chan *c)
{
	for (int i = 0; i < c->p->nreaders; i++)
		if (c->reader < 0 || i == c->reader) {
			mq_close(c->q[i]);
			if (c->reader < 0 && c->p->fail_full)
				mq_close(c->nb[i]);
		}
	free(c->buf);
	free(c);
}

static void m_cleanup(zb_chan_params *p, void *shared)
{
	(void)shared;
	char name[96];
	for (int i = 0; i < p->nreaders; i++) {
		qname(name, sizeof name, p, i);
		mq_unlink(name);
	}
}

const zb_system zb_sys_mq = {"mq", m_prepare, m_open, NULL, m_send, m_try_send, m_recv, m_close, m_cleanup};
