/* One request/response service of the benchmark (case "service", bench/case_service.c): one server
 * process answers the calls of n client processes. Every system of that case implements this table
 * in its svc_*.c file; the case finds it by the name of the channel system given with --system. */
#ifndef ZB_SVC_H
#define ZB_SVC_H

#include "common.h"

typedef struct zb_svc_params {
	char name[32];      /* service name */
	const char *run_id; /* unique per run */
	size_t req_size;    /* every request has this size */
	size_t resp_size;   /* every response has this size */
	int nclients;
	int depth;          /* requests queued per client at most */
} zb_svc_params;

typedef struct zb_svc zb_svc; /* per-process endpoint (server or one client), defined per system */

typedef struct zb_svc_system {
	const char *name;
	/* Driver, before fork. Returns 0, or <0 with a reason in why (system skipped). */
	int (*prepare)(zb_svc_params *p, void **shared, char *why, size_t whylen);
	/* Child: client >= 0 opens client number `client`; client == -1 opens the server. */
	int (*open)(const zb_svc_params *p, void *shared, int client, zb_svc **out);
	/* Child, after every endpoint opened: waits until connected. May be NULL. */
	int (*ready)(zb_svc *s, int64_t deadline);
	/* Client: sends a request of req_size bytes starting with *req (filled per mode), waits for
	 * its response and reads the response's header into *resp. */
	int (*call)(zb_svc *s, const zb_hdr *req, zb_hdr *resp, int mode, int64_t deadline);
	/* Server: waits for one request (any client), reads its header into *req (consumed per mode)
	 * and answers the client that sent it with resp_size bytes whose header echoes *req. */
	int (*serve)(zb_svc *s, zb_hdr *req, int mode, int64_t deadline);
	/* Where the bytes of the last request sent (client) or taken (server) lie: device, inode and
	 * offset of shared memory both name. NULL: the system cannot tell (copies, or hides it). */
	int (*where)(zb_svc *s, uint64_t loc[3]);
	void (*close)(zb_svc *s);
	/* Driver, after the children exited. */
	void (*cleanup)(zb_svc_params *p, void *shared);
} zb_svc_system;

extern const zb_svc_system zb_svc_floor, zb_svc_uds, zb_svc_iceoryx, zb_svc_zcast;

#endif
