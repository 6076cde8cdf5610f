/* The services layer of libzcast (src/svc): servers and clients of a service name, built on a
 * request topic (servers subscribe as one BALANCE_RR group) and one response topic per client
 * (docs/SERVICES.md). Uses src/exec and everything below it. */
#ifndef ZC_SVC_INTERNAL_H
#define ZC_SVC_INTERNAL_H

#include <pthread.h>

#include "zcast/service.h"
#include "executor_internal.h"

/* The 64-byte header at the start of every slot of a service's topics. Written by the sender
 * before the publish; a receiver reads each field once (svc_hdr_read) and uses only the copy. */
struct zc_svc_hdr {
	uint32_t magic;
	uint32_t kind;
	uint64_t client_id;
	uint32_t nonce;
	uint32_t why; /* a refusal: why the server refused the request (ZC_SVC_WHY_*) */
	uint64_t seq; /* the call (requests, responses, failures, refusals) or the marker's number */
	uint64_t reserved[4];
};
_Static_assert(sizeof(struct zc_svc_hdr) == ZCAST_SERVICE_HEADER, "the header is 64 bytes");

#define ZC_SVC_MAGIC 0x3156535au /* "ZSV1" */
enum { ZC_SVC_REQUEST = 1, ZC_SVC_RESPONSE = 2, ZC_SVC_MARKER = 3, ZC_SVC_FAILURE = 4,
       ZC_SVC_REFUSED = 5 };
/* Why a server refused a request (a refusal's `why`; any other value reads as "unknown"). */
enum { ZC_SVC_WHY_HEADER = 1, ZC_SVC_WHY_ID = 2, ZC_SVC_WHY_MEMORY = 3, ZC_SVC_WHY_END };

/* svc_handles.c: the process's clients and servers, each checked after every reclaim and
 * membership change by the death watcher's hook (changed runs under the list's lock). */
struct zc_svc_handle {
	struct zc_svc_handle *next;
	void (*changed)(struct zc_svc_handle *h);
};
ZC_HIDDEN void zc_svc_handle_add(struct zc_svc_handle *h);
ZC_HIDDEN void zc_svc_handle_remove(struct zc_svc_handle *h);

/* svc_msg.c */
ZC_HIDDEN void zc_svc_hdr_write(zcast_msg *m, uint32_t kind, uint64_t client_id, uint32_t nonce,
				uint64_t seq);
/* Copies the header of a taken message out of shared memory, each field read once. False when
 * the message is too short to hold one. */
ZC_HIDDEN bool zc_svc_hdr_read(zcast_msg *m, struct zc_svc_hdr *out);
/* "<service>/_rq" and "<service>/_rs/c<id>_<nonce>" into buf (room: ZC_SVC_TOPIC_MAX). */
#define ZC_SVC_TOPIC_MAX 256
ZC_HIDDEN int zc_svc_name_check(const char *service);
ZC_HIDDEN void zc_svc_request_topic(char *buf, const char *service);
ZC_HIDDEN void zc_svc_response_topic(char *buf, const char *service, uint64_t id, uint32_t nonce);
ZC_HIDDEN void zc_svc_opts_resolve(const zcast_service_opts *in, zcast_service_opts *out);

/* ---- server ---- */
struct zc_svc_taken {       /* a request taken and not yet answered */
	zcast_msg *req;     /* the library's own reference: the response goes out before it is dropped */
	zcast_msg *resp;    /* the latest response loan for it, or NULL */
	uint64_t client_id; /* copies of its header, checked at take */
	uint32_t nonce;
	uint64_t seq;
	/* Its response or failure found no room: watched (server_room.c) for what the retry needs,
	 * ZC_ROOM_SLOT (a loan), ZC_ROOM_QUEUE (the send of a loan held) or both (a failure). */
	unsigned room_need;
	/* A refusal the library owes: the request failed a check and its refusal found no room.
	 * Never the caller's: the courier sends it when room comes (svc_courier.c). ZC_SVC_WHY_*. */
	uint32_t refused;
};
struct zc_svc_route { /* a publisher on one client's response topic */
	uint64_t client_id;
	uint32_t nonce;
	zcast_pub *pub;
	uint32_t graph; /* the topic's graph word when a probe last found the client subscribed */
};
/* A source of routes that want room (server_room.c): those of the caller's requests, or those of
 * the refusals the library owes (`owed`). */
struct zc_svc_room {
	struct zc_room_src src;
	struct zcast_server *srv;
	bool owed;
};
struct zcast_server {
	char service[ZCAST_SERVICE_NAME_MAX + 1];
	zcast_service_opts o;
	char domain[40];
	zcast_sub *sub; /* on <service>/_rq, BALANCE_RR group "servers" */
	struct zc_svc_taken *taken;
	uint32_t n_taken, cap_taken;
	struct zc_svc_route *routes;
	uint32_t n_routes, cap_routes;
	uint64_t rejected; /* requests that failed a check */
	zcast_request_callback ex_cb;
	void *ex_ctx;
	/* The table of taken requests, the routes and every loan and publish on them (a zcast_pub
	 * is one thread at a time): threads of the caller take and answer at once, and the death
	 * watcher's hook drops routes to clients that are gone (server_sweep.c) in its own thread.
	 * Never held while waiting. */
	pthread_mutex_t mu;
	struct zc_svc_handle link; /* in the process's list (svc_handles.c) */
	uint32_t swept_graph;      /* the request topic's graph word at the last sweep (hook only) */
	struct zc_svc_room room;   /* routes of the caller's requests that want room (server_room.c) */
	struct zc_svc_room owed;   /* routes of the refusals the library owes (svc_courier.c) */
	_Atomic bool couriered;    /* the courier has an entry for it (svc_courier.c) */
	_Atomic uint32_t room_grown; /* both sources' grown: bumped when a request starts to want room */
};
/* Under srv->mu: a header-only message of `kind` (a failure or a refusal, with `why`) for one call
 * of a client (server_routes.c): 0, ZCAST_ENOENT when the client is gone, ZCAST_ENOSLOT when its
 * response pool or queue has no room, or the loan's error. */
ZC_HIDDEN int zc_svc_notify(zcast_server *srv, uint64_t client_id, uint32_t nonce, uint64_t seq,
			     uint32_t kind, uint32_t why);
/* Hands the queued requests over to other live servers, then answers every request left (taken,
 * or queued with nobody to take it) with a failure and forgets it (server_routes.c). */
ZC_HIDDEN void zc_svc_server_fail_all(zcast_server *srv);
/* Under srv->mu: the request a taken message is, or NULL (server.c). */
ZC_HIDDEN struct zc_svc_taken *zc_svc_taken_find(zcast_server *srv, const zcast_msg *req);
/* Under srv->mu: the publisher on that client's response topic, opened when missing: 0,
 * ZCAST_ENOENT when the client is gone (its topic does not exist or nobody subscribes any more), or
 * the error that kept the route from opening (out of descriptors or memory: the client may be
 * there). */
ZC_HIDDEN int zc_svc_route_get(zcast_server *srv, uint64_t client_id, uint32_t nonce,
			       zcast_pub **pub);
/* Under srv->mu: does the route's client still subscribe (a probe only when its graph word moved)? */
ZC_HIDDEN bool zc_svc_route_live(struct zc_svc_route *rt);
/* Closes route i and removes its topic if nobody is left on it. */
ZC_HIDDEN void zc_svc_route_drop(zcast_server *srv, uint32_t i);
ZC_HIDDEN void zc_svc_routes_close(zcast_server *srv);
/* server_sweep.c, under srv->mu: a loan of `size` bytes on the client's route (the sweep closes
 * no route with a loan out): 0, ZCAST_ENOENT when the client is gone, or the route's or the
 * loan's error. */
ZC_HIDDEN int zc_svc_route_loan(zcast_server *srv, uint64_t client_id, uint32_t nonce, size_t size,
				zcast_msg **m);
/* server_room.c: the server's sources of routes that want room (zcast_waitset_add_server_room,
 * and the courier's). */
ZC_HIDDEN void zc_svc_room_init(zcast_server *srv);
/* Under srv->mu: taken request tk's retry needs `need` (ZC_ROOM_*, 0: nothing); a wait set asleep
 * on the other routes is woken when tk starts to want room. */
ZC_HIDDEN void zc_svc_room_need(zcast_server *srv, struct zc_svc_taken *tk, unsigned need);
/* server.c: sends the refusals the server owes that find room now, forgets those whose client is
 * gone. Returns how many are still owed. */
ZC_HIDDEN uint32_t zc_svc_refusals_send(zcast_server *srv);
/* svc_courier.c: the process's courier, a thread that sends refusals owed when room comes. `want`
 * after a refusal was kept (not under srv->mu): false when the courier could not be started (the
 * refusal then waits for the server's close). `forget` before the server is freed. */
ZC_HIDDEN bool zc_svc_courier_want(zcast_server *srv);
ZC_HIDDEN void zc_svc_courier_forget(zcast_server *srv);
/* server_sweep.c: the server in the process's list of handles (its routes swept by the hook). */
ZC_HIDDEN void zc_svc_server_watch(zcast_server *srv);
ZC_HIDDEN void zc_svc_server_unwatch(zcast_server *srv);
/* Checks a message the server's subscriber took and records it as taken (takes srv->mu): 0, or an
 * error with the message dropped (and counted) when it fails a check. */
ZC_HIDDEN int zc_svc_server_adopt(zcast_server *srv, zcast_msg *m);

/* ---- client ---- */
/* ANSWERED: its response is kept in the call (resp) until taken. A call made by zcast_client_call
 * is `waited`: its outcome is kept for the thread that waits for it, whoever takes it from the
 * response topic, and never handed to zcast_response_take, wait sets or the executor. */
enum { ZC_CALL_FREE = 0, ZC_CALL_SENDING, ZC_CALL_PENDING, ZC_CALL_SUSPECT, ZC_CALL_FAILED,
       ZC_CALL_ANSWERED };
/* How a FAILED call failed: its server died (a marker settled it), closed (a failure), or refused
 * the request (a refusal: ZC_FAIL_REFUSED + its why). */
enum { ZC_FAIL_DIED = 0, ZC_FAIL_CLOSED = 1, ZC_FAIL_REFUSED = 2 };
struct zc_svc_call {
	uint32_t state;
	uint32_t fail; /* FAILED: ZC_FAIL_* */
	uint64_t seq;
	uint32_t slot;   /* the request's slot in the client's own pool, and its generation: */
	uint64_t gen;    /* kept from the loan, never read back from shared memory */
	uint64_t marker; /* SUSPECT: fails when this marker (or a later one) is taken */
	bool waited;     /* made by zcast_client_call: its outcome is its caller's */
	uint64_t order;  /* ANSWERED, FAILED: when its outcome came (outcomes are handed out in order) */
	zcast_msg *resp; /* ANSWERED: the response */
};
/* Everything of a client is under mu: its calls and markers, and its publishers (a zcast_pub is
 * one thread at a time: every loan and publish on req_pub and self_pub holds mu; waits for a
 * server or for room do not). The death watcher's hook runs under it too. */
struct zcast_client {
	char service[ZCAST_SERVICE_NAME_MAX + 1];
	zcast_service_opts o;
	pthread_mutex_t mu;
	zcast_pub *req_pub;  /* on <service>/_rq: its member id is the client id */
	zcast_sub *resp_sub; /* on the response topic */
	zcast_pub *self_pub; /* on the response topic: markers */
	uint64_t id;
	uint32_t nonce;
	uint64_t next_seq;
	uint64_t next_marker;
	uint64_t outcomes;  /* outcomes that came: the order of the next one */
	bool marker_owed;   /* the latest marker found no free slot: published when one comes back */
	uint64_t hooks_run; /* times the death watcher's hook checked this client (send_req) */
	struct zc_svc_call *calls; /* o.slot_count entries */
	uint64_t rejected;
	zcast_response_callback ex_cb;
	void *ex_ctx;
	struct zc_svc_handle link; /* in the process's list (svc_handles.c) */
	uint64_t *refused; /* per request slot: 1 + the generation of a loan whose send failed */
	struct zc_room_src room; /* for wait sets (client_room.c) */
};
/* client_room.c: the client's room source (zcast_waitset_add_client_room), made once req_pub is
 * open; under mu, req (a loan of req_pub) is noted as refused: its retry needs no free slot. */
ZC_HIDDEN int zc_svc_client_room_init(zcast_client *cli);
ZC_HIDDEN void zc_svc_client_room_refused(zcast_client *cli, const zcast_msg *req);
/* Sends req (client.c): deadline 0 = do not wait, < 0 = wait for a server or room forever, else
 * until that zc_now_ns() time. `waited`: zcast_client_call's (struct zc_svc_call). */
ZC_HIDDEN int zc_svc_send(zcast_client *cli, zcast_msg *req, int64_t deadline, bool waited,
			  uint64_t *seq);
/* client_deaths.c: a client in the process's list of handles, checked by the hook. */
ZC_HIDDEN void zc_svc_clients_add(zcast_client *cli);
ZC_HIDDEN void zc_svc_clients_remove(zcast_client *cli);
/* Under cli->mu: marks the pending calls whose request slot was released as suspects and
 * publishes a marker behind them. */
ZC_HIDDEN void zc_svc_client_check(zcast_client *cli);
/* Under cli->mu: publishes marker number next_marker, or leaves it owed (marker_owed) when every
 * marker slot is queued; the client publishes an owed marker when it drops one (client_take.c). */
ZC_HIDDEN void zc_svc_marker_publish(zcast_client *cli);
/* Under cli->mu: publishes a marker that settles nothing new, to wake whoever waits for an outcome
 * another thread recorded (client_take.c). */
ZC_HIDDEN void zc_svc_client_nudge(zcast_client *cli);
/* Under cli->mu: records what a taken message of the response topic gives in the call table
 * (client_take.c): a response (ANSWERED), a failure, a refusal or a marker (the calls they settle
 * become FAILED), or nothing (a rejected message). Consumes m's reference. Returns ZC_ABSORB_*
 * flags: an outcome for zcast_response_take (OWN), one for a zcast_client_call other than the one
 * of sequence `own` (WAITED; 0 for none). */
enum { ZC_ABSORB_OWN = 1, ZC_ABSORB_WAITED = 2 };
ZC_HIDDEN int zc_svc_client_absorb(zcast_client *cli, zcast_msg *m, uint64_t own);
/* Under cli->mu: the oldest outcome of the calls not waited for, freed: 0 with *resp and *seq for a
 * response; its error (ZCAST_ESRVGONE or ZCAST_EREFUSED, the text saying why) with *resp NULL for a
 * failure; ZCAST_EAGAIN when none. */
ZC_HIDDEN int zc_svc_client_next(zcast_client *cli, zcast_msg **resp, uint64_t *seq);

#endif
