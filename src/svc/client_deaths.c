/* How a client learns that the server that had a call is gone: after every reclaim and membership
 * change its process's death watcher calls this layer's hook, which looks at the request slot of
 * each pending call (in the client's own pool). A slot that is no longer PUBLISHED with the
 * generation of the loan was released: answered, or let go by a server that died or left. Such a
 * call is suspect; a marker published behind it on the client's own response topic tells which:
 * a response is always queued before its request is released, so a suspect call still without
 * response when its marker is taken will never get one (docs/SERVICES.md). */
#include <unistd.h>

#include "svc_internal.h"

static pthread_mutex_t clients_mu = PTHREAD_MUTEX_INITIALIZER;
static zcast_client *clients;
static pid_t clients_pid; /* a forked child inherits the list: its clients are not its own */

/* A fork while another thread holds the lock must not leave the child's copy locked. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&clients_mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&clients_mu);
}

static void fork_child(void)
{
	pthread_mutex_init(&clients_mu, NULL);
}

static void install_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Under clients_mu: the list, empty in a process that did not make it (the fork rule). */
static zcast_client **list(void)
{
	if (clients_pid != getpid()) {
		clients = NULL;
		clients_pid = getpid();
	}
	return &clients;
}

static void on_members_changed(void)
{
	pthread_mutex_lock(&clients_mu);
	for (zcast_client *c = *list(); c; c = c->next) {
		pthread_mutex_lock(&c->mu);
		c->hooks_run++;
		zc_svc_client_check(c);
		pthread_mutex_unlock(&c->mu);
	}
	pthread_mutex_unlock(&clients_mu);
}

void zc_svc_clients_add(zcast_client *cli)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_atfork);
	pthread_mutex_lock(&clients_mu);
	cli->next = *list();
	clients = cli;
	pthread_mutex_unlock(&clients_mu);
	zc_deaths_set_hook(on_members_changed);
}

void zc_svc_clients_remove(zcast_client *cli)
{
	pthread_mutex_lock(&clients_mu);
	for (zcast_client **p = list(); *p; p = &(*p)->next)
		if (*p == cli) {
			*p = cli->next;
			break;
		}
	pthread_mutex_unlock(&clients_mu);
}

static bool released(zcast_client *cli, const struct zc_svc_call *c)
{
	const struct zc_pool_map *pool = cli->req_pub->pool;
	if (c->slot >= pool->slot_count)
		return true; /* cannot be: the slot is our own loan's */
	/* SYNC: response-before-release — pairs with zcast_response_send (server.c): seeing the
	 * slot released, every response it got is queued before the marker published next. */
	uint64_t w = atomic_load_explicit(&zc_slot(pool, c->slot)->state, memory_order_acquire);
	return w != ZC_STATE(ZC_SLOT_PUBLISHED, c->gen);
}

static void publish_marker(zcast_client *cli)
{
	zcast_msg *m;
	if (zcast_loan(cli->self_pub, ZCAST_SERVICE_HEADER, &m) != 0)
		return; /* every marker slot is queued: a later one settles these calls too */
	zc_svc_hdr_write(m, ZC_SVC_MARKER, cli->id, cli->nonce, cli->next_marker);
	if (zcast_publish(cli->self_pub, m) != 0)
		zcast_msg_drop(m);
}

void zc_svc_client_check(zcast_client *cli)
{
	bool suspects = false;
	for (uint32_t i = 0; i < cli->o.slot_count; i++) {
		struct zc_svc_call *c = &cli->calls[i];
		if (c->state == ZC_CALL_PENDING && released(cli, c)) {
			c->state = ZC_CALL_SUSPECT;
			c->marker = cli->next_marker + 1;
			suspects = true;
		}
	}
	if (!suspects)
		return;
	cli->next_marker++;
	publish_marker(cli);
}
