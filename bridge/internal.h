/* Private to the bridge (the bridge/ sources). */
#ifndef ZB_INTERNAL_H
#define ZB_INTERNAL_H

#include <dds/dds.h>
#include <pthread.h>
#include <stdatomic.h>

#include "zcast_bridge.h"

#define ZB_MAX_TYPES 256
#define ZB_MAX_ROUTES 64
#define ZB_SOURCES 8	 /* sending bridges remembered per IN route */
#define ZB_SOURCE_LEN 96 /* "<boot id>/<zcast domain>" */

struct zb_state;

struct zcast_bridge_config {
	const zcast_cdr_type *types[ZB_MAX_TYPES];
	size_t n_types;
	zcast_bridge_route routes[ZB_MAX_ROUTES];
	size_t n_routes;
	uint32_t dds_domain;   /* "dds_domain N"; default 0 */
	char zcast_domain[40]; /* "zcast_domain NAME"; "" = $ZCAST_DOMAIN or "default" */
};

/* The DDS side of the opaque-CDR type (sertype.c): samples are the CDR bytes, header included. */
struct ddsi_sertype *zb_sertype_new(const char *dds_type_name);
/* A sample holding a copy of n bytes (encapsulation header + CDR), padded to 4 on the wire. */
struct ddsi_serdata *zb_serdata_new(const struct ddsi_sertype *st, const void *bytes, size_t n);
/* The bytes (header + CDR, padding of the encapsulation options removed) of a received sample. */
const void *zb_serdata_bytes(const struct ddsi_serdata *d, size_t *n);

/* Message identity across bridges (sources.c). A bridge's DDS writer announces its source in
 * USER_DATA ("zcastsrc=<boot id>/<zcast domain>;"): every bridge of one host and domain is the same
 * source, and gives a message the same source timestamp (the host's boot time in whole seconds plus
 * the message's zcast publish time), so a receiving bridge recognises a message a successor sent
 * again. */
void zb_source_id(const char *zdomain, char out[ZB_SOURCE_LEN]);
int64_t zb_source_ts(int64_t publish_time_ns);
struct zb_sources *zb_sources_new(struct zb_state *state, dds_entity_t reader);
void zb_sources_free(struct zb_sources *s);
/* 1 if the sample from this publication was already delivered (it is a resend). */
int zb_sources_seen(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts);
/* Records a delivered sample. */
void zb_sources_delivered(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts);

/* ROS 2 names (names.c): "rt/<topic>" and "<pkg>::msg::dds_::<Type>_". 0 or -1 if too long. */
int zb_dds_topic_name(const char *topic, char *out, size_t cap);
int zb_dds_type_name(const char *ros_type, char *out, size_t cap);
/* "typehash=RIHS01_<hex>;" as rmw_dds_common encodes it for the endpoint USER_DATA, then
 * "zcastsrc=<id>;" if src is not NULL. */
void zb_user_data(const zcast_cdr_type *t, const char *src, char out[256]);

/* One route's claim on this host (claim.c): a locked file per zcast domain and topic, so one bridge
 * at a time serves a topic; the file also keeps the routes' state, so a successor resumes. */
struct zb_state {
	uint64_t magic;
	uint64_t out_acked_seq; /* OUT: newest zcast sequence every matched reader acknowledged */
	struct { /* IN: newest source timestamp delivered, per sending host's bridge */
		char id[ZB_SOURCE_LEN];
		int64_t last_ts;
	} in[ZB_SOURCES];
};
struct zb_claim {
	pthread_mutex_t lock; /* the routes of one topic share their bridge's claim */
	int fd;
	char path[300];
	struct zb_state *state; /* mapped, only while claimed */
};
/* Tries to claim (non-blocking). 1: claimed, 0: another live bridge has it, <0: error. */
int zb_claim_try(struct zb_claim *c, const char *zdomain, const char *topic);
void zb_claim_release(struct zb_claim *c);

struct zb_route_rt {
	const zcast_bridge_route *cfg;
	struct zcast_bridge *b;
	pthread_t thread;
	int started;
	struct zb_claim *claim; /* shared with the bridge's other route of this topic */
	dds_entity_t topic, endpoint;
	struct ddsi_sertype *sertype;
	zcast_sub *sub;		     /* OUT */
	zcast_pub *pub;		     /* IN */
	struct zb_route_rt *sibling; /* the other direction of this topic in this bridge, if any */
	_Atomic uint64_t
	    pub_id;	   /* IN: our publisher's id (an OUT route of the same topic skips it) */
	_Atomic int state; /* enum zcast_bridge_state */
	/* IN routes: samples are delivered from Cyclone's listener while that never has to wait;
	 * when a reliable route must wait for room, the sample is left in `pending` and the route's
	 * thread
	 * (`draining`) delivers it and what follows, with waits (route_in.c) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int draining;
	struct ddsi_serdata *pending;
	dds_sample_info_t pending_si;
	uint32_t *in_off, *in_len;  /* reader slots for validation */
	struct zb_sources *sources; /* IN: the duplicate filter (sources.c) */
	_Atomic uint64_t forwarded, skipped, dropped;
};

struct zcast_bridge {
	const zcast_bridge_config *cfg;
	dds_entity_t participant;
	_Atomic int stop;
	struct zb_route_rt routes[ZB_MAX_ROUTES];
	size_t n_routes;
	struct zb_claim claims[ZB_MAX_ROUTES];
};

void *zb_route_out(void *arg); /* route_out.c */
void *zb_route_in(void *arg);  /* route_in.c */
/* QoS of a route's DDS endpoints (qos.c). */
dds_qos_t *zb_route_qos(const zcast_bridge_route *r, const char *src);
/* Waits until the route is claimed (or the bridge stops): 0 claimed, -1 stopping. */
int zb_route_claim(struct zb_route_rt *rt);
int64_t zb_now_ns(void);
/* Creates the route's DDS topic and its writer (OUT) or reader (IN). 0 or -1 (printed). */
int zb_route_dds_open(struct zb_route_rt *rt, const dds_listener_t *reader_listener);
/* The zcast domain of the config (NULL: the environment's). */
const char *zb_zdomain_opt(const zcast_bridge_config *c);

/* A field another process can write, read once (docs/CRASH_SAFETY.md: read once, check, use). */
#define ZB_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

#endif
