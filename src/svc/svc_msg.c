/* Service messages: the 64-byte header before the payload, the payload accessors, topic names and
 * options. */
#include <stdio.h>
#include <string.h>

#include "svc_internal.h"

void zc_svc_hdr_write(zcast_msg *m, uint32_t kind, uint64_t client_id, uint32_t nonce, uint64_t seq)
{
	struct zc_svc_hdr h = {.magic = ZC_SVC_MAGIC, .kind = kind, .client_id = client_id,
			       .nonce = nonce, .seq = seq};
	memcpy(m->data, &h, sizeof h); /* our loan: nobody else sees it before the publish */
}

bool zc_svc_hdr_read(zcast_msg *m, struct zc_svc_hdr *out)
{
	if (m->size < sizeof *out)
		return false;
	/* The sender may still write the slot (hostile memory): each field once, then the copy. */
	const struct zc_svc_hdr *h = (const struct zc_svc_hdr *)(const void *)m->data;
	*out = (struct zc_svc_hdr){.magic = ZC_READ_ONCE(h->magic), .kind = ZC_READ_ONCE(h->kind),
				   .client_id = ZC_READ_ONCE(h->client_id),
				   .nonce = ZC_READ_ONCE(h->nonce), .why = ZC_READ_ONCE(h->why),
				   .seq = ZC_READ_ONCE(h->seq)};
	return out->magic == ZC_SVC_MAGIC;
}

void *zcast_service_data(zcast_msg *m)
{
	uint8_t *d = zcast_msg_data(m);
	if (!d || zcast_msg_capacity(m) < ZCAST_SERVICE_HEADER) {
		if (d)
			zc_err(ZCAST_EINVAL, "not a service message (its slot has no service header)");
		return NULL;
	}
	return d + ZCAST_SERVICE_HEADER;
}

size_t zcast_service_size(const zcast_msg *m)
{
	size_t n = zcast_msg_size(m);
	return n < ZCAST_SERVICE_HEADER ? 0 : n - ZCAST_SERVICE_HEADER;
}

size_t zcast_service_capacity(const zcast_msg *m)
{
	size_t n = zcast_msg_capacity(m);
	return n < ZCAST_SERVICE_HEADER ? 0 : n - ZCAST_SERVICE_HEADER;
}

int zcast_service_resize(zcast_msg *m, size_t size)
{
	if (!m)
		return zc_err(ZCAST_EINVAL, "msg is NULL");
	if (size > zcast_service_capacity(m))
		return zc_err(ZCAST_EINVAL, "size %zu exceeds the service slot's capacity %zu", size,
			      zcast_service_capacity(m));
	return zcast_msg_resize(m, size + ZCAST_SERVICE_HEADER);
}

int zc_svc_name_check(const char *service)
{
	if (!service || zcast_topic_name_valid(service) != 0)
		return zc_err(ZCAST_EINVAL, "service name '%s' is not a valid topic name",
			      service ? service : "(null)");
	if (strlen(service) > ZCAST_SERVICE_NAME_MAX)
		return zc_err(ZCAST_EINVAL, "service name '%s' is longer than %d bytes", service,
			      ZCAST_SERVICE_NAME_MAX);
	return 0;
}

void zc_svc_request_topic(char *buf, const char *service)
{
	snprintf(buf, ZC_SVC_TOPIC_MAX, "%s/_rq", service);
}

void zc_svc_response_topic(char *buf, const char *service, uint64_t id, uint32_t nonce)
{
	snprintf(buf, ZC_SVC_TOPIC_MAX, "%s/_rs/c%llu_%08x", service, (unsigned long long)id,
		 (unsigned)nonce);
}

void zcast_service_opts_init(zcast_service_opts *o)
{
	if (!o)
		return;
	*o = (zcast_service_opts){.request_size = 4096, .response_size = 4096, .slot_count = 8,
				  .queue_depth = 16};
}

/* Zero fields take the defaults. */
void zc_svc_opts_resolve(const zcast_service_opts *in, zcast_service_opts *out)
{
	zcast_service_opts d;
	zcast_service_opts_init(&d);
	*out = in ? *in : d;
	if (!out->request_size)
		out->request_size = d.request_size;
	if (!out->response_size)
		out->response_size = d.response_size;
	if (!out->slot_count)
		out->slot_count = d.slot_count;
	if (!out->queue_depth)
		out->queue_depth = d.queue_depth;
}
