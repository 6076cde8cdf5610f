/* The process's service handles (clients and servers) and the death watcher's hook: after every
 * reclaim and membership change (core/deaths.c) each handle runs its check (a client: its
 * pending calls, client_deaths.c; a server: its routes to clients that are gone,
 * server_sweep.c). */
#include <unistd.h>

#include "svc_internal.h"

static pthread_mutex_t handles_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zc_svc_handle *handles;
static pid_t handles_pid; /* a forked child inherits the list: its handles are not its own */

/* A fork while another thread holds the lock must not leave the child's copy locked. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&handles_mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&handles_mu);
}

static void fork_child(void)
{
	pthread_mutex_init(&handles_mu, NULL);
}

static void install_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Under handles_mu: the list, empty in a process that did not make it (the fork rule). */
static struct zc_svc_handle **list(void)
{
	if (handles_pid != getpid()) {
		handles = NULL;
		handles_pid = getpid();
	}
	return &handles;
}

static void on_members_changed(void)
{
	pthread_mutex_lock(&handles_mu);
	for (struct zc_svc_handle *h = *list(); h; h = h->next)
		h->changed(h);
	pthread_mutex_unlock(&handles_mu);
}

void zc_svc_handle_add(struct zc_svc_handle *h)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_atfork);
	pthread_mutex_lock(&handles_mu);
	h->next = *list();
	handles = h;
	pthread_mutex_unlock(&handles_mu);
	zc_deaths_set_hook(on_members_changed);
}

void zc_svc_handle_remove(struct zc_svc_handle *h)
{
	pthread_mutex_lock(&handles_mu);
	for (struct zc_svc_handle **p = list(); *p; p = &(*p)->next)
		if (*p == h) {
			*p = h->next;
			break;
		}
	pthread_mutex_unlock(&handles_mu);
}
