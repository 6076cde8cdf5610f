/* The types zcast ships (msg/): the program registers all of them (zcast_bridge_shipped_types). */
#include "builtin_interfaces/msg/Duration.h"
#include "builtin_interfaces/msg/Time.h"
#include "geometry_msgs/msg/Quaternion.h"
#include "geometry_msgs/msg/Vector3.h"
#include "sensor_msgs/msg/CompressedImage.h"
#include "sensor_msgs/msg/Image.h"
#include "sensor_msgs/msg/Imu.h"
#include "sensor_msgs/msg/PointCloud2.h"
#include "sensor_msgs/msg/PointField.h"
#include "std_msgs/msg/Bool.h"
#include "std_msgs/msg/ColorRGBA.h"
#include "std_msgs/msg/Empty.h"
#include "std_msgs/msg/Float64.h"
#include "std_msgs/msg/Float64MultiArray.h"
#include "std_msgs/msg/Header.h"
#include "std_msgs/msg/Int32.h"
#include "std_msgs/msg/MultiArrayDimension.h"
#include "std_msgs/msg/MultiArrayLayout.h"
#include "std_msgs/msg/String.h"
#include "std_msgs/msg/UInt8MultiArray.h"

#include "shipped_types.h"

static const zcast_cdr_type *const shipped[] = {
    &builtin_interfaces_msg_Duration_TYPE,
    &builtin_interfaces_msg_Time_TYPE,
    &geometry_msgs_msg_Quaternion_TYPE,
    &geometry_msgs_msg_Vector3_TYPE,
    &sensor_msgs_msg_CompressedImage_TYPE,
    &sensor_msgs_msg_Image_TYPE,
    &sensor_msgs_msg_Imu_TYPE,
    &sensor_msgs_msg_PointCloud2_TYPE,
    &sensor_msgs_msg_PointField_TYPE,
    &std_msgs_msg_Bool_TYPE,
    &std_msgs_msg_ColorRGBA_TYPE,
    &std_msgs_msg_Empty_TYPE,
    &std_msgs_msg_Float64_TYPE,
    &std_msgs_msg_Float64MultiArray_TYPE,
    &std_msgs_msg_Header_TYPE,
    &std_msgs_msg_Int32_TYPE,
    &std_msgs_msg_MultiArrayDimension_TYPE,
    &std_msgs_msg_MultiArrayLayout_TYPE,
    &std_msgs_msg_String_TYPE,
    &std_msgs_msg_UInt8MultiArray_TYPE,
};

int zcast_bridge_add_shipped_types(zcast_bridge_config *c)
{
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
		int e = zcast_bridge_config_add_type(c, shipped[i]);
		if (e < 0)
			return e;
	}
	return 0;
}
