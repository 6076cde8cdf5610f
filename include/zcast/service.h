/** @file service.h
 * @brief Request/response services: servers and clients of a service name, zero copy both ways
 * (docs/SERVICES.md).
 *
 * A client loans a request from its own pool, sends it and gets a call sequence number; one live
 * server of the service takes it in place, loans a response from its own pool and sends it; the
 * response reaches exactly the client that asked, which takes it in place and matches it by the
 * sequence number. Requests and responses are zcast_msg handles: their payload is reached with
 * zcast_service_data / zcast_service_size (the first 64 bytes of each slot are the service header,
 * kept by the library), dropped with zcast_msg_drop.
 *
 * Several servers of one service share the requests: each request goes to exactly one live server
 * (round robin over those with room). ROS 2 differs there: each of its servers receives every
 * request.
 *
 * Thread safety
 *  - zcast_server: every call but zcast_server_close may run from several threads at once (a pool of
 *    workers on one server): zcast_server_wait and zcast_request_take hand each request to exactly
 *    one of them, and any thread may answer or fail any request the server took
 *    (zcast_response_loan, zcast_response_send, zcast_request_fail, zcast_request_seq).
 *  - zcast_client: every call but zcast_client_close may run from several threads at once. Each
 *    zcast_client_call waits for its own call's outcome, whichever thread takes it from the
 *    client's queue; outcomes of zcast_request_send calls go to zcast_response_take (any thread,
 *    each outcome once), wait sets, descriptors or the executor, never to a zcast_client_call.
 *  - close: not while another thread uses the handle (as zcast_sub_close). The library's own
 *    threads (the death watcher) use the handles under their locks; the caller need not care.
 *  - Requests and responses: as zcast_msg (zcast.h).
 */
#ifndef ZCAST_SERVICE_H
#define ZCAST_SERVICE_H

#include "zcast/executor.h"
#include "zcast/waitset.h"
#include "zcast/zcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A server of a service (opaque; zcast_server_open / zcast_server_close). */
typedef struct zcast_server zcast_server;
/** A client of a service (opaque; zcast_client_open / zcast_client_close). */
typedef struct zcast_client zcast_client;

/** Bytes of each request and response slot kept by the library before the payload. */
#define ZCAST_SERVICE_HEADER 64
/** Longest service name (zcast_topic_name_valid rules; the library adds its topics below it). */
#define ZCAST_SERVICE_NAME_MAX 160

/** Service options (both sides): zcast_service_opts_init() first, then change what you need. */
typedef struct zcast_service_opts {
	const char *domain;    /**< NULL: $ZCAST_DOMAIN or "default" */
	const char *type_name; /**< the service type; NULL or "": untyped (matches any) */
	uint8_t type_hash[ZCAST_TYPE_HASH_SIZE]; /**< checked with type_name where client meets server */
	size_t request_size;   /**< client: payload capacity of each request slot; default 4 KiB */
	size_t response_size;  /**< server: payload capacity of each response slot; default 4 KiB */
	/** client: calls pending at most (a loan beyond is ZCAST_ENOSLOT); its pool has twice as many
	 * request slots (a server releases a request just after answering it). server: response
	 * slots per client it answers. Default 8. */
	uint32_t slot_count;
	/** server: requests queued at this server before sends pick another server or fail with
	 * ZCAST_EAGAIN (backpressure). Default 16. */
	uint32_t queue_depth;
	uint32_t reserved[8];  /**< zero */
} zcast_service_opts;

/** Fills *o with the defaults. NULL: nothing happens. */
ZCAST_API void zcast_service_opts_init(zcast_service_opts *o);

/* ---- server ---- */

/** Serves `service` (a topic name, at most ZCAST_SERVICE_NAME_MAX bytes; opts may be NULL). Clients
 * may exist already or come later. On success *out owns the server. */
ZCAST_API int zcast_server_open(const char *service, const zcast_service_opts *opts,
				zcast_server **out);
/** Stops serving. Requests queued here or taken and not yet answered are answered with a failure
 * (their calls end with ZCAST_ESRVGONE). Request handles the caller still holds stay readable until
 * dropped. Returns 0 or an error; the handle is released either way. */
ZCAST_API int zcast_server_close(zcast_server *srv);

/** Non-blocking. On success *req is a request the caller owns (zcast_service_data: payload in
 * place, read-only; drop it when done). Answer it with zcast_response_loan + zcast_response_send.
 * ZCAST_EAGAIN when nothing is queued. Requests that fail a check (forged client id, header) are
 * dropped and counted, never answered. */
ZCAST_API int zcast_request_take(zcast_server *srv, zcast_msg **req);
/** Blocks until a request is queued or timeout_ns passes (<0: forever): 0 or ZCAST_ETIMEDOUT. */
ZCAST_API int zcast_server_wait(zcast_server *srv, int64_t timeout_ns);
/** Loans a response of `size` payload bytes (<= response_size) from the server's pool for the
 * client that sent `req` (a request this server took and has not answered). On success *resp is a
 * loan the caller owns: send it or drop it. ZCAST_ENOENT when the client is gone (the request is
 * then answered: nobody waits for it). ZCAST_ENOSLOT when the server's response slots for that
 * client are all held (queued, or taken and not dropped by the client): try again when
 * zcast_waitset_add_server_room reports room. Another error (e.g. no descriptor or memory left to
 * open the route to that client) also leaves the request taken and unanswered: try again. */
ZCAST_API int zcast_response_loan(zcast_server *srv, zcast_msg *req, size_t size, zcast_msg **resp);
/** Sends the response to the client that asked, and only to it. On success the caller's reference
 * is consumed; the request counts as answered (the caller may still hold and read it). On failure
 * the loan stays with the caller: ZCAST_EAGAIN when the client's queue is full (try again when
 * zcast_waitset_add_server_room reports room). */
ZCAST_API int zcast_response_send(zcast_server *srv, zcast_msg *resp);
/** Answers `req` (a request this server took and has not answered) with a failure: the client's
 * call ends with ZCAST_ESRVGONE, as if this server had closed. For a server that cannot serve this
 * one request (a bridge whose remote server is gone or did not answer in time). The failure is a
 * message to the client, like a response: ZCAST_ENOSLOT when the client's response pool or queue
 * has no room for it — the request then stays taken and unanswered, still the caller's, and the
 * caller tries again (zcast_waitset_add_server_room reports when it may succeed); a live server's
 * client learns of the failure from nothing else. Drop a response loan for `req` before: it holds
 * one of those slots. 0 (also when the client is gone: nobody waits), ZCAST_ENOSLOT, or
 * ZCAST_EINVAL when `req` is not such a request. */
ZCAST_API int zcast_request_fail(zcast_server *srv, zcast_msg *req);
/** The sequence number the client got for `req` (a request this server took), 0 otherwise. */
ZCAST_API uint64_t zcast_request_seq(zcast_server *srv, const zcast_msg *req);

/* ---- client ---- */

/** A client of `service` (opts may be NULL). Servers may exist already or come later. On success
 * *out owns the client. */
ZCAST_API int zcast_client_open(const char *service, const zcast_service_opts *opts,
				zcast_client **out);
/** Ends the client: pending calls are forgotten, their responses dropped by whoever sends them and
 * their slots come back. Returns 0 or an error; the handle is released either way. */
ZCAST_API int zcast_client_close(zcast_client *cli);

/** Loans a request of `size` payload bytes (<= request_size) from the client's pool: write it at
 * zcast_service_data, then send it or drop it. ZCAST_ENOSLOT when slot_count calls are pending. */
ZCAST_API int zcast_request_loan(zcast_client *cli, size_t size, zcast_msg **req);
/** Sends the request to one live server. On success the caller's reference is consumed and *seq
 * (if not NULL) is the call's sequence number (from 1, per client). On failure the loan stays with
 * the caller: ZCAST_ENOSERVER when no server runs, ZCAST_EAGAIN when every server's queue is full. */
ZCAST_API int zcast_request_send(zcast_client *cli, zcast_msg *req, uint64_t *seq);
/** As zcast_request_send, but waits up to timeout_ns (<0: forever) for a server with room or for a
 * first server: ZCAST_ETIMEDOUT then. */
ZCAST_API int zcast_request_send_wait(zcast_client *cli, zcast_msg *req, int64_t timeout_ns,
				      uint64_t *seq);
/** Non-blocking. Returns the outcome of one pending call: 0 with *resp (a response the caller owns,
 * read-only, payload at zcast_service_data) and *seq its call; or ZCAST_ESRVGONE with *resp NULL
 * and *seq the call that failed because the server that had it died or closed (queued requests of
 * a server killed go to another live server instead, when there is one). ZCAST_EAGAIN when no
 * outcome is ready. After a wake-up (wait set, descriptor, zcast_client_wait), take until
 * ZCAST_EAGAIN: one wake-up can stand for several outcomes. */
ZCAST_API int zcast_response_take(zcast_client *cli, zcast_msg **resp, uint64_t *seq);
/** Blocks until zcast_response_take has an outcome or timeout_ns passes: 0 or ZCAST_ETIMEDOUT. */
ZCAST_API int zcast_client_wait(zcast_client *cli, int64_t timeout_ns);
/** Sends `req` and waits for its outcome: 0 with *resp, ZCAST_ESRVGONE, ZCAST_EREFUSED,
 * ZCAST_ENOSERVER, ZCAST_ENOSLOT (slot_count calls pending), ZCAST_ETIMEDOUT (the call is then
 * forgotten: a late response is dropped). Other calls may be pending, sent by other threads (their
 * own zcast_client_call, or zcast_request_send): this call's outcome is kept for it alone. The
 * request is consumed whatever the outcome. Waiting for a first server or for room is part of the
 * timeout. */
ZCAST_API int zcast_client_call(zcast_client *cli, zcast_msg *req, int64_t timeout_ns,
				zcast_msg **resp);
/** Gives up on call `seq` (one zcast_request_send sent, its outcome not taken yet): its place
 * among the slot_count calls is free at once and its outcome is never handed out; a response or
 * failure that comes later is dropped when taken. For a client that stops waiting (its own
 * deadline, a caller that went away): a server that never answers would otherwise hold the call
 * for good. The request's slot in the client's pool comes back when the server that holds it
 * answers, fails it, closes or dies (the pool has twice slot_count slots). 0; ZCAST_ENOENT when no
 * such call is pending or its outcome was taken; ZCAST_EINVAL for a zcast_client_call's call
 * (its own timeout lets go of it). */
ZCAST_API int zcast_client_forget(zcast_client *cli, uint64_t seq);
/** Calls sent and without outcome taken yet. */
ZCAST_API int zcast_client_pending(const zcast_client *cli);
/** Live servers of the service now (a snapshot), or an error. */
ZCAST_API int zcast_client_servers(zcast_client *cli);
/** The client's id: unique per client instance within the service (never reused while the service
 * exists). Every request and response carries it. */
ZCAST_API uint64_t zcast_client_id(const zcast_client *cli);

/* ---- service messages ---- */

/** Payload of a request or response (after the service header): writable for loans, read-only
 * for taken messages. NULL if the handle is stale or not a service message. */
ZCAST_API void *zcast_service_data(zcast_msg *msg);
/** Payload size in bytes (the size sent, or for a loan the size it will be sent with). */
ZCAST_API size_t zcast_service_size(const zcast_msg *msg);
/** Loans only: sets the payload size that will be sent (<= capacity). */
ZCAST_API int zcast_service_resize(zcast_msg *msg, size_t size);
/** Payload capacity of the message's slot. */
ZCAST_API size_t zcast_service_capacity(const zcast_msg *msg);

/* ---- waiting: wait sets, descriptors, executor ---- */

/** Adds the server to a wait set: it is reported (as a subscriber entry; match it by `user` or id)
 * when a request is queued. Remove it with zcast_waitset_remove. */
ZCAST_API int zcast_waitset_add_server(zcast_waitset *ws, zcast_server *srv, void *user, int *id);
/** Adds the client to a wait set: it is reported when an outcome is ready (take until EAGAIN). */
ZCAST_API int zcast_waitset_add_client(zcast_waitset *ws, zcast_client *cli, void *user, int *id);
/** "Room again" for a server: reported (kind ZCAST_WS_PUB_ROOM) while a response loan, response
 * send or request fail that found no room (ZCAST_ENOSLOT, ZCAST_EAGAIN) would now get further: its
 * client dropped or took responses, or closed or died (the retry then says so). Only requests
 * whose last such call was refused for room are watched (one futex word per pool, queue and
 * client). Level-triggered: enable it (zcast_waitset_enable) while such a request waits for its
 * retry, and retry each when reported. */
ZCAST_API int zcast_waitset_add_server_room(zcast_waitset *ws, zcast_server *srv, void *user,
					    int *id);
/** "Room again" for a client: reported (kind ZCAST_WS_PUB_ROOM) while a zcast_request_loan or
 * zcast_request_send refused for room would find it: a free request slot in the client's pool, and
 * a live server with queue room, or none at all (the send then says ZCAST_ENOSERVER); for a send
 * whose loan is still held, queue room alone. A server that takes, closes, dies or joins wakes
 * it. Level-triggered, as zcast_waitset_add_pub_room: enable it
 * while a request waits to be sent. (ZCAST_ENOSLOT for slot_count calls pending ends with an
 * outcome: zcast_waitset_add_client.) */
ZCAST_API int zcast_waitset_add_client_room(zcast_waitset *ws, zcast_client *cli, void *user,
					    int *id);
/** A descriptor that polls readable while a request is queued (as zcast_sub_fd; owned by srv). */
ZCAST_API int zcast_server_fd(zcast_server *srv, int *fd);
/** A descriptor that polls readable while an outcome is ready (owned by cli). */
ZCAST_API int zcast_client_fd(zcast_client *cli, int *fd);

/** Receives one request. `req` is borrowed (zcast_msg_ref to keep it); answer it in the callback
 * or later (zcast_response_loan / zcast_response_send). */
typedef void (*zcast_request_callback)(zcast_server *srv, zcast_msg *req, void *ctx);
/** Receives one outcome: err 0 with `resp` (borrowed, as above), or err ZCAST_ESRVGONE with resp
 * NULL. `seq` is the call's sequence number. */
typedef void (*zcast_response_callback)(zcast_client *cli, uint64_t seq, zcast_msg *resp, int err,
					void *ctx);
/** Runs cb for each request the server takes. The server must stay open until removed. */
ZCAST_API int zcast_executor_add_server(zcast_executor *ex, zcast_server *srv,
				       zcast_request_callback cb, void *ctx);
/** Unregisters the server (the executor's removal rule). ZCAST_ENOENT if it is not registered. */
ZCAST_API int zcast_executor_remove_server(zcast_executor *ex, zcast_server *srv);
/** Runs cb for each outcome of the client's calls. The client must stay open until removed. */
ZCAST_API int zcast_executor_add_client(zcast_executor *ex, zcast_client *cli,
				       zcast_response_callback cb, void *ctx);
/** Unregisters the client (the executor's removal rule). ZCAST_ENOENT if it is not registered. */
ZCAST_API int zcast_executor_remove_client(zcast_executor *ex, zcast_client *cli);

/* "Room again" in the executor: as zcast_executor_add_room / want_room / remove_room for a
 * publisher (executor.h), for a server and for a client. After a call refused for room, call the
 * want function and return from the callback instead of blocking or polling; the room callback
 * runs once per want, when the wait set's room entry of the handle reports
 * (zcast_waitset_add_server_room, zcast_waitset_add_client_room): retry there. The executor's
 * threading and removal rules hold (a remove returns once no room callback of the entry runs). */

/** Called once per zcast_executor_want_server_room when a response loan, response send or request
 * fail of `srv` that was refused for room (ZCAST_ENOSLOT, ZCAST_EAGAIN) would now get further: its
 * client made room, closed or died. Retry each such request (the retry says which). */
typedef void (*zcast_server_room_callback)(zcast_server *srv, void *ctx);
/** Called once per zcast_executor_want_client_room when a zcast_request_loan or
 * zcast_request_send of `cli` refused for room (ZCAST_ENOSLOT from the pool, ZCAST_EAGAIN) would
 * now find it: a free request slot, and a server with queue room or none at all. */
typedef void (*zcast_client_room_callback)(zcast_client *cli, void *ctx);
/** A room entry for `srv` (borrowed: keep it open until removed). ZCAST_EBUSY if added already. */
ZCAST_API int zcast_executor_add_server_room(zcast_executor *ex, zcast_server *srv,
					     zcast_server_room_callback cb, void *ctx);
/** Asks for one room callback of `srv`'s entry (any thread, callbacks too), after a refusal: if
 * the retry would get further already, the callback runs at the executor's next turn. Only
 * requests whose last loan, send or fail was refused for room are watched: want after the
 * refusal, not before. ZCAST_ENOENT without an entry. */
ZCAST_API int zcast_executor_want_server_room(zcast_executor *ex, zcast_server *srv);
/** Unregisters the room entry of `srv`. ZCAST_ENOENT if there is none. */
ZCAST_API int zcast_executor_remove_server_room(zcast_executor *ex, zcast_server *srv);
/** A room entry for `cli` (borrowed: keep it open until removed). ZCAST_EBUSY if added already. */
ZCAST_API int zcast_executor_add_client_room(zcast_executor *ex, zcast_client *cli,
					     zcast_client_room_callback cb, void *ctx);
/** Asks for one room callback of `cli`'s entry (any thread, callbacks too); at the next turn if
 * there is room already. ZCAST_ENOENT without an entry. */
ZCAST_API int zcast_executor_want_client_room(zcast_executor *ex, zcast_client *cli);
/** Unregisters the room entry of `cli`. ZCAST_ENOENT if there is none. */
ZCAST_API int zcast_executor_remove_client_room(zcast_executor *ex, zcast_client *cli);

#ifdef __cplusplus
}
#endif
#endif
