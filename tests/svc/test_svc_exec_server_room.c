/* Services in the executor: a server that never blocks for room (tests/zt_svc_app.h: a response
 * refused for room is kept aside, zcast_executor_want_server_room asked, retried in the room
 * callback) gets its room callback for everything that can end the wait:
 *  - the client drops the response that held the only response slot (pool full);
 *  - the client takes its queue (queue full: its calls forgotten, their responses left queued);
 *  - the client closes (the retry finds it gone);
 *  - the client process is killed -9 (the reclaim frees its slot, or the retry finds it gone).
 * And remove_server_room while wanted: no callback after it returns, want says ZCAST_ENOENT.
 * The waits have no timeout: a room callback that never comes is a watchdog failure. */
#include "zt_svc_app.h"
#include "zt_svc_room.h"

static const char *service = "/svc/exec_server_room";

/* The client's first call answered, its response taken and held: the only response slot. Then a
 * second call whose response finds no room. Returns the held response; *seq2 is the second call. */
static zcast_msg *hold_slot(struct zt_app *a, zcast_client *cli, uint64_t *seq2)
{
	zcast_msg *held;
	uint64_t seq;
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 1, 2), &seq), 0);
	CHECK_EQ(zt_next_outcome(cli, &held, &seq), 0);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(held))->sum, 3);
	int refused = zt_app_count(a, &a->refused);
	CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 3, 4), seq2), 0);
	zt_app_wait(a, &a->refused, refused + 1);
	return held;
}

static void client_drops(void)
{
	struct zt_app a;
	zt_app_start(&a, service, 1, 1);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seq2, got;
	zcast_msg *held = hold_slot(&a, cli, &seq2), *resp;
	zcast_msg_drop(held); /* the slot comes back: the room callback answers */
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
	CHECK_EQ(got, seq2);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 7);
	CHECK(zt_app_count(&a, &a.rooms) >= 1);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	zt_app_stop(&a);
}

/* The client's queue fills with responses of calls it forgot (the server has slots to spare);
 * the response that finds it full waits until the client takes. */
static void client_takes(void)
{
	struct zt_app a;
	zt_app_start(&a, service, 64, 1);
	zcast_service_opts co;
	zcast_service_opts_init(&co);
	co.slot_count = 1; /* a queue of a few messages */
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, &co, &cli), 0);
	uint64_t seq = 0;
	for (int i = 0; zt_app_count(&a, &a.refused) == 0; i++) {
		CHECK(i < 60);
		int sent = zt_app_count(&a, &a.sent);
		CHECK_EQ(zcast_request_send(cli, zt_request(cli, OP_ADD, 0, i), &seq), 0);
		pthread_mutex_lock(&a.mu);
		while (a.sent == sent && a.refused == 0)
			pthread_cond_wait(&a.cv, &a.mu);
		pthread_mutex_unlock(&a.mu);
		if (zt_app_count(&a, &a.refused) == 0)
			CHECK_EQ(zcast_client_forget(cli, seq), 0);
	}
	CHECK_EQ(zt_app_count(&a, &a.rooms), 0);
	/* The take drops the forgotten responses: queue room, the callback sends the last one. */
	zcast_msg *resp;
	uint64_t got;
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
	CHECK_EQ(got, seq);
	CHECK(zt_app_count(&a, &a.rooms) >= 1);
	zcast_msg_drop(resp);
	CHECK_EQ(zcast_client_close(cli), 0);
	zt_app_stop(&a);
}

static void client_closes(void)
{
	struct zt_app a;
	zt_app_start(&a, service, 1, 1);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seq2;
	zcast_msg *held = hold_slot(&a, cli, &seq2);
	CHECK_EQ(zcast_client_close(cli), 0); /* with the response still held */
	zt_app_wait(&a, &a.gone, 1);	      /* the retry found the client gone */
	CHECK(zt_app_count(&a, &a.rooms) >= 1);
	zcast_msg_drop(held);
	zt_app_stop(&a);
}

static void client_killed(void)
{
	struct zt_app a;
	zt_app_start(&a, service, 1, 1);
	int p[2];
	CHECK_EQ(pipe(p), 0);
	struct zt_doomed d = {service, p[1], 0};
	pid_t pid = zt_fork(zt_doomed_client, &d);
	zt_get_byte(p[0]);
	zt_app_wait(&a, &a.refused, 1);
	kill(pid, SIGKILL);
	zt_wait(pid);
	/* The reclaim frees the slot (the response then goes to nobody) or the client is gone. */
	pthread_mutex_lock(&a.mu);
	while (a.sent + a.gone < 2)
		pthread_cond_wait(&a.cv, &a.mu);
	pthread_mutex_unlock(&a.mu);
	CHECK(zt_app_count(&a, &a.rooms) >= 1);
	zt_app_stop(&a);
	close(p[0]), close(p[1]);
}

static int guard_calls;
static void on_guard(zcast_guard *g, void *ctx)
{
	(void)g;
	zt_app_note(ctx, &guard_calls);
}

/* Removed while wanted (from another thread while the executor spins, and with nobody spinning):
 * no callback once remove returned, even when room comes; want then says ZCAST_ENOENT. A guard
 * shows the executor ran turns after the room came. */
static void remove_while_wanted(void)
{
	struct zt_app a;
	zt_app_start(&a, service, 1, 1);
	zcast_guard *g;
	CHECK_EQ(zcast_guard_create(&g), 0);
	CHECK_EQ(zcast_executor_add_guard(a.ex, g, on_guard, &a), 0);
	zcast_client *cli;
	CHECK_EQ(zcast_client_open(service, NULL, &cli), 0);
	uint64_t seq2;
	zcast_msg *held = hold_slot(&a, cli, &seq2);
	CHECK_EQ(zcast_executor_remove_server_room(a.ex, a.srv), 0); /* wanted: the refusal */
	CHECK_EQ(zcast_executor_want_server_room(a.ex, a.srv), ZCAST_ENOENT);
	int rooms = zt_app_count(&a, &a.rooms);
	zcast_msg_drop(held); /* room */
	for (int i = 1; i <= 3; i++) {
		CHECK_EQ(zcast_guard_trigger(g), 0);
		zt_app_wait(&a, &guard_calls, i);
	}
	CHECK_EQ(zt_app_count(&a, &a.rooms), rooms);

	/* Added again, wanted, removed while nobody spins: nothing runs later either. */
	CHECK_EQ(zcast_executor_stop(a.ex), 0);
	CHECK_EQ(pthread_join(a.spin, NULL), 0);
	CHECK_EQ(zcast_executor_reset(a.ex), 0);
	CHECK_EQ(zcast_executor_add_server_room(a.ex, a.srv, zt_app_room, &a), 0);
	CHECK_EQ(zcast_executor_want_server_room(a.ex, a.srv), 0);
	CHECK_EQ(zcast_executor_remove_server_room(a.ex, a.srv), 0);
	CHECK_EQ(zcast_executor_spin_once(a.ex, 0), ZCAST_ETIMEDOUT);
	CHECK_EQ(zt_app_count(&a, &a.rooms), rooms);
	/* The kept request is answered by the room entry added once more. */
	CHECK_EQ(zcast_executor_add_server_room(a.ex, a.srv, zt_app_room, &a), 0);
	CHECK_EQ(zcast_executor_want_server_room(a.ex, a.srv), 0);
	CHECK_EQ(zcast_executor_spin_once(a.ex, -1), 1);
	CHECK_EQ(zt_app_count(&a, &a.rooms), rooms + 1);
	zcast_msg *resp;
	uint64_t got;
	CHECK_EQ(zt_next_outcome(cli, &resp, &got), 0);
	CHECK_EQ(got, seq2);
	zcast_msg_drop(resp);
	CHECK_EQ(pthread_create(&a.spin, NULL, zt_app_spin, a.ex), 0);
	CHECK_EQ(zcast_executor_remove_guard(a.ex, g), 0);
	zcast_guard_destroy(g);
	CHECK_EQ(zcast_client_close(cli), 0);
	zt_app_stop(&a);
}

int main(void)
{
	zt_setup("svc_exec_server_room", 120);
	client_drops();
	client_takes();
	client_closes();
	client_killed();
	remove_while_wanted();
	CHECK_EQ(zt_shm_count(), 0);
	printf("PASS svc_exec_server_room\n");
	return 0;
}
