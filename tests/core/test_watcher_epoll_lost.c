/* Issue 22, item 16: the death watcher must not end when epoll_wait fails. Here its epoll
 * descriptor is closed under it (as a daemon's close-every-descriptor loop would). A first peer is
 * killed (the event that was already armed still comes; the next epoll_wait fails); then a
 * zcast_publish_wait(-1) on a second peer's full queue must still end when that peer is killed. */
#include "zt_unseen.h"
#include "zt_watcher.h"

int main(void)
{
	zt_setup("epolllost", 60);
	zcast_pub *p = zt_blocked_pub("/epoll/lost", 4);
	struct zt_blocker first, second;
	zt_blocker_start(&first, "/epoll/lost", 0);
	ZT_EVENTUALLY(zt_watcher_follows(first.pid)); /* the first peer's pidfd is in the set */
	CHECK_EQ(zt_epoll_fds(1), 1);
	kill(first.pid, SIGKILL);
	CHECK(WIFSIGNALED(zt_wait(first.pid)));
	ZT_EVENTUALLY(zt_stat("/epoll/lost").subscribers == 0);
	zt_blocker_start(&second, "/epoll/lost", 0);
	zt_blocker_killed_in_wait(p, &second);
	CHECK_EQ(zcast_pub_close(p), 0);
	printf("ok epoll_lost\n");
	return 0;
}
