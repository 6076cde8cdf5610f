/* Services (issue 23, svc-model): a marker that finds no free marker slot is owed, not lost.
 * Found by model/service.pml (BUG_MARKER_LOST). A client of one slot has one marker slot. A hook
 * run after its server answered call 1 makes call 1 suspect and queues marker 1 behind the
 * response; the client takes the response and leaves marker 1 queued (its slot held). Call 2 is
 * taken by a server that is then killed: the hook makes call 2 suspect, but marker 2 finds no
 * slot. Before the fix it was never published: taking marker 1 settled nothing and call 2 waited
 * for good (here: its 20-second wait ran out). Now taking marker 1 frees its slot and the owed
 * marker 2 goes out: call 2 fails with ZCAST_ESRVGONE. Since svc_marker_exec a client has a marker
 * slot more than calls, so here marker 2 finds that slot at once; the outcome checked is the same. */
#include "zt_svc_marker.h"

static const char *service = "/svc/owed";

int main(void)
{
	zt_setup("svc_marker_owed", 60);
	struct zt_marker_scene sc;
	zt_marker_scene(service, &sc);
	zcast_client *cli = sc.cli;
	zcast_msg *resp;
	uint64_t got;

	/* Marker 1 settles nothing; the owed marker 2 fails call 2. Bounded: a hang fails the test. */
	int r = ZCAST_EAGAIN;
	for (int i = 0; i < 4 && r == ZCAST_EAGAIN; i++) {
		CHECK_EQ(zcast_client_wait(cli, 5000000000ll), 0);
		r = zcast_response_take(cli, &resp, &got);
	}
	CHECK_EQ(r, ZCAST_ESRVGONE);
	CHECK_EQ(got, sc.seq2);
	CHECK(strstr(zcast_last_error(), "died") != NULL);
	CHECK_EQ(zcast_client_pending(cli), 0);
	zt_marker_scene_end(&sc);
	zt_cleanup();
	printf("svc_marker_owed: ok\n");
	return 0;
}
