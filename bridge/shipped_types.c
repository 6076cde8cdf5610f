/* The types zcast ships (msg/): the program registers all of them (zcast_bridge_shipped_types). */

#include "shipped_types.h"
#include "zcast_shipped_types.h" /* the generated list (tools/msggen/shipped_types.py) */

static const zcast_cdr_type *const shipped[] = {ZCAST_SHIPPED_TYPES};
static const zcast_service_type *const shipped_services[] = {ZCAST_SHIPPED_SERVICES};

int zcast_bridge_add_shipped_types(zcast_bridge_config *c)
{
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
		int e = zcast_bridge_config_add_type(c, shipped[i]);
		if (e < 0)
			return e;
	}
	for (size_t i = 0; i < sizeof shipped_services / sizeof shipped_services[0]; i++) {
		int e = zcast_bridge_config_add_service_type(c, shipped_services[i]);
		if (e < 0)
			return e;
	}
	return 0;
}
