/* Services (issue 23) from several threads at once: one server taken and answered by three worker
 * threads; one client whose three threads each make blocking calls (zcast_client_call); one client
 * whose two threads send requests and take outcomes (zcast_request_send, zcast_response_take,
 * zcast_client_wait) while a third makes blocking calls on it. Every call gets its own response
 * (the sum of its request, matched by sequence number), none is lost or given twice, and nothing
 * is pending at the end. Run under TSan too (scripts/test.sh: svc_.*). */
#include <pthread.h>
#include <sched.h>

#include "zt_svc.h"

#define SERVICE "/svcthreads/add"
#define SERVERS 3
#define CALLERS 3
#define SENDERS 2
#define CALLS 150 /* per thread */

static zcast_server *srv;
static zcast_client *sync_cli, *async_cli;
static _Atomic uint64_t served, async_sent, async_done;
/* async_cli's sends by seq: 0 not sent (or not recorded yet), the sum expected, -1 answered. A
 * send that fails (a full queue) uses a seq too. */
static _Atomic int64_t expected[1 << 16];

/* A worker of the server: takes, answers, until it takes a STOP (which it answers too). */
static void *server_thread(void *arg)
{
	(void)arg;
	for (;;) {
		CHECK_EQ(zcast_server_wait(srv, -1), 0);
		zcast_msg *req;
		int r = zcast_request_take(srv, &req);
		if (r == ZCAST_EAGAIN)
			continue; /* another worker took it */
		CHECK_EQ(r, 0);
		CHECK(zcast_request_seq(srv, req) != 0);
		const struct add_req *q = zcast_service_data(req);
		struct add_req in = *q;
		zcast_msg *resp;
		CHECK_EQ(zcast_response_loan(srv, req, sizeof(struct add_resp), &resp), 0);
		struct add_resp *out = zcast_service_data(resp);
		*out = (struct add_resp){.sum = in.a + in.b, .pid = getpid()};
		CHECK_EQ(zcast_response_send(srv, resp), 0);
		zcast_msg_drop(req);
		atomic_fetch_add(&served, 1);
		if (in.op == OP_STOP)
			return NULL;
	}
}

/* One blocking call. The senders of async_cli may have all its call slots pending: then the loan
 * (or the send) says ZCAST_ENOSLOT, and the call is made again once they took outcomes. */
static int64_t call(zcast_client *cli, uint32_t op, int64_t a, int64_t b)
{
	zcast_msg *resp, *req;
	int r;
	while ((r = zcast_request_loan(cli, sizeof(struct add_req), &req)) == ZCAST_ENOSLOT)
		sched_yield();
	CHECK_EQ(r, 0);
	*(struct add_req *)zcast_service_data(req) = (struct add_req){.op = op, .a = a, .b = b};
	r = zcast_client_call(cli, req, 30000000000ll, &resp);
	if (r == ZCAST_ENOSLOT)
		return call(cli, op, a, b);
	CHECK_EQ(r, 0);
	int64_t sum = ((const struct add_resp *)zcast_service_data(resp))->sum;
	zcast_msg_drop(resp);
	return sum;
}

/* Blocking calls on `arg` (a client shared with other threads). */
static void *caller_thread(void *arg)
{
	zcast_client *cli = arg;
	static _Atomic int64_t next_a = 1;
	for (int i = 0; i < CALLS; i++) {
		int64_t a = atomic_fetch_add(&next_a, 1) * 1000;
		CHECK_EQ(call(cli, OP_ADD, a, i), a + i);
	}
	return NULL;
}

/* Takes every outcome ready on async_cli: each a response to one of its sends, once. */
static void take_outcomes(void)
{
	zcast_msg *resp;
	uint64_t seq;
	int r;
	while ((r = zcast_response_take(async_cli, &resp, &seq)) == 0) {
		CHECK(seq < sizeof expected / sizeof expected[0]);
		int64_t want;
		while ((want = atomic_load(&expected[seq])) == 0)
			sched_yield(); /* its sender has not recorded it yet: it does right after */
		CHECK(want > 0); /* not answered before */
		atomic_store(&expected[seq], -1);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, want);
		zcast_msg_drop(resp);
		atomic_fetch_add(&async_done, 1);
	}
	CHECK_EQ(r, ZCAST_EAGAIN);
}

/* Sends on async_cli and takes whatever outcomes are ready, its own or the other sender's. */
static void *sender_thread(void *arg)
{
	int64_t base = (int64_t)(intptr_t)arg * 1000000;
	for (int i = 0; i < CALLS;) {
		zcast_msg *req;
		int r = zcast_request_loan(async_cli, sizeof(struct add_req), &req);
		if (r == ZCAST_ENOSLOT) { /* every call slot pending: outcomes first */
			(void)zcast_client_wait(async_cli, 10000000);
			take_outcomes();
			continue;
		}
		CHECK_EQ(r, 0);
		struct add_req *q = zcast_service_data(req);
		*q = (struct add_req){.op = OP_ADD, .a = base + i, .b = 5};
		uint64_t seq;
		r = zcast_request_send(async_cli, req, &seq);
		if (r == 0) {
			CHECK(seq < sizeof expected / sizeof expected[0]);
			atomic_store(&expected[seq], base + i + 5);
		}
		if (r == ZCAST_EAGAIN || r == ZCAST_ENOSLOT) { /* the server's queue is full */
			zcast_msg_drop(req);
			take_outcomes();
			continue;
		}
		CHECK_EQ(r, 0);
		atomic_fetch_add(&async_sent, 1);
		i++;
		take_outcomes();
	}
	while (atomic_load(&async_done) < SENDERS * CALLS) {
		(void)zcast_client_wait(async_cli, 10000000); /* the other sender may take them */
		take_outcomes();
	}
	return NULL;
}

int main(void)
{
	zt_setup("svcthreads", 60);
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.queue_depth = 8;
	/* Response slots per client: beyond its 8 pending calls, responses it took and still
	 * holds. */
	o.slot_count = 32;
	CHECK_EQ(zcast_server_open(SERVICE, &o, &srv), 0);
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &sync_cli), 0);
	CHECK_EQ(zcast_client_open(SERVICE, NULL, &async_cli), 0);

	pthread_t servers[SERVERS], callers[CALLERS], senders[SENDERS], mixed;
	for (int i = 0; i < SERVERS; i++)
		CHECK_EQ(pthread_create(&servers[i], NULL, server_thread, NULL), 0);
	for (int i = 0; i < CALLERS; i++)
		CHECK_EQ(pthread_create(&callers[i], NULL, caller_thread, sync_cli), 0);
	for (int i = 0; i < SENDERS; i++)
		CHECK_EQ(pthread_create(&senders[i], NULL, sender_thread, (void *)(intptr_t)(i + 1)),
			 0);
	CHECK_EQ(pthread_create(&mixed, NULL, caller_thread, async_cli), 0);
	for (int i = 0; i < CALLERS; i++)
		CHECK_EQ(pthread_join(callers[i], NULL), 0);
	for (int i = 0; i < SENDERS; i++)
		CHECK_EQ(pthread_join(senders[i], NULL), 0);
	CHECK_EQ(pthread_join(mixed, NULL), 0);

	CHECK_EQ(atomic_load(&async_sent), SENDERS * CALLS);
	CHECK_EQ(atomic_load(&async_done), SENDERS * CALLS);
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		CHECK(atomic_load(&expected[i]) <= 0); /* every send answered, once */
	CHECK_EQ(zcast_client_pending(sync_cli), 0);
	CHECK_EQ(zcast_client_pending(async_cli), 0);
	for (int i = 0; i < SERVERS; i++) /* one STOP per worker: each answers one and ends */
		CHECK_EQ(call(sync_cli, OP_STOP, i, 1), i + 1);
	for (int i = 0; i < SERVERS; i++)
		CHECK_EQ(pthread_join(servers[i], NULL), 0);
	CHECK_EQ(atomic_load(&served), (CALLERS + 1 + SENDERS) * CALLS + SERVERS);
	CHECK_EQ(zcast_client_close(async_cli), 0);
	CHECK_EQ(zcast_client_close(sync_cli), 0);
	CHECK_EQ(zcast_server_close(srv), 0);
	printf("svc_threads: %d server threads answered %llu calls of %d client threads\n", SERVERS,
	       (unsigned long long)atomic_load(&served), CALLERS + SENDERS + 1);
	return 0;
}
