/* Publishes one typed message through a constrained loan and reads it back (one process). */
#include <stdio.h>
#include <string.h>

#include <sensor_msgs/msg/Image.h>
#include <user_msgs/msg/Pose.h>

int main(void)
{
	user_msgs_msg_Pose_bounds b = {.header = {.frame_id = 8}, .label = 16};
	zcast_typed_pub *p;
	if (user_msgs_msg_Pose_pub_open("/typed_user", &b, NULL, &p) != 0)
		return 1;
	zcast_sub_opts so;
	zcast_sub_opts_init(&so);
	zcast_typed_sub_opts(&so, &user_msgs_msg_Pose_TYPE);
	zcast_sub *s;
	if (zcast_sub_open("/typed_user", &so, &s) != 0)
		return 2;
	zcast_msg *m;
	user_msgs_msg_Pose_writer w;
	if (user_msgs_msg_Pose_loan(p, NULL, &m, &w) != 0)
		return 3;
	user_msgs_msg_Pose_w_position(&w)[2] = 2.5;
	user_msgs_msg_Pose_w_label_set(&w, "tool");
	if (user_msgs_msg_Pose_publish(p, m, &w) != 0 || zcast_take(s, &m) != 0)
		return 4;
	user_msgs_msg_Pose_reader r;
	uint32_t n;
	if (user_msgs_msg_Pose_read_msg(&r, m) != 0 ||
	    user_msgs_msg_Pose_position(&r, &n)[2] != 2.5 ||
	    strcmp(user_msgs_msg_Pose_label(&r).data, "tool") != 0)
		return 5;
	printf("typed user: %s %s ok\n", user_msgs_msg_Pose_TYPE_NAME,
	       sensor_msgs_msg_Image_TYPE_HASH_STR);
	zcast_msg_drop(m);
	zcast_sub_close(s);
	zcast_typed_pub_close(p);
	return 0;
}
