/* An opaque-CDR type for Cyclone DDS 0.10 (its ddsi_sertype / ddsi_serdata interface): a sample is
 * the serialized message itself (encapsulation header + CDR stream), so the bridge writes the bytes
 * of a zcast typed message with dds_forwardcdr and takes received bytes with dds_takecdr, and nothing
 * is deserialized or re-serialized on the way. ROS 2 topics are keyless: every sample is the one
 * instance, so key-related operations are trivial. */
#include <stdlib.h>
#include <string.h>

#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>
#include <dds/ddsi/q_radmin.h>
#include <dds/ddsrt/mh3.h>

#include "internal.h"

struct zb_serdata {
	struct ddsi_serdata c;
	uint32_t size; /* bytes in data, header included, as sent (a multiple of 4) */
	uint32_t used; /* bytes of the message without the padding the options announce */
	unsigned char *data;
};

/* ---- sertype ---- */

static void st_free(struct ddsi_sertype *tp)
{
	ddsi_sertype_fini(tp);
	free(tp);
}

/* The bridge never uses samples in their C form; Cyclone may still zero or free a sample array. */
static void st_zero_samples(const struct ddsi_sertype *d, void *samples, size_t count)
{
	(void)d, (void)samples, (void)count;
}

static void st_realloc_samples(void **ptrs, const struct ddsi_sertype *d, void *old,
			       size_t oldcount, size_t count)
{
	(void)d, (void)old, (void)oldcount;
	for (size_t i = 0; i < count; i++)
		ptrs[i] = NULL;
}

static void st_free_samples(const struct ddsi_sertype *d, void **ptrs, size_t count,
			    dds_free_op_t op)
{
	(void)d, (void)ptrs, (void)count, (void)op;
}

/* Two opaque types are equal when their names are (the generic fields are compared by Cyclone). */
static bool st_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
	return strcmp(a->type_name, b->type_name) == 0;
}

static uint32_t st_hash(const struct ddsi_sertype *tp)
{
	return ddsrt_mh3(tp->type_name, strlen(tp->type_name), 0);
}

static const struct ddsi_sertype_ops st_ops = {
    .version = ddsi_sertype_v0,
    .free = st_free,
    .zero_samples = st_zero_samples,
    .realloc_samples = st_realloc_samples,
    .free_samples = st_free_samples,
    .equal = st_equal,
    .hash = st_hash,
};

/* ---- serdata ---- */

/* The bytes sit 4 into their (16-aligned) allocation, so the CDR stream behind the 4-byte header is
 * 8-aligned, as zcast_cdr_read wants it: route_out.c validates the copy it sends in place. */
#define ZB_SD_SHIFT 4

static struct zb_serdata *sd_alloc(const struct ddsi_sertype *tp, enum ddsi_serdata_kind kind,
				   size_t size)
{
	struct zb_serdata *d = malloc(sizeof *d);
	if (!d)
		return NULL;
	ddsi_serdata_init(&d->c, tp, kind);
	d->c.hash = tp->serdata_basehash; /* keyless: one instance, one hash */
	d->size = d->used = 0;
	d->data = NULL;
	if (size) {
		unsigned char *base = malloc(size + ZB_SD_SHIFT);
		if (!base) {
			free(d);
			return NULL;
		}
		d->data = base + ZB_SD_SHIFT;
	}
	d->size = (uint32_t)size;
	return d;
}

/* The options' low two bits count the padding at the end (DDS-XTypes 7.6.3.1.2). */
static void sd_set_used(struct zb_serdata *d)
{
	uint32_t pad = d->size >= 4 ? (d->data[3] & 3u) : 0;
	d->used = d->size >= 4 + pad ? d->size - pad : d->size;
}

static bool sd_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
	(void)a, (void)b;
	return true;
}

static uint32_t sd_get_size(const struct ddsi_serdata *dc)
{
	return ((const struct zb_serdata *)dc)->size;
}

static struct ddsi_serdata *sd_from_ser(const struct ddsi_sertype *tp, enum ddsi_serdata_kind kind,
					const struct nn_rdata *frag, size_t size)
{
	if (size > UINT32_MAX)
		return NULL;
	struct zb_serdata *d = sd_alloc(tp, kind, kind == SDK_DATA ? size : 0);
	if (!d)
		return NULL;
	if (kind != SDK_DATA)
		return &d->c;
	/* Fragments may overlap; copy each byte range once, in order. */
	uint32_t off = 0;
	for (; frag && off < size; frag = frag->nextfrag) {
		if (frag->maxp1 <= off)
			continue;
		if (frag->min > off) { /* a hole: Cyclone hands over complete samples only */
			ddsi_serdata_unref(&d->c);
			return NULL;
		}
		const unsigned char *payload =
		    NN_RMSG_PAYLOADOFF(frag->rmsg, NN_RDATA_PAYLOAD_OFF(frag));
		uint32_t end = frag->maxp1 < size ? frag->maxp1 : (uint32_t)size;
		memcpy(d->data + off, payload + (off - frag->min), end - off);
		off = end;
	}
	if (off != size) {
		ddsi_serdata_unref(&d->c);
		return NULL;
	}
	sd_set_used(d);
	return &d->c;
}

static struct ddsi_serdata *sd_from_ser_iov(const struct ddsi_sertype *tp,
					    enum ddsi_serdata_kind kind, ddsrt_msg_iovlen_t niov,
					    const ddsrt_iovec_t *iov, size_t size)
{
	if (size > UINT32_MAX)
		return NULL;
	struct zb_serdata *d = sd_alloc(tp, kind, kind == SDK_DATA ? size : 0);
	if (!d)
		return NULL;
	if (kind != SDK_DATA)
		return &d->c;
	size_t off = 0;
	for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
		size_t n = iov[i].iov_len < size - off ? iov[i].iov_len : size - off;
		memcpy(d->data + off, iov[i].iov_base, n);
		off += n;
	}
	sd_set_used(d);
	return &d->c;
}

static struct ddsi_serdata *sd_from_keyhash(const struct ddsi_sertype *tp,
					    const struct ddsi_keyhash *kh)
{
	(void)kh;
	struct zb_serdata *d = sd_alloc(tp, SDK_KEY, 0);
	return d ? &d->c : NULL;
}

static struct ddsi_serdata *sd_to_untyped(const struct ddsi_serdata *dc)
{
	struct zb_serdata *d = sd_alloc(dc->type, SDK_KEY, 0);
	if (!d)
		return NULL;
	d->c.type = NULL; /* untyped: Cyclone's convention for instance keys */
	return &d->c;
}

static void sd_to_ser(const struct ddsi_serdata *dc, size_t off, size_t sz, void *buf)
{
	const struct zb_serdata *d = (const struct zb_serdata *)dc;
	memcpy(buf, d->data + off, sz);
}

static struct ddsi_serdata *sd_to_ser_ref(const struct ddsi_serdata *dc, size_t off, size_t sz,
					  ddsrt_iovec_t *ref)
{
	const struct zb_serdata *d = (const struct zb_serdata *)dc;
	ref->iov_base = d->data + off;
	ref->iov_len = (ddsrt_iov_len_t)sz;
	return ddsi_serdata_ref(dc);
}

static void sd_to_ser_unref(struct ddsi_serdata *dc, const ddsrt_iovec_t *ref)
{
	(void)ref;
	ddsi_serdata_unref(dc);
}

/* No C form of a sample: reading through dds_take (not takecdr) gives nothing. */
static bool sd_to_sample(const struct ddsi_serdata *dc, void *sample, void **bufptr, void *buflim)
{
	(void)dc, (void)sample, (void)bufptr, (void)buflim;
	return false;
}

static bool sd_untyped_to_sample(const struct ddsi_sertype *tp, const struct ddsi_serdata *dc,
				 void *sample, void **bufptr, void *buflim)
{
	(void)tp, (void)dc, (void)sample, (void)bufptr, (void)buflim;
	return true;
}

static void sd_free(struct ddsi_serdata *dc)
{
	struct zb_serdata *d = (struct zb_serdata *)dc;
	if (d->data)
		free(d->data - ZB_SD_SHIFT);
	free(d);
}

static size_t sd_print(const struct ddsi_sertype *tp, const struct ddsi_serdata *dc, char *buf,
		       size_t size)
{
	(void)tp;
	return (size_t)snprintf(buf, size, "(%u bytes of CDR)",
				((const struct zb_serdata *)dc)->size);
}

static void sd_get_keyhash(const struct ddsi_serdata *dc, struct ddsi_keyhash *buf, bool force_md5)
{
	(void)dc, (void)force_md5;
	memset(buf, 0, sizeof *buf);
}

static const struct ddsi_serdata_ops sd_ops = {
    .eqkey = sd_eqkey,
    .get_size = sd_get_size,
    .from_ser = sd_from_ser,
    .from_ser_iov = sd_from_ser_iov,
    .from_keyhash = sd_from_keyhash,
    .to_ser = sd_to_ser,
    .to_ser_ref = sd_to_ser_ref,
    .to_ser_unref = sd_to_ser_unref,
    .to_sample = sd_to_sample,
    .to_untyped = sd_to_untyped,
    .untyped_to_sample = sd_untyped_to_sample,
    .free = sd_free,
    .print = sd_print,
    .get_keyhash = sd_get_keyhash,
};

struct ddsi_sertype *zb_sertype_new(const char *dds_type_name)
{
	struct ddsi_sertype *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	ddsi_sertype_init(st, dds_type_name, &st_ops, &sd_ops, true);
	/* ROS 2 types are final and plain: XCDR1 is what rmw_cyclonedds and idlc's code send. */
	st->allowed_data_representation = DDS_DATA_REPRESENTATION_FLAG_XCDR1;
	return st;
}

struct ddsi_serdata *zb_serdata_new(const struct ddsi_sertype *st, const void *bytes, size_t n)
{
	if (n < 4 || n > UINT32_MAX - 4)
		return NULL;
	size_t pad = (4 - n % 4) % 4;
	struct zb_serdata *d = sd_alloc(st, SDK_DATA, n + pad);
	if (!d)
		return NULL;
	memcpy(d->data, bytes, n);
	memset(d->data + n, 0, pad);
	d->data[3] = (unsigned char)((d->data[3] & ~3u) | pad);
	d->used = (uint32_t)n;
	return &d->c;
}

const void *zb_serdata_bytes(const struct ddsi_serdata *dc, size_t *n)
{
	const struct zb_serdata *d = (const struct zb_serdata *)dc;
	*n = d->used;
	return d->data;
}
