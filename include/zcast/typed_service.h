/* zcast typed services: ROS 2 .srv types over include/zcast/service.h (docs/TYPED.md "Services").
 *
 * zcast-msggen turns pkg/srv/Name.srv into pkg/srv/Name.h: the request and response are message
 * types (pkg_srv_Name_Request, pkg_srv_Name_Response: plain structs, bounds, reader and writer
 * views as for messages) and pkg_srv_Name_SERVICE ties them to the service's name and RIHS01 hash.
 * Clients and servers opened through it carry that name and hash, so a client and a server of
 * different service types (or versions) are refused where they meet.
 *
 * A request or response in its slot has the layout of a typed message (include/zcast/typed.h):
 * 4 reserved zero bytes, the CDR encapsulation header, the CDR stream, all after the service
 * header (zcast_service_data). Loans are laid out at bounds and compacted before they are sent,
 * as typed messages are; the helpers are inline functions over the public C API.
 */
#ifndef ZCAST_TYPED_SERVICE_H
#define ZCAST_TYPED_SERVICE_H

#include <string.h>

#include "cdr.h"
#include "service.h"
#include "typed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the service type (name and hash) of service options. */
static inline void zcast_typed_service_opts(zcast_service_opts *o, const zcast_service_type *s)
{
	o->type_name = s->name;
	memcpy(o->type_hash, s->hash, ZCAST_TYPE_HASH_SIZE);
}

/* Payload bytes of a message of type t laid out at `bounds` (prefix included). */
static inline int zcast_typed_service_size(const zcast_cdr_type *t, const void *bounds, size_t *size)
{
	size_t n;
	int e = zcast_cdr_bound_size(t, bounds, &n);
	if (e == 0)
		*size = ZCAST_TYPED_PREFIX + n;
	return e;
}

/* Options with the service type and a slot capacity of at least a message at `bounds`. */
static inline int zcast_typed_service_open_opts_(const zcast_service_type *s,
						 const zcast_cdr_type *t, const void *bounds,
						 const zcast_service_opts *opts, zcast_service_opts *o)
{
	size_t need = 0;
	int e = zcast_typed_service_size(t, bounds, &need);
	if (e < 0)
		return e;
	if (opts)
		*o = *opts;
	else
		zcast_service_opts_init(o);
	zcast_typed_service_opts(o, s);
	size_t *c = t == s->request ? &o->request_size : &o->response_size;
	if (*c < need)
		*c = need;
	return 0;
}

/* A client of `service` whose request slots fit a request at `bounds` (NULL for request types
 * without strings or sequences). opts may be NULL; its type fields are replaced. */
static inline int zcast_typed_client_open(const char *service, const zcast_service_type *s,
					  const void *bounds, const zcast_service_opts *opts,
					  zcast_client **out)
{
	zcast_service_opts o;
	int e = zcast_typed_service_open_opts_(s, s->request, bounds, opts, &o);
	return e < 0 ? e : zcast_client_open(service, &o, out);
}

/* A server of `service` whose response slots fit a response at `bounds`. */
static inline int zcast_typed_server_open(const char *service, const zcast_service_type *s,
					  const void *bounds, const zcast_service_opts *opts,
					  zcast_server **out)
{
	zcast_service_opts o;
	int e = zcast_typed_service_open_opts_(s, s->response, bounds, opts, &o);
	return e < 0 ? e : zcast_server_open(service, &o, out);
}

/* Lays a loan out for type t at `bounds`: prefix written, every member at its default. */
static inline void zcast_typed_service_layout_(zcast_msg *m, const zcast_cdr_type *t,
					       const void *bounds, size_t size,
					       zcast_cdr_writer *w, uint32_t *off, uint32_t *cap)
{
	uint8_t *d = (uint8_t *)zcast_service_data(m);
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	d[4] = 0, d[5] = 1, d[6] = 0, d[7] = 0; /* CDR_LE */
	w->base = d + ZCAST_TYPED_PREFIX;
	w->bounds = (const uint32_t *)bounds;
	w->size = (uint32_t)(size - ZCAST_TYPED_PREFIX);
	zcast_cdr_layout(t, bounds, w->base, off, cap);
}

/* Loans a request of type t laid out at `bounds` (which must stay valid until it is sent or
 * dropped); fills the writer (w, off, cap: t->n_flat entries). Errors as zcast_request_loan, or
 * ZCAST_EINVAL for bounds above the declared ones or above the client's request_size. */
static inline int zcast_typed_request_loan(zcast_client *c, const zcast_cdr_type *t,
					   const void *bounds, zcast_msg **m, zcast_cdr_writer *w,
					   uint32_t *off, uint32_t *cap)
{
	size_t size = 0;
	int e = zcast_typed_service_size(t, bounds, &size);
	if (e < 0 || (e = zcast_request_loan(c, size, m)) < 0)
		return e;
	zcast_typed_service_layout_(*m, t, bounds, size, w, off, cap);
	return 0;
}

/* Loans a response of type t to the request `req` (as zcast_response_loan), laid out at bounds. */
static inline int zcast_typed_response_loan(zcast_server *srv, zcast_msg *req,
					    const zcast_cdr_type *t, const void *bounds,
					    zcast_msg **m, zcast_cdr_writer *w, uint32_t *off,
					    uint32_t *cap)
{
	size_t size = 0;
	int e = zcast_typed_service_size(t, bounds, &size);
	if (e < 0 || (e = zcast_response_loan(srv, req, size, m)) < 0)
		return e;
	zcast_typed_service_layout_(*m, t, bounds, size, w, off, cap);
	return 0;
}

/* Compacts a loan in place and sets its exact size, once: the writer records it (base NULL), so
 * a send refused afterwards (ZCAST_EAGAIN) is retried with the same message and writer. A count or
 * length above its bound is ZCAST_EINVAL (drop the message). */
static inline int zcast_typed_service_finish(const zcast_cdr_type *t, zcast_msg *m,
					     zcast_cdr_writer *w)
{
	size_t size = 0;
	if (!w->base)
		return 0;
	int e = zcast_cdr_compact(t, w->bounds, w->base, &size);
	if (e < 0 || (e = zcast_service_resize(m, ZCAST_TYPED_PREFIX + size)) < 0)
		return e;
	w->base = NULL;
	return 0;
}

/* Reader view of a received request or response of type t (validates all of it, as
 * zcast_cdr_read: the bytes are another process's). */
static inline int zcast_typed_service_read(const zcast_cdr_type *t, zcast_msg *m,
					   zcast_cdr_reader *r, uint32_t *off, uint32_t *len)
{
	const uint8_t *d = (const uint8_t *)zcast_service_data(m);
	size_t n = zcast_service_size(m);
	if (!d || n < ZCAST_TYPED_PREFIX)
		return zcast_cdr_read(t, "", 0, r, off, len); /* ZCAST_ECORRUPT naming the type */
	return zcast_cdr_read(t, d + ZCAST_TYPED_HEADER_OFFSET, n - ZCAST_TYPED_HEADER_OFFSET, r,
			      off, len);
}

#ifdef __cplusplus
}
#endif
#endif
