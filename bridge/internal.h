/* Private to the bridge (the bridge/ sources). */
#ifndef ZB_INTERNAL_H
#define ZB_INTERNAL_H

#include <dds/dds.h>
#include <pthread.h>
#include <stdatomic.h>

#include "zcast/waitset.h"
#include "zcast_bridge.h"

#define ZB_MAX_TYPES 256
#define ZB_MAX_ROUTES 1024
#define ZB_MAX_THREADS 64 /* "threads N": worker threads of the pool (pool.c) */
#define ZB_MAX_DDS_DOMAIN 232 /* as ROS 2 (its ROS_DOMAIN_ID) and Cyclone's port mapping allow */
/* "cpu_latency_us N": beyond 10 ms no idle state of a common CPU wakes slower, so the request
 * would change nothing (cpu_latency.c) */
#define ZB_MAX_CPU_LATENCY_US 10000
#define ZB_CPU_LATENCY_FILE "/dev/cpu_dma_latency"
#define ZB_MAX_POOL ((uint64_t)4 << 30) /* an in route's slots x max_size (config.c) */
#define ZB_THREADS_DEFAULT 4 /* workers when the config says nothing: min(routes, this) */
#define ZB_MAX_SERVICES 32 /* service routes (svc_*.c) */
#define ZB_SOURCES 16	/* sending topics remembered per IN route */
#define ZB_RING 4096	/* OUT: messages written to DDS and not yet acknowledged, at most */
#define ZB_FROM_BRIDGE 0x01u /* typed message reserved byte 0: published by a bridge's IN route */

struct zb_state;
struct zb_svc_rt;
struct zb_held;
struct zb_group;
struct zb_peers;

struct zcast_bridge_config {
	const zcast_cdr_type *types[ZB_MAX_TYPES];
	size_t n_types;
	zcast_bridge_route routes[ZB_MAX_ROUTES];
	size_t n_routes;
	uint32_t dds_domain;   /* "dds_domain N"; default $ROS_DOMAIN_ID, else 0 */
	int dds_domain_set;
	char node_name[64];    /* "node NAME"; default zcast_bridge_<host> (config.c) */
	char zcast_domain[40]; /* "zcast_domain NAME"; "" = $ZCAST_DOMAIN or "default" */
	const zcast_service_type *svc_types[ZB_MAX_TYPES]; /* registered service types */
	size_t n_svc_types;
	zcast_bridge_service services[ZB_MAX_SERVICES]; /* "service" lines (svc_config.c) */
	size_t n_services;
	int threads; /* "threads N": 0 a thread per route, N a pool of N workers; -1 unset */
	int cpu_latency_us; /* "cpu_latency_us N": the PM QoS request held while running; -1 none */
	/* the line of dds_domain, zcast_domain, threads, node, cpu_latency_us (config.c) */
	int global_line[5];
};

/* The DDS domain of a config without a dds_domain line: $ROS_DOMAIN_ID as ROS 2 reads it (unset or
 * empty: 0; else a number from 0 to 232). 0 and *d, or an error in err (config.c). */
int zb_ros_domain_id(uint32_t *d, char *err, size_t errlen);

/* The DDS side of the opaque-CDR type (sertype.c): samples are the CDR bytes, header included. */
struct ddsi_sertype *zb_sertype_new(const char *dds_type_name);
/* A sample holding a copy of n bytes (encapsulation header + CDR), padded to 4 on the wire. */
struct ddsi_serdata *zb_serdata_new(const struct ddsi_sertype *st, const void *bytes, size_t n);
/* The bytes (header + CDR, padding of the encapsulation options removed) of a received sample. */
const void *zb_serdata_bytes(const struct ddsi_serdata *d, size_t *n);

/* Message identity across bridges (sources.c, docs/BRIDGE.md "Exactly once"). An OUT route's DDS
 * writer announces its source, the random id of the topic's claim file on its host
 * ("zcastsrc=<16 hex digits>;" in USER_DATA), and stamps each message with a source timestamp that
 * strictly grows with the topic's sequence and is the same when a successor sends it again. An IN
 * route delivers a sample of a source only if its timestamp is newer than the newest delivered. */
struct zb_sources *zb_sources_new(struct zb_state *state, dds_entity_t reader,
				   const zcast_cdr_type *type);
void zb_sources_free(struct zb_sources *s);
/* The IN route's catch-up reader: publications are looked up there too. */
void zb_sources_set_catchup(struct zb_sources *s, dds_entity_t catchup);
/* 1 if the sample from this publication was already delivered (it is a resend). */
int zb_sources_seen(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts);
/* 1 if the IN route's catch-up reader delivers the publication's samples: a bridge's writer that
 * the catch-up reader matches (reliable, transient local; not one with catchup=0). */
int zb_sources_catchup_reads(struct zb_sources *s, dds_instance_handle_t publication);
/* 0 if the publication announces a type hash ("typehash=RIHS01_...;") other than the route's
 * type's, and then its hash in `theirs` (empty if it is too long); else 1 (also when it announces
 * none: ROS 2 before Iron, plain DDS programs). */
int zb_sources_type_ok(struct zb_sources *s, dds_instance_handle_t publication,
		       char theirs[ZCAST_TYPE_HASH_STR_SIZE]);
/* Records a delivered sample. */
void zb_sources_delivered(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts);
/* Before the publish of a sample: records which one is in progress (the claim file's in_* fields)
 * and returns the mark to set on its loan (zcast_msg_set_mark), or 0 for a writer without a source
 * (never filtered: nothing to record). */
uint32_t zb_sources_intent(struct zb_sources *s, dds_instance_handle_t publication, int64_t ts);
/* At the start of a route, before its first publish: if the topic's last mark is the predecessor's
 * publish in progress, that publish happened (also when the predecessor died inside it): its
 * timestamp is recorded as delivered. 0, or -1 (the bridge stops first, or the topic fails). */
int zb_sources_recover(struct zb_sources *s, zcast_pub *pub, _Atomic int *stop);

/* A received sample rewritten into zcast's form (normalize.c): big-endian XCDR1 byte-swapped to
 * little endian, 0-length strings as "" with their NUL. 0 and *out (malloc'd, header included) or
 * -1 (malformed, or not plain CDR). */
int zb_normalize(const zcast_cdr_type *t, const uint8_t *in, size_t n, uint8_t **out,
		 size_t *out_n);

/* ROS 2 names (names.c): "rt/<topic>" and "<pkg>::msg::dds_::<Type>_". 0 or -1 if too long. */
int zb_dds_topic_name(const char *topic, char *out, size_t cap);
int zb_dds_type_name(const char *ros_type, char *out, size_t cap);
/* "typehash=RIHS01_<hex>;" as rmw_dds_common encodes it for the endpoint USER_DATA, then
 * "zcastsrc=<16 hex digits>;" if src is not 0. */
void zb_user_data(const zcast_cdr_type *t, uint64_t src, char out[256]);
/* The value of `key` in USER_DATA of n bytes ("key=value;" pairs): 1 and *v, *vn, or 0. */
int zb_user_data_value(const char *ud, size_t n, const char *key, const char **v, size_t *vn);

/* One topic's claim file on this host (claim.c): /dev/shm/zcast-bridge.<zcast domain>.<topic>. A
 * bridge serves the topic only while it holds the file's OFD write lock; the file keeps the state a
 * successor resumes from. Made whole before it is visible (link of a filled temporary file), so
 * every opener finds the source id. Shared memory: a reader copies a field once and checks it. */
struct zb_out_entry { /* one message written to DDS */
	uint64_t seq;	 /* zcast sequence, written last (0: empty) */
	int64_t time_ns; /* its zcast publish time (tells a topic made anew from ours) */
	int64_t ts;	 /* the source timestamp it was sent with */
};
struct zb_state {
	uint64_t magic;
	uint64_t source;	 /* random, fixed for the file's life: the DDS source id */
	uint64_t generation;	 /* counted up at every grant (peers.c) */
	char boot_id[40];	 /* the boot the file was made in */
	int64_t clock_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC, set by a holder */
	/* OUT */
	uint64_t out_written; /* newest sequence written to DDS (its entry is complete) */
	uint64_t out_acked;   /* newest sequence every matched DDS reader acknowledged */
	struct zb_out_entry out[ZB_RING]; /* by seq % ZB_RING */
	/* IN: newest source timestamp delivered, per source */
	struct {
		uint64_t source;
		int64_t last_ts;
	} in[ZB_SOURCES];
	/* IN: the publish in progress (sources.c): its zcast mark, written first, then its source and
	 * timestamp. A successor whose topic's last mark is this one records that timestamp. */
	uint32_t in_mark;
	uint32_t in_pad;
	uint64_t in_source;
	int64_t in_ts;
};
struct zb_claim {
	pthread_mutex_t lock; /* the routes of one topic share their bridge's claim */
	pthread_cond_t granted_cv;
	int fd;
	int users; /* routes of this claim */
	char path[300];
	struct zb_state *state; /* mapped from open to release; written only while granted */
	uint64_t source;	/* copied once at open */
	pthread_t waiter;	/* blocks in the lock until granted (claim.c) */
	int waiting;
	_Atomic int granted;
	zcast_guard *wake[2]; /* triggered when granted (the routes' standby waits) */
	struct zb_standby *sb; /* the bridge's, waiting for the holder (standby.c); NULL: waiter */
	struct zb_peers *peers; /* told when granted (the bridge's, set before open) */
	struct zcast_bridge *bridge; /* its node is announced again when granted (graph.c) */
};
/* Opens (making it if needed) and maps the claim file, then takes the lock or stands by for it
 * (standby.c). 0 or -errno. Idempotent for the second route of a topic. */
int zb_claim_open(struct zb_claim *c, const char *zdomain, const char *topic, zcast_guard *wake);
/* Waits until granted or the bridge stops (stop is checked every 100 ms and on zb_claim_kick). */
int zb_claim_wait(struct zb_claim *c, _Atomic int *stop);
void zb_claim_kick(struct zb_claim *c);
void zb_claim_release(struct zb_claim *c);
/* Hands the claim to its routes (granted, their waits woken). */
void zb_claim_granted(struct zb_claim *c);
/* Starts a thread that blocks in the claim lock until it is granted. 0 or -errno. */
int zb_claim_lock_thread(struct zb_claim *c);

/* Standing by (standby.c): a bridge waits for the other bridges that hold its topics, one thread
 * per such bridge, not per topic. The holder of a claim also holds its marker lock, on byte
 * 2^40 + its instance id of the claim file, taken before the claim and dropped with it. */
struct zb_standby *zb_standby_new(void);
/* Takes the claim at once if it is free, else waits for its holder; grants it when let go. */
void zb_standby_add(struct zb_standby *sb, struct zb_claim *c);
/* Stops and joins the watchers (before the claims are released). */
void zb_standby_free(struct zb_standby *sb);

/* Dead bridges' participants (peers.c, docs/BRIDGE.md): the participant announces the claims it
 * holds (source id and generation, in its USER_DATA); a thread drops Cyclone's proxy of a remote
 * participant at once when another announces one of its sources with a newer generation. */
struct zb_peers *zb_peers_new(dds_entity_t participant);
/* Starts the discovery thread; `registered`: any sertype Cyclone registered (its domain). */
int zb_peers_start(struct zb_peers *p, const struct ddsi_sertype *registered);
/* The claim of source `src` was granted with generation `gen`: announced from now on. */
void zb_peers_claimed(struct zb_peers *p, uint64_t src, uint64_t gen);
/* Waits until every claim told so far was announced (the discovery thread sends it); -1 if the
 * bridge stops first (zb_peers_kick wakes it). */
int zb_peers_wait_announced(struct zb_peers *p, _Atomic int *stop);
void zb_peers_kick(struct zb_peers *p); /* after the bridge's stop flag is set */
void zb_peers_stop(struct zb_peers *p); /* before the participant is deleted */
void zb_peers_free(struct zb_peers *p); /* after the claims were released */

/* OUT route: what the next holder resumes from (out_resume.c), the acknowledgments (out_acks.c). */
struct zb_out {
	/* own_mu / own_cv for a route with its own threads; its group's in the pool (pool.c) */
	pthread_mutex_t *mu;
	pthread_cond_t *cv; /* signalled on a write (the ack thread) and on an ack (the window) */
	pthread_mutex_t own_mu;
	pthread_cond_t own_cv;
	pthread_t ack_thread;
	int ack_started;
	uint64_t written, acked; /* under mu: newest written to DDS, newest acknowledged by all */
	/* From the predecessor, copied once at takeover: what it wrote and did not see acked */
	uint64_t resume_acked, resume_written;
	struct zb_out_entry *resume; /* ZB_RING entries by seq % ZB_RING */
	int64_t last_ts;	     /* source timestamp of the newest message written */
	int64_t clock_offset_ns;
	/* Messages taken while standing by, kept until the holder's readers acknowledged them */
	struct zb_held **held;
	size_t n_held, held_cap;
};

struct zb_route_rt {
	const zcast_bridge_route *cfg;
	struct zcast_bridge *b;
	struct zb_group *group; /* the pool's worker serving the route (pool.c), or NULL */
	int ws_id, opened;	/* pool: its wait set entry (OUT: subscriber, IN: room), set up */
	int room_on;		/* pool, IN: the room entry is enabled (the route waits for room) */
	pthread_t thread;
	int started;
	struct zb_claim *claim; /* shared with the bridge's other route of this topic */
	zcast_guard *wake;	/* wakes the route's standby wait (granted, stop) */
	dds_entity_t topic, endpoint;
	dds_entity_t catchup; /* IN: the transient-local reader of bridges' kept messages, or 0 */
	struct ddsi_sertype *sertype;
	zcast_sub *sub;	     /* OUT */
	zcast_pub *pub;	     /* IN */
	struct zb_out *out;  /* OUT */
	_Atomic int state;   /* enum zcast_bridge_state */
	_Atomic unsigned warned; /* kinds of dropped sample reported (route_in.c, route_out.c) */
	char why[160];		 /* IN: why the last sample was invalid (route_in.c) */
	/* IN routes: samples are delivered from Cyclone's listener while that never has to wait;
	 * when a reliable route must wait for room, the sample is left in `pending` and the route's
	 * thread (`draining`) delivers it and what follows, with waits (route_in.c) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int draining;
	struct ddsi_serdata *pending;
	dds_sample_info_t pending_si;
	uint32_t *in_off, *in_len;  /* reader slots for validation (both directions) */
	struct zb_sources *sources; /* IN: the duplicate filter (sources.c) */
	_Atomic uint64_t forwarded, skipped, dropped, resent;
};

struct zcast_bridge {
	const zcast_bridge_config *cfg;
	dds_entity_t domain; /* made by this bridge (domain.c), or 0 */
	dds_entity_t participant;
	dds_entity_t graph_writer; /* ros_discovery_info (graph.c) */
	struct ddsi_sertype *graph_sertype;
	pthread_mutex_t graph_mu;
	int graph_standby; /* under graph_mu: the role the last sample named (1 standby, -1 none yet) */
	_Atomic int stop;
	struct zb_route_rt routes[ZB_MAX_ROUTES];
	size_t n_routes;
	struct zb_claim claims[ZB_MAX_ROUTES];
	struct zb_standby *standby; /* standby.c */
	struct zb_svc_rt *svcs; /* one per service route (svc_route.c) */
	struct zb_peers *peers; /* dead bridges dropped at once (peers.c) */
	int cpu_latency_fd; /* the open /dev/cpu_dma_latency holding the request, or -1 */
	struct zb_group *groups; /* the pool (pool.c), n_groups workers; NULL: a thread per route */
	size_t n_groups;
};

/* The DDS domain with the bridge's Cyclone defaults before $CYCLONEDDS_URI (domain.c): its handle,
 * or 0 if this process had it already (then it is joined as it is). Released after the participant:
 * deleted unless another participant of this process is still in it. */
dds_entity_t zb_domain_create(uint32_t domain);
void zb_domain_release(dds_entity_t d);

/* Service routes (svc_route.c): started after the topic routes, stopped before the participant
 * is deleted. A "service" config line (svc_config.c): 0, or an error with `why` filled. */
int zb_svcs_start(struct zcast_bridge *b, char *err, size_t errlen);
void zb_svcs_stop(struct zcast_bridge *b);
int zb_svc_config_line(zcast_bridge_config *c, char **w, int n, int line, char *why, size_t cap);

/* The CPU wake-up latency request of "cpu_latency_us" (cpu_latency.c): the open file that holds
 * it, or an error naming the file, the reason and the config line. Released when closed. */
int zb_cpu_latency_hold(int us, int line, char *err, size_t errlen);
void zb_cpu_latency_release(int fd);

void *zb_route_out(void *arg); /* route_out.c */
void *zb_route_in(void *arg);  /* route_in.c */

/* The steps of the routes, for the pool's workers (pool.c), which never wait in them except in a
 * DDS write that has no room. OUT (route_out.c): open (claim file, writer, subscriber: 0 or -1);
 * while standing by, take and keep what the subscriber holds; take over (resume, send what was
 * kept: 0 or -1); forward one message (1, or 0 if none was queued). */
int zb_out_open(struct zb_route_rt *rt);
void zb_out_hold_queued(struct zb_route_rt *rt);
int zb_out_take_over(struct zb_route_rt *rt);
int zb_out_forward_one(struct zb_route_rt *rt);
/* IN (route_in.c): open once the claim is granted (publisher, readers with the listener): 0 or -1;
 * deliver what waits without waiting: returns 1 while the route still waits for room. */
int zb_in_open(struct zb_route_rt *rt);
int zb_in_drain(struct zb_route_rt *rt);

/* The pool (pool.c): `threads N` workers, each waiting on one zcast wait set for its routes. */
int zb_pool_start(struct zcast_bridge *b, char *err, size_t errlen);
/* Stops and joins the workers and their ack threads (b->stop is set). */
void zb_pool_stop(struct zcast_bridge *b);
/* Frees the pool, after the claims were released (their waiters trigger the workers' guards). */
void zb_pool_free(struct zcast_bridge *b);
/* Wakes the route's worker (an IN route handed over by the listener, a claim granted). */
void zb_pool_wake(struct zb_route_rt *rt);
/* The guard a route's claim triggers when granted: its worker's, or its own. */
zcast_guard *zb_route_wake(struct zb_route_rt *rt);
/* The number of worker threads the config asks for (0: a thread per route). */
size_t zb_pool_threads(const zcast_bridge_config *c);
/* QoS of a route's DDS endpoints (qos.c); src: the source id a writer announces, or 0. */
dds_qos_t *zb_route_qos(const zcast_bridge_route *r, uint64_t src);
/* QoS of an IN route's catch-up reader: reliable, transient local (route_in.c). */
dds_qos_t *zb_catchup_qos(const zcast_bridge_route *r);
/* Opens the route's claim file; 0 or -1 (printed). */
int zb_route_claim_open(struct zb_route_rt *rt);
/* Waits until the route is claimed (or the bridge stops): 0 claimed, -1 stopping. */
int zb_route_claim(struct zb_route_rt *rt);
/* Creates the route's DDS topic and its writer (OUT) or reader (IN). 0 or -1 (printed). */
int zb_route_dds_open(struct zb_route_rt *rt, const dds_listener_t *reader_listener);
/* The zcast domain of the config (NULL: the environment's). */
const char *zb_zdomain_opt(const zcast_bridge_config *c);

/* The ROS 2 graph (graph.c): the ros_discovery_info writer, and the bridge's node with the GIDs of
 * every route endpoint open now, written again when one opens. */
int zb_graph_open(struct zcast_bridge *b);
void zb_graph_publish(struct zcast_bridge *b);
/* A claim was granted: written again only if the bridge stopped being a standby by it. */
void zb_graph_role_changed(struct zcast_bridge *b);

/* OUT route, resuming (out_resume.c). At takeover: copies the predecessor's record once. */
int zb_out_resume(struct zb_route_rt *rt);
/* The source timestamp for message (seq, publish time), or 0: not to be sent (the predecessor
 * sent it and every reader acknowledged it, or decided not to send it). */
int64_t zb_out_stamp(struct zb_out *o, uint64_t seq, int64_t time_ns, int *resend);
/* Records a message about to be written (before the write: a successor must find it). */
void zb_out_record(struct zb_route_rt *rt, uint64_t seq, int64_t time_ns, int64_t ts);
/* After the write. */
void zb_out_written(struct zb_route_rt *rt, uint64_t seq);
/* Waits while ZB_RING messages are unacknowledged; -1 if the bridge stops. */
int zb_out_window(struct zb_route_rt *rt, uint64_t seq);
/* The acknowledgment thread (out_acks.c): records what every reader acknowledged. */
int zb_out_acks_start(struct zb_route_rt *rt);
/* Stops it; a clean stop first waits (bounded) for the last acknowledgments. */
void zb_out_acks_stop(struct zb_route_rt *rt);
/* With o->mu held: if written > acked, waits up to `timeout` (mu released meanwhile) for the
 * readers to acknowledge what was written, and records it. The pool's ack threads use it. */
void zb_out_acks_record(struct zb_route_rt *rt, dds_duration_t timeout);

/* Fault injection (crash_point.c, test builds): the bridge kills itself at a named step, or holds
 * the thread there once. */
#ifdef ZCAST_FAULT_INJECTION
void zb_crash_point(const char *name);
void zb_delay_point(const char *name);
#define ZB_CRASH(name) zb_crash_point(name)
#define ZB_DELAY(name) zb_delay_point(name)
#else
#define ZB_CRASH(name) ((void)0)
#define ZB_DELAY(name) ((void)0)
#endif

/* A field another process can write, read once (docs/CRASH_SAFETY.md: read once, check, use). */
#define ZB_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

#endif
