/* The message types zcast ships (msg/), for the zcast-bridge program. */
#ifndef ZB_SHIPPED_TYPES_H
#define ZB_SHIPPED_TYPES_H
#include "zcast_bridge.h"
/* Registers every shipped type with c. 0 or an error. */
int zcast_bridge_add_shipped_types(zcast_bridge_config *c);
#endif
