/* zcast-bridge: carries chosen zcast topics over Eclipse Cyclone DDS in ROS 2's wire conventions
 * (docs/BRIDGE.md). The CDR bytes of typed messages go on the wire as they are, and received
 * samples are written straight into a zcast loan.
 *
 * Usage: zcast_bridge_config_load (or _parse) -> zcast_bridge_start -> ... -> zcast_bridge_stop.
 * Types are looked up by their ROS 2 name ("sensor_msgs/msg/Image") among the registered ones: the
 * program registers every type zcast ships; a library user adds its own with
 * zcast_bridge_config_add_type before loading a file that names them. */
#ifndef ZCAST_BRIDGE_H
#define ZCAST_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "zcast/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a route. */
enum zcast_bridge_dir {
	ZCAST_BRIDGE_OUT = 0, /**< local zcast topic -> DDS */
	ZCAST_BRIDGE_IN = 1,  /**< DDS -> local zcast topic */
};

/** One forwarded topic (one config line). */
typedef struct zcast_bridge_route {
	int dir;	 /**< enum zcast_bridge_dir */
	char topic[208]; /**< zcast topic name, "/camera/image"; DDS topic is "rt" + it */
	const zcast_cdr_type *type; /**< registered type */
	int reliable;	  /**< 1: FULL <-> RELIABLE KEEP_ALL; 0: DROP_OLD <-> BEST_EFFORT */
	uint32_t depth;	  /**< zcast queue depth; DDS KEEP_LAST depth when best effort */
	uint32_t history; /**< > 0: TRANSIENT_LOCAL with this depth <-> zcast history */
	size_t max_size; /**< largest message: CDR bytes with their header (an IN route's slots hold
			    4 more) */
	uint32_t slots;	 /**< pool slots of an IN route's publisher */
	int line;	 /**< line of the config file */
	uint32_t catchup; /**< reliable OUT: messages kept for a receiving bridge that restarts */
	char dds_topic[208]; /**< ROS 2 name on the DDS side ("ros_name=/x"); "" = topic */
} zcast_bridge_route;

/** Direction of a service route (docs/BRIDGE.md "Services"). */
enum zcast_bridge_svc_dir {
	ZCAST_BRIDGE_SVC_TO_DDS = 0,   /**< a local zcast server, called by DDS / ROS 2 clients */
	ZCAST_BRIDGE_SVC_FROM_DDS = 1, /**< a DDS / ROS 2 server, called by local zcast clients */
};

/** One bridged service (a "service" config line). */
typedef struct zcast_bridge_service {
	int dir;	/**< enum zcast_bridge_svc_dir */
	char name[168]; /**< zcast service name, "/add"; DDS topics rq<name>Request, rr<name>Reply */
	const zcast_service_type *type; /**< registered or run-time service type */
	size_t max_size;     /**< largest request or response: CDR bytes with their header */
	uint32_t pending;    /**< calls in flight at most */
	uint32_t parked;     /**< TO_DDS: replies kept for DDS clients whose reader is not matched */
	uint32_t timeout_ms; /**< FROM_DDS: a call the DDS server has not answered by then fails */
	int line;	     /**< line of the config file */
	char dds_name[168];  /**< ROS 2 name on the DDS side ("ros_name=/x"); "" = name */
} zcast_bridge_service;

/** A parsed configuration. */
typedef struct zcast_bridge_config zcast_bridge_config;
/** A running bridge. */
typedef struct zcast_bridge zcast_bridge;

/** An empty configuration with no types registered (NULL if out of memory). */
zcast_bridge_config *zcast_bridge_config_new(void);
void zcast_bridge_config_free(zcast_bridge_config *c);
/** Registers a type that config lines may name (the pointer must outlive the config). */
int zcast_bridge_config_add_type(zcast_bridge_config *c, const zcast_cdr_type *type);
/** Parses a config file into c. On a bad line: ZCAST_EINVAL and err holds "file:line: what". */
int zcast_bridge_config_load(zcast_bridge_config *c, const char *path, char *err, size_t errlen);
/** As _load, from text (name is used in messages only). */
int zcast_bridge_config_parse(zcast_bridge_config *c, const char *name, const char *text, char *err,
			      size_t errlen);
/** Registers a service type that "service" lines may name (the pointer must outlive the config). */
int zcast_bridge_config_add_service_type(zcast_bridge_config *c, const zcast_service_type *type);
/** Service routes of a parsed configuration. */
size_t zcast_bridge_config_services(const zcast_bridge_config *c,
				    const zcast_bridge_service **services);
/** The CPU wake-up latency in microseconds the bridge asks for while it runs ("cpu_latency_us N",
 * held on /dev/cpu_dma_latency; docs/BRIDGE.md "Cost and latency"), or -1: none (the default). */
int zcast_bridge_config_cpu_latency(const zcast_bridge_config *c);
/** Routes of a parsed configuration. */
size_t zcast_bridge_config_routes(const zcast_bridge_config *c, const zcast_bridge_route **routes);

/** Starts the bridge: a DDS participant, one endpoint pair per route, one thread per route. The
 * config must outlive the bridge. Returns 0 or an error (err holds the reason). */
int zcast_bridge_start(const zcast_bridge_config *c, zcast_bridge **out, char *err, size_t errlen);
/** Where a route stands. */
enum zcast_bridge_state {
	ZCAST_BRIDGE_STARTING = 0, /**< claiming the topic, opening endpoints */
	ZCAST_BRIDGE_STANDBY = 1,  /**< another bridge on this host serves the topic; we wait */
	ZCAST_BRIDGE_ACTIVE = 2,   /**< forwarding */
	ZCAST_BRIDGE_FAILED = 3,   /**< could not open an endpoint (printed on stderr) */
};
/** Counters of one route. */
typedef struct zcast_bridge_stat {
	int state;	    /**< enum zcast_bridge_state */
	uint64_t forwarded; /**< messages forwarded */
	uint64_t skipped;   /**< messages not forwarded on purpose (from a bridge, already delivered) */
	uint64_t dropped;   /**< messages lost here (best effort full, invalid, too large) */
	uint32_t matched;   /**< remote DDS endpoints matched now (readers of OUT, writers of IN) */
	uint64_t resent;    /**< OUT: messages a predecessor wrote and this bridge sent again */
} zcast_bridge_stat;
int zcast_bridge_stat_get(zcast_bridge *b, size_t route, zcast_bridge_stat *st);
/** Remote DDS endpoints of the route's topic refused so far for an incompatible QoS (as ROS 2 warns
 * of them), and the policy of the last refusal (dds_qos_policy_id_t). */
int zcast_bridge_refused_get(zcast_bridge *b, size_t route, uint32_t *count, uint32_t *policy);
/** Counters of one service route. */
typedef struct zcast_bridge_service_stat {
	int state;	   /**< enum zcast_bridge_state (never STANDBY) */
	uint64_t calls;	   /**< requests forwarded */
	uint64_t answered; /**< responses forwarded back */
	uint64_t failed;   /**< calls that ended without a response (server gone, timeout, no server) */
	uint64_t dropped;  /**< samples refused (malformed, wrong type hash, unknown sequence number) */
	uint32_t matched;  /**< remote DDS servers (FROM_DDS) or clients (TO_DDS) matched now */
} zcast_bridge_service_stat;
int zcast_bridge_service_stat_get(zcast_bridge *b, size_t service, zcast_bridge_service_stat *st);
/** Stops the threads, deletes the DDS entities and leaves the zcast topics. */
void zcast_bridge_stop(zcast_bridge *b);

#ifdef __cplusplus
}
#endif
#endif
