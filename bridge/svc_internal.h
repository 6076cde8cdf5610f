/* Private to the bridge's service routes (svc_*.c, docs/BRIDGE.md "Services").
 *
 * On DDS a ROS 2 service is two topics, rq<name>Request and rr<name>Reply, whose samples are the
 * Request / Response message behind a 16-byte header that rmw_cyclonedds writes first in the same
 * CDR stream: { uint64 guid; int64 seq } (cdds_request_header_t). A client puts the instance handle
 * of its request writer in guid and a number of its own in seq; a server copies both into the
 * reply; a client keeps the replies whose guid is its own and matches them by seq. The header is
 * 16 bytes at the CDR origin, so the message behind it keeps its alignment: a sample is the zcast
 * message's encapsulation header, the 16 header bytes, then the zcast message's CDR stream. */
#ifndef ZB_SVC_INTERNAL_H
#define ZB_SVC_INTERNAL_H

#include "internal.h"
#include "zcast/service.h"

#define ZB_SVC_HDR 16 /* cdds_request_header_t */
#define ZB_SVC_MIN (ZCAST_CDR_HEADER + ZB_SVC_HDR) /* a sample: encapsulation, header */

struct zb_svc_call { /* a call in flight */
	int used;
	uint64_t zseq;		      /* TO_DDS: the zcast call */
	uint8_t hdr[ZB_SVC_HDR];      /* TO_DDS: the DDS client's header (little endian), echoed */
	dds_instance_handle_t writer; /* TO_DDS: the DDS client's request writer */
	int64_t seq;		      /* FROM_DDS: the number this bridge wrote in the header */
	zcast_msg *req;		      /* FROM_DDS: the zcast request it serves (our reference);
				       * TO_DDS: our request loan while no server's queue has room */
	uint8_t *reply;		      /* FROM_DDS: its DDS reply, kept while the client has no room */
	size_t reply_n;
	int failing;		      /* FROM_DDS: failed, the failure waiting for room at the client */
	int64_t deadline;	      /* CLOCK_MONOTONIC ns: then it fails (timeout_ms) */
};

/* FROM_DDS: replies kept while their zcast client has no room, at most this many per call in
 * flight (svc_from_dds.c). */
#define ZB_SVC_KEPT 4

struct zb_svc_parked { /* TO_DDS: a reply whose client's reader is not matched yet (svc_park.c) */
	int used;
	uint64_t age;		      /* the smallest is dropped first when all are used */
	dds_instance_handle_t writer; /* the DDS client's request writer */
	uint8_t hdr[ZB_SVC_HDR];      /* its request's header, echoed */
	uint8_t *enc;		      /* the response's encapsulation and CDR (a private copy) */
	size_t n, cap;
	int64_t deadline; /* CLOCK_MONOTONIC ns: dropped then (timeout_ms after the response) */
};

struct zb_svc_peer { /* a remote endpoint, read once from its discovery data (svc_peers.c) */
	dds_instance_handle_t h; /* first: the tables are sorted by it */
	int ok;			 /* a writer: announces no other type's hash */
	int has_id;
	char id[128]; /* its clientid= */
};

struct zb_svc_peers { /* the remote endpoints matched now, by handle */
	struct zb_svc_peer *v;
	uint32_t n;
	_Atomic int stale; /* the matched set changed (a match listener) */
	dds_instance_handle_t *scratch;
	size_t scratch_cap;
};

enum { /* kinds of refused input and failed calls, each reported once per route */
	ZB_SVC_WARN_MALFORMED = 1,
	ZB_SVC_WARN_TYPE = 2,
	ZB_SVC_WARN_INVALID = 4,
	ZB_SVC_WARN_SEQ = 8,
	ZB_SVC_WARN_NOSERVER = 16,
	ZB_SVC_WARN_GONE = 32,
	ZB_SVC_WARN_TIMEOUT = 64,
	ZB_SVC_WARN_CLIENT = 128,
	ZB_SVC_WARN_PARKED = 256,
	ZB_SVC_WARN_NOREADER = 512,
	ZB_SVC_WARN_ROOM = 1024,
	ZB_SVC_WARN_REFUSED = 2048,
};

struct zb_svc_rt {
	const zcast_bridge_service *cfg;
	struct zcast_bridge *b;
	uint32_t index; /* in the config: makes the client / service id of the USER_DATA */
	pthread_t thread;
	int started;
	zcast_guard *wake; /* DDS listeners (data, matches) and the stop trigger it */
	zcast_waitset *ws; /* the route's thread sleeps here: the guard, its zcast client or server
			    * (outcomes, requests) and its room entry (svc_route.c zb_svc_wait) */
	int ws_zcast, ws_room;
	struct ddsi_sertype *rq_st, *rr_st;
	dds_entity_t rq_topic, rr_topic;
	dds_entity_t reader, writer; /* TO_DDS: rq reader, rr writer; FROM_DDS: rr reader, rq writer */
	dds_instance_handle_t self;  /* FROM_DDS: the rq writer's handle, our header's guid */
	int64_t next_seq;
	zcast_client *cli; /* TO_DDS */
	zcast_server *srv; /* FROM_DDS */
	uint32_t *off, *len; /* zcast_cdr_read slots (the larger n_flat of request and response) */
	uint8_t *buf;	     /* a DDS sample being written */
	size_t buf_cap;
	/* cap_calls entries: cfg->pending in flight, and FROM_DDS ZB_SVC_KEPT x pending more */
	struct zb_svc_call *calls;
	uint32_t cap_calls, n_calls;
	uint32_t n_kept; /* FROM_DDS: calls answered by DDS whose reply waits for room */
	struct zb_svc_call *unsent; /* TO_DDS: the call whose request waits for a server's room */
	struct zb_svc_parked *parked; /* TO_DDS: cfg->parked entries */
	uint32_t n_parked;
	uint64_t parked_age;
	struct zb_svc_peers writers; /* matched by our reader */
	struct zb_svc_peers readers; /* matched by our writer */
	char why[320];
	_Atomic int state;
	_Atomic unsigned warned;
	_Atomic uint64_t n_sent, n_answered, n_failed, n_dropped;
};

/* DDS side (svc_dds.c). Opens the topics, the endpoints (with rmw_cyclonedds's USER_DATA: its
 * "serviceid=" / "clientid=" and the type hash) and their listeners. 0 or -1 (printed). */
int zb_svc_dds_open(struct zb_svc_rt *rt);

/* Remote endpoints (svc_peers.c), any number. 0 if the writer of a sample announces a type hash
 * that is none of the service's (its service, request or response hash), with rt->why saying so;
 * else 1 (also when it announces none). */
int zb_svc_peer_type_ok(struct zb_svc_rt *rt, dds_instance_handle_t writer);
/* TO_DDS: whether the client whose request writer is `writer` has its reply reader matched by our
 * reply writer (rmw_cyclonedds's servers wait for it too: a reply written before is lost). */
enum { ZB_SVC_CLIENT_GONE = 0, ZB_SVC_CLIENT_MAYBE = 1, ZB_SVC_CLIENT_YES = 2 };
int zb_svc_client_present(struct zb_svc_rt *rt, dds_instance_handle_t writer);
void zb_svc_peers_free(struct zb_svc_peers *ps);
/* Remote endpoints: FROM_DDS, servers (request readers and reply writers both matched, the
 * fewer); TO_DDS, clients (request writers). */
uint32_t zb_svc_matched(struct zb_svc_rt *rt);
/* Writes a sample: enc (encapsulation header + CDR, n bytes, copied once) behind the header. */
int zb_svc_write(struct zb_svc_rt *rt, const uint8_t hdr[ZB_SVC_HDR], const uint8_t *enc, size_t n);

/* TO_DDS replies (svc_park.c). Sends a zcast response's bytes (encapsulation + CDR, n, in shared
 * memory: copied once) to call c's DDS client: written at once when its reply reader is matched,
 * else kept aside, the route going on. */
void zb_svc_reply(struct zb_svc_rt *rt, const struct zb_svc_call *c, const uint8_t *enc, size_t n);
/* Writes the replies kept aside whose client's reader is matched now; drops those whose client
 * left or whose timeout_ms passed. The milliseconds until the next such deadline (at most 100). */
int zb_svc_parked_flush(struct zb_svc_rt *rt);
void zb_svc_parked_free(struct zb_svc_rt *rt);

/* Shared by both directions (svc_route.c). */
void zb_svc_drop(struct zb_svc_rt *rt, unsigned kind, const char *what, const char *why);
void zb_svc_fail(struct zb_svc_rt *rt, unsigned kind, const char *what, const char *why);
/* A received sample's header: 0 and guid, seq (little endian in hdr), or -1: too short or not
 * plain CDR (dropped and reported). */
int zb_svc_header(struct zb_svc_rt *rt, const uint8_t *b, size_t n, uint8_t hdr[ZB_SVC_HDR],
		  const char *what);
/* Fills a request or response loan (capacity cfg->max_size + 4) with the message of type t that
 * follows the header in the DDS sample b (n bytes): big-endian CDR rewritten, validated, sized to
 * its CDR size. 0, or -1 with rt->why. */
int zb_svc_fill(struct zb_svc_rt *rt, const zcast_cdr_type *t, zcast_msg *m, const uint8_t *b,
		size_t n);
int64_t zb_svc_now(void);

/* Options of the route's zcast client or server: its domain, the service type's name and hash. */
void zb_svc_opts(const struct zb_svc_rt *rt, zcast_service_opts *o);
/* A route's thread, once its zcast client or server is open (zcast_open): opens the DDS side and
 * turns ACTIVE (0), or FAILED (-1). */
int zb_svc_activate(struct zb_svc_rt *rt, int zcast_open);
void *zb_svc_to_dds(void *arg);	  /* svc_to_dds.c */
void *zb_svc_from_dds(void *arg); /* svc_from_dds.c */
/* The route's zcast client or server in its wait set, with its room entry (both enabled on
 * demand by zb_svc_wait): 0, or -1 (printed). */
int zb_svc_watch(struct zb_svc_rt *rt);
/* Waits for a wake-up (listener, stop), for requests or outcomes when `zcast` (a full table leaves
 * requests queued: they would wake it at once), for room when `room` (a request, response or
 * failure that found none waits), or timeout_ms. */
void zb_svc_wait(struct zb_svc_rt *rt, int zcast, int room, int timeout_ms);

#endif
