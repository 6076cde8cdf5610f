/* The scene of the svc_marker_* tests: a client of one call slot (so, before svc_marker_exec, one
 * marker slot). A hook run after its server answered call 1 makes call 1 suspect and queues
 * marker 1 behind the response; the client takes the response and leaves marker 1 queued (its
 * slot held). Call 2 is taken by a server that is then killed, and the hook after the reclaim
 * makes call 2 suspect: marker 2 is owed (or, since a client has a marker slot more than calls,
 * published at once). What settles call 2 is each test's own. */
#ifndef ZT_SVC_MARKER_H
#define ZT_SVC_MARKER_H

#include "zt_svc.h"

struct zt_marker_scene {
	zcast_client *cli;
	uint64_t seq1, seq2;
	int took[2]; /* the server's "took a request" pipe, closed by zt_marker_scene_end */
};

/* A member joins and leaves the request topic: the client's death watcher runs the hook. */
static inline void zt_membership_change(const char *service)
{
	zcast_client *c2;
	CHECK_EQ(zcast_client_open(service, NULL, &c2), 0);
	CHECK_EQ(zcast_client_close(c2), 0);
}

static inline void zt_marker_scene(const char *service, struct zt_marker_scene *sc)
{
	CHECK_EQ(pipe(sc->took), 0);
	struct zt_server s = {.service = service, .took_w = sc->took[1], .start_r = -1};
	pid_t server = zt_start_server(&s);
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	o.slot_count = 1;
	CHECK_EQ(zcast_client_open(service, &o, &sc->cli), 0);
	char topic[256];
	zt_response_topic(service, topic);

	/* Call 1 answered; hooks run until its released request makes it suspect: marker 1. */
	uint64_t got;
	CHECK_EQ(zcast_request_send(sc->cli, zt_request(sc->cli, OP_ADD, 1, 2), &sc->seq1), 0);
	for (int i = 0; i < 2000 && zt_published(topic) < 2; i++) {
		if (zt_published(topic) == 1)
			zt_membership_change(service);
		zt_sleep_ms(5);
	}
	CHECK_EQ(zt_published(topic), 2); /* the response, then marker 1 */
	zcast_msg *resp;
	CHECK_EQ(zcast_response_take(sc->cli, &resp, &got), 0);
	CHECK_EQ(got, sc->seq1);
	CHECK_EQ(((const struct add_resp *)zcast_service_data(resp))->sum, 3);
	zcast_msg_drop(resp); /* marker 1 stays queued */

	/* Call 2 taken and never answered; its server killed: the hook makes call 2 suspect. */
	CHECK_EQ(zcast_request_send(sc->cli, zt_request(sc->cli, OP_HOLD, 0, 0), &sc->seq2), 0);
	zt_get_byte(sc->took[0]);
	CHECK_EQ(kill(server, SIGKILL), 0);
	zt_wait(server);
	for (int i = 0; i < 2000 && zcast_client_servers(sc->cli) > 0; i++)
		zt_sleep_ms(5);
	CHECK_EQ(zcast_client_servers(sc->cli), 0);
	zt_sleep_ms(200); /* the hook after the reclaim has run (sooner or later: never a false failure) */
}

static inline void zt_marker_scene_end(struct zt_marker_scene *sc)
{
	CHECK_EQ(zcast_client_close(sc->cli), 0);
	close(sc->took[0]);
	close(sc->took[1]);
}

#endif
