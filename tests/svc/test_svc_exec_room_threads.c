/* Services in a pool executor (3 threads): room callbacks and request callbacks of one server run
 * in the pool's threads, wants come from those threads, while four client threads each make 40
 * calls. Each server has one response slot per client, and each client holds its previous
 * response until the server has refused the next one for room, then drops it: every call after
 * the first needs a room callback. Every call must end with its sum (no timeout: a lost wake is a
 * watchdog failure). */
#include "zt_svc_app.h"

static const char *service = "/svc/exec_room_threads";

enum { CLIENTS = 4, CALLS = 40 };

struct caller {
	struct zt_app *app;
	int index;
};

static void *client_main(void *arg)
{
	struct caller *c = arg;
	struct zt_app *a = c->app;
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	zcast_msg *held = NULL;
	for (int i = 0; i < CALLS; i++) {
		uint64_t seq, got;
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, c->index, i), &seq), 0);
		if (held) { /* refused for room first, then the slot comes back */
			zt_app_wait(a, &a->refused_of[c->index], i);
			zcast_msg_drop(held);
		}
		CHECK_EQ(zt_next_outcome(cli, &held, &got), 0);
		CHECK_EQ(got, seq);
		CHECK_EQ(((const struct add_resp *)zcast_service_data(held))->sum, c->index + i);
	}
	zcast_msg_drop(held);
	CHECK_EQ(zcast_client_close(cli), 0);
	return NULL;
}

int main(void)
{
	zt_setup("svc_exec_room_threads", 240);
	struct zt_app a;
	zt_app_start(&a, service, 1, 3);
	pthread_t th[CLIENTS];
	struct caller c[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		c[i] = (struct caller){&a, i};
		CHECK_EQ(pthread_create(&th[i], NULL, client_main, &c[i]), 0);
	}
	for (int i = 0; i < CLIENTS; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	int refused = zt_app_count(&a, &a.refused), rooms = zt_app_count(&a, &a.rooms);
	printf("# %d calls, %d refused for room, %d room callbacks\n", CLIENTS * CALLS, refused,
	       rooms);
	CHECK(refused >= CLIENTS * (CALLS - 1));
	CHECK(rooms >= 1);
	zt_app_stop(&a);
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_exec_room_threads\n");
	return 0;
}
