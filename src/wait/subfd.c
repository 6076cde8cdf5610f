/* Pollable subscriber descriptors (docs/WAITSETS.md, "Descriptors").
 *
 * A publisher cannot write another process's eventfd, so a per-process helper thread waits, in a
 * wait set of its own, on every subscriber that has a descriptor, and writes the subscriber's eventfd
 * when messages are queued. It then stops watching that subscriber (the publisher pays nothing for it
 * any more) until zcast_take finds the queue empty: that EAGAIN drains the eventfd and re-arms.
 * The helper's wait set is touched only by the helper; other threads queue requests under `mu` and
 * trigger the helper's guard. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "wait_internal.h"

struct zc_subfd {
	zcast_sub *sub;
	int efd;
	int id;                /* entry in the helper's wait set */
	_Atomic int watching;  /* 1 while the helper watches (or is asked to watch) the subscriber */
};

enum { OP_ADD, OP_REARM, OP_DEL };
struct op {
	int type;
	struct zc_subfd *f;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t done;
	bool started;
	pid_t owner;
	zcast_waitset *ws;
	zcast_guard *ctl;
	struct op *ops;
	uint32_t n_ops, cap_ops;
	uint64_t requested, applied; /* request counters: a detacher waits until applied >= its own */
} R = {.mu = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void apply_ops(void)
{
	for (uint32_t i = 0; i < R.n_ops; i++) {
		struct zc_subfd *f = R.ops[i].f;
		switch (R.ops[i].type) {
		case OP_ADD:
			if (zcast_waitset_add_sub(R.ws, f->sub, f, &f->id) != 0)
				f->id = -1;
			break;
		case OP_REARM:
			if (f->id >= 0)
				zcast_waitset_enable(R.ws, f->id, 1);
			break;
		case OP_DEL:
			if (f->id >= 0)
				zcast_waitset_remove(R.ws, f->id);
			f->id = -1;
			break;
		}
	}
	R.n_ops = 0;
}

static void *helper_main(void *arg)
{
	(void)arg;
	zcast_ws_event ev[64];
	for (;;) {
		pthread_mutex_lock(&R.mu);
		uint64_t req = R.requested;
		apply_ops();
		R.applied = req;
		pthread_cond_broadcast(&R.done);
		pthread_mutex_unlock(&R.mu);
		int n = zcast_waitset_wait(R.ws, -1, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].kind != ZCAST_WS_SUB)
				continue; /* the guard: requests are applied at the top */
			struct zc_subfd *f = ev[i].user;
			zcast_waitset_enable(R.ws, ev[i].id, 0);
			/* Write, then clear `watching`: a take that sees 0 finds the count to drain. */
			uint64_t one = 1;
			if (write(f->efd, &one, sizeof one) < 0) {
			}
			atomic_store(&f->watching, 0);
		}
	}
	return NULL;
}

/* A forked child has no helper thread; the mutex may be held by a thread that is not there. */
static void child_reset(void)
{
	pthread_mutex_init(&R.mu, NULL);
	pthread_cond_init(&R.done, NULL);
	R.started = false;
	R.ops = NULL;
	R.n_ops = R.cap_ops = 0;
}
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void)
{
	pthread_atfork(NULL, NULL, child_reset);
}

/* Under R.mu. */
static int start_helper(void)
{
	if (R.started && R.owner == getpid())
		return 0;
	/* First use, or a forked child (the parent's thread does not exist here). */
	int id;
	R.n_ops = 0;
	R.requested = R.applied = 0;
	int r = zcast_waitset_create(&R.ws);
	if (r == 0 && (r = zcast_guard_create(&R.ctl)) == 0)
		r = zcast_waitset_add_guard(R.ws, R.ctl, NULL, &id);
	if (r < 0)
		return r;
	pthread_t th;
	if ((r = zc_thread_start(helper_main, NULL, &th, true)) < 0)
		return r;
	R.started = true;
	R.owner = getpid();
	return 0;
}

/* Under R.mu. Returns the request number. */
static void rearm(zcast_sub *sub);
static void detach(zcast_sub *sub);
/* The core calls these through the subscriber's hooks: it knows nothing of descriptors. */
static const struct zc_sub_hooks hooks = {.drained = rearm, .closing = detach};

static uint64_t push(int type, struct zc_subfd *f)
{
	if (R.n_ops == R.cap_ops) {
		uint32_t cap = R.cap_ops ? R.cap_ops * 2 : 16;
		struct op *no = realloc(R.ops, cap * sizeof *no);
		if (!no)
			abort(); /* a few bytes; nothing sensible to do without them */
		R.ops = no;
		R.cap_ops = cap;
	}
	R.ops[R.n_ops++] = (struct op){type, f};
	return ++R.requested;
}

int zcast_sub_fd(zcast_sub *sub, int *fd)
{
	if (!sub || !fd)
		return zc_err(ZCAST_EINVAL, "NULL argument");
	struct zc_subfd *f = ((struct zc_subfd *)atomic_load(&sub->hook_data));
	if (f) {
		*fd = f->efd;
		return 0;
	}
	f = calloc(1, sizeof *f);
	if (!f)
		return zc_err(ZCAST_ENOMEM, "out of memory");
	f->sub = sub;
	f->id = -1;
	atomic_init(&f->watching, 1);
	f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (f->efd < 0) {
		free(f);
		return zc_errno(ZCAST_ESYS, "eventfd");
	}
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&R.mu);
	int r = start_helper();
	void *none = NULL;
	if (r == 0 && !atomic_compare_exchange_strong(&sub->hook_data, &none, f))
		r = 1; /* another thread made one first */
	if (r == 0) {
		atomic_store(&sub->hooks, &hooks);
		push(OP_ADD, f);
	}
	pthread_mutex_unlock(&R.mu);
	if (r != 0) {
		close(f->efd);
		free(f);
		if (r < 0)
			return r;
		*fd = ((struct zc_subfd *)atomic_load(&sub->hook_data))->efd;
		return 0;
	}
	zcast_guard_trigger(R.ctl);
	*fd = f->efd;
	return 0;
}

static void rearm(zcast_sub *sub)
{
	struct zc_subfd *f =
	    (struct zc_subfd *)atomic_load_explicit(&sub->hook_data, memory_order_acquire);
	int zero = 0;
	if (!f || !atomic_compare_exchange_strong(&f->watching, &zero, 1))
		return; /* watched already: nothing to do, no syscall */
	uint64_t v;
	if (read(f->efd, &v, sizeof v) < 0) { /* drain before the helper may signal again */
	}
	pthread_mutex_lock(&R.mu);
	push(OP_REARM, f);
	pthread_mutex_unlock(&R.mu);
	zcast_guard_trigger(R.ctl);
}

static void detach(zcast_sub *sub)
{
	struct zc_subfd *f = atomic_exchange(&sub->hook_data, NULL);
	if (!f)
		return;
	if (R.owner != getpid()) { /* a forked child: the helper that knew f is the parent's */
		close(f->efd);
		free(f);
		return;
	}
	pthread_mutex_lock(&R.mu);
	uint64_t req = push(OP_DEL, f);
	pthread_mutex_unlock(&R.mu);
	zcast_guard_trigger(R.ctl);
	pthread_mutex_lock(&R.mu);
	while (R.applied < req) /* the helper answers every trigger: it never sleeps on a request */
		pthread_cond_wait(&R.done, &R.mu);
	pthread_mutex_unlock(&R.mu);
	close(f->efd);
	free(f);
}
