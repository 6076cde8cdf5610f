/* Helper of typed_cli_test.sh: publishes a small sensor_msgs/Image on /typed/cli every 20 ms
 * (history 1, for late joiners) until killed or 30 s have passed. */
#include <unistd.h>

#include <sensor_msgs/msg/Image.h>

int main(void)
{
	sensor_msgs_msg_Image_bounds b = {.header = {.frame_id = 8}, .encoding = 8, .data = 64};
	zcast_pub_opts po;
	zcast_pub_opts_init(&po);
	po.history_depth = 1;
	zcast_typed_pub *p;
	if (sensor_msgs_msg_Image_pub_open("/typed/cli", &b, &po, &p) != 0)
		return 1;
	for (int i = 0; i < 1500; i++) {
		zcast_msg *m;
		sensor_msgs_msg_Image_writer w;
		if (sensor_msgs_msg_Image_loan(p, NULL, &m, &w) != 0)
			return 2;
		sensor_msgs_msg_Image_w_header_frame_id_set(&w, "cam0");
		sensor_msgs_msg_Image_w_encoding_set(&w, "rgb8");
		sensor_msgs_msg_Image_w_width_set(&w, 4);
		sensor_msgs_msg_Image_w_height_set(&w, 2);
		uint32_t cap;
		uint8_t *px = sensor_msgs_msg_Image_w_data(&w, &cap);
		for (uint32_t k = 0; k < 24; k++)
			px[k] = (uint8_t)k;
		sensor_msgs_msg_Image_w_data_set_len(&w, 24);
		if (sensor_msgs_msg_Image_publish(p, m, &w) != 0)
			zcast_msg_drop(m);
		usleep(20000);
	}
	zcast_typed_pub_close(p);
	return 0;
}
