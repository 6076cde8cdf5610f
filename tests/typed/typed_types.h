/* The types the typed fuzz target and its corpus seeds cover (index = first input byte). */
#ifndef ZT_TYPED_TYPES_H
#define ZT_TYPED_TYPES_H

#include <sensor_msgs/msg/Image.h>
#include <sensor_msgs/msg/Imu.h>
#include <sensor_msgs/msg/PointCloud2.h>
#include <std_msgs/msg/String.h>
#include <zcast_test/msg/Corner.h>
#include <zcast_test/msg/Fixed.h>
#include <zcast_test/msg/Nested.h>

static const zcast_cdr_type *const zt_fuzz_types[] = {
    &sensor_msgs_msg_Image_TYPE, &sensor_msgs_msg_PointCloud2_TYPE, &sensor_msgs_msg_Imu_TYPE,
    &std_msgs_msg_String_TYPE,	 &zcast_test_msg_Corner_TYPE,	    &zcast_test_msg_Nested_TYPE,
    &zcast_test_msg_Fixed_TYPE,
};
#define ZT_FUZZ_TYPES (sizeof zt_fuzz_types / sizeof zt_fuzz_types[0])

#endif
