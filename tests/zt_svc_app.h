/* An executor-based server of sums that never blocks for room (tests/svc/test_svc_exec_*.c): a
 * response refused for room (loan ZCAST_ENOSLOT, send ZCAST_EAGAIN) keeps its request aside and
 * asks for one room callback (zcast_executor_want_server_room), which retries every request kept
 * aside. Counters under mu; `cv` is signalled on every change. */
#ifndef ZT_SVC_APP_H
#define ZT_SVC_APP_H

#include <pthread.h>

#include "zt_svc.h"

#define ZT_APP_MAX 64

struct zt_app {
	zcast_executor *ex;
	zcast_server *srv;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	zcast_msg *req[ZT_APP_MAX], *resp[ZT_APP_MAX]; /* kept aside: the request, a loan or NULL */
	int n_kept;
	int refused_of[ZT_APP_MAX]; /* refusals per add_req.a (a client's index) */
	int refused, rooms, sent, gone;
	pthread_t spin;
};

static inline void zt_app_note(struct zt_app *a, int *counter)
{
	pthread_mutex_lock(&a->mu);
	(*counter)++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* A counter's value, read under mu (callbacks of other threads change it). */
static inline int zt_app_count(struct zt_app *a, const int *counter)
{
	pthread_mutex_lock(&a->mu);
	int n = *counter;
	pthread_mutex_unlock(&a->mu);
	return n;
}

/* Waits until *counter >= n (no timeout of its own: the test's watchdog). */
static inline void zt_app_wait(struct zt_app *a, const int *counter, int n)
{
	pthread_mutex_lock(&a->mu);
	while (*counter < n)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
}

/* Answers req (the app's reference) with resp (a loan for it, or NULL): sent, its client gone,
 * or kept aside with a room callback asked for. */
static inline void zt_app_answer(struct zt_app *a, zcast_msg *req, zcast_msg *resp)
{
	int r = 0;
	if (!resp && (r = zcast_response_loan(a->srv, req, sizeof(struct add_resp), &resp)) == 0) {
		const struct add_req *q = zcast_service_data(req);
		struct add_resp *out = zcast_service_data(resp);
		*out = (struct add_resp){.sum = q->a + q->b, .pid = getpid()};
	}
	if (r == ZCAST_ENOENT) {
		zcast_msg_drop(req);
		zt_app_note(a, &a->gone);
		return;
	}
	if (r == 0 && (r = zcast_response_send(a->srv, resp)) == 0) {
		zcast_msg_drop(req);
		zt_app_note(a, &a->sent);
		return;
	}
	CHECK(r == ZCAST_ENOSLOT || r == ZCAST_EAGAIN);
	const struct add_req *q = zcast_service_data(req);
	int who = q->a >= 0 && q->a < ZT_APP_MAX ? (int)q->a : 0;
	pthread_mutex_lock(&a->mu);
	CHECK(a->n_kept < ZT_APP_MAX);
	a->req[a->n_kept] = req;
	a->resp[a->n_kept++] = r == ZCAST_EAGAIN ? resp : NULL;
	pthread_mutex_unlock(&a->mu);
	/* After the refusal: the entry watches the requests refused so far. Counted after the
	 * want: a test that sees the count may remove the entry. */
	CHECK_EQ(zcast_executor_want_server_room(a->ex, a->srv), 0);
	pthread_mutex_lock(&a->mu);
	a->refused++;
	a->refused_of[who]++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static inline void zt_app_on_request(zcast_server *srv, zcast_msg *req, void *ctx)
{
	(void)srv;
	zt_app_answer(ctx, zcast_msg_ref(req), NULL);
}

static inline void zt_app_room(zcast_server *srv, void *ctx)
{
	struct zt_app *a = ctx;
	CHECK(srv == a->srv);
	zcast_msg *req[ZT_APP_MAX], *resp[ZT_APP_MAX];
	pthread_mutex_lock(&a->mu);
	int n = a->n_kept;
	memcpy(req, a->req, sizeof req);
	memcpy(resp, a->resp, sizeof resp);
	a->n_kept = 0;
	a->rooms++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	for (int i = 0; i < n; i++)
		zt_app_answer(a, req[i], resp[i]);
}

static inline void *zt_app_spin(void *arg)
{
	CHECK_EQ(zcast_executor_spin(arg), 0);
	return NULL;
}

/* A server of `service` (`slots` response slots per client) in an executor of `threads`, with
 * its request and room entries, spinning in a thread of its own. */
static inline void zt_app_start(struct zt_app *a, const char *service, uint32_t slots,
				uint32_t threads)
{
	memset(a, 0, sizeof *a);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	zcast_service_opts so;
	zcast_service_opts_init(&so);
	so.slot_count = slots;
	CHECK_EQ(zcast_server_open(service, &so, &a->srv), 0);
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = threads;
	CHECK_EQ(zcast_executor_create(&eo, &a->ex), 0);
	CHECK_EQ(zcast_executor_want_server_room(a->ex, a->srv), ZCAST_ENOENT);
	CHECK_EQ(zcast_executor_add_server(a->ex, a->srv, zt_app_on_request, a), 0);
	CHECK_EQ(zcast_executor_add_server_room(a->ex, a->srv, zt_app_room, a), 0);
	CHECK_EQ(zcast_executor_add_server_room(a->ex, a->srv, zt_app_room, a), ZCAST_EBUSY);
	CHECK_EQ(pthread_create(&a->spin, NULL, zt_app_spin, a->ex), 0);
}

static inline void zt_app_stop(struct zt_app *a)
{
	CHECK_EQ(zcast_executor_stop(a->ex), 0);
	CHECK_EQ(pthread_join(a->spin, NULL), 0);
	CHECK_EQ(zcast_executor_remove_server_room(a->ex, a->srv), 0);
	CHECK_EQ(zcast_executor_remove_server_room(a->ex, a->srv), ZCAST_ENOENT);
	CHECK_EQ(zcast_executor_remove_server(a->ex, a->srv), 0);
	zcast_executor_destroy(a->ex);
	for (int i = 0; i < a->n_kept; i++) {
		zcast_msg_drop(a->resp[i]);
		zcast_msg_drop(a->req[i]);
	}
	CHECK_EQ(zcast_server_close(a->srv), 0);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
}

#endif
