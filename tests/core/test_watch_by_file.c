/* Issue 22, item 16: the death watch is keyed by the topic file, not its name. A handle keeps a
 * topic whose file was removed (another process's gc, a restart); a new handle of the same name
 * makes a new file. Keyed by name, the new handle shared the old file's watch, so nothing watched
 * the new file's members: a zcast_publish_wait(-1) on a full queue of the new file never ended
 * when that subscriber was killed. */
#include "zt_unseen.h"

int main(void)
{
	zt_setup("watchbyfile", 60);
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_sub *old = NULL;
	CHECK_EQ(zcast_sub_open("/byfile/t", &so, &old), 0); /* watched: the old file */
	char path[400];
	zt_topic_path(path, sizeof path, "/byfile/t");
	CHECK_EQ(unlink(path), 0); /* removed under it: the next open makes a new file */
	zcast_pub *p = zt_blocked_pub("/byfile/t", 4);
	struct zt_blocker a;
	zt_blocker_start(&a, "/byfile/t", 0);
	zt_blocker_killed_in_wait(p, &a);
	CHECK_EQ(zcast_pub_close(p), 0);
	CHECK_EQ(zcast_sub_close(old), 0);
	printf("ok watch_by_file\n");
	return 0;
}
