/* Issue 22, item 8: a member that rewinds the topic's next_id makes a new publisher get the id (and
 * so the pool id and pool file name) of one that left; a subscriber that mapped the old pool kept
 * using that map for the new pool with the same id, found its slots in the wrong state and discarded
 * the new publisher's messages (3 of 6). Here a publisher in a child publishes 3 messages, which the
 * subscriber takes (mapping the pool), and leaves; next_id is set back to its id; a second
 * publisher gets the same id and publishes 3 more: all 3 must be taken, intact. */
#include "zt_hostile.h"

struct pub_args {
	int ready_w, go_r;
};

/* Publishes 3 messages, says so, and leaves when told to. */
static int publisher_main(void *a_)
{
	struct pub_args *a = a_;
	zcast_pub *p = zt_open_pub("/rewind/t", 64, 4);
	for (uint64_t s = 1; s <= 3; s++)
		zt_publish(p, s, 64);
	uint64_t id = zcast_pub_id(p);
	if (write(a->ready_w, &id, sizeof id) != (ssize_t)sizeof id)
		return 3;
	char c;
	if (read(a->go_r, &c, 1) != 1)
		return 3;
	zcast_pub_close(p);
	return 0;
}

/* Runs a publisher to its 3 messages; returns its id (it leaves when `go` is written). */
static uint64_t start_publisher(pid_t *pid, int go[2])
{
	int ready[2];
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(go), 0);
	struct pub_args a = {ready[1], go[0]};
	*pid = zt_fork(publisher_main, &a);
	uint64_t id = 0;
	CHECK_EQ(read(ready[0], &id, sizeof id), (ssize_t)sizeof id);
	close(ready[0]);
	close(ready[1]);
	return id;
}

static void finish_publisher(pid_t pid, int go[2])
{
	CHECK_EQ(write(go[1], "x", 1), 1);
	CHECK_CHILD_OK(pid);
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	zt_setup("rewind", 60);
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.queue_depth = 8;
	zcast_sub *s = NULL;
	CHECK_EQ(zcast_sub_open("/rewind/t", &o, &s), 0);
	int go[2];
	pid_t pub;
	uint64_t id = start_publisher(&pub, go);
	CHECK_EQ(zt_drain(s), 3); /* maps the pool of publisher `id` */
	finish_publisher(pub, go);

	struct zc_topic_hdr *h = zt_map_topic("/rewind/t", NULL);
	atomic_store(&h->next_id, id); /* the hostile write */
	uint64_t id2 = start_publisher(&pub, go);
	printf("first publisher id %llu, second %llu\n", (unsigned long long)id,
	       (unsigned long long)id2);
	CHECK_EQ(id2, id);
	int taken = 0;
	for (int i = 0; i < 3; i++) {
		zcast_msg *m;
		int r = zcast_take(s, &m);
		printf("take %d: %d (%s)\n", i, r, r ? zcast_last_error() : "");
		CHECK_EQ(r, 0);
		uint64_t seq = 0, from = 0;
		CHECK(zt_verify(zcast_msg_data(m), zcast_msg_size(m), &seq, &from));
		CHECK_EQ(seq, (uint64_t)i + 1);
		CHECK_EQ(from, id2);
		zcast_msg_drop(m);
		taken++;
	}
	CHECK_EQ(taken, 3);
	finish_publisher(pub, go);
	zcast_sub_close(s);
	return 0;
}
