/* Typed publishers: constrained loans over zcast_loan / zcast_msg_resize / zcast_publish. */
#include <stdlib.h>

#include <zcast/typed.h>

#include "cdr_internal.h"
#include "core_internal.h"

struct zcast_typed_pub {
	zcast_pub *pub;
	const zcast_cdr_type *type;
	uint32_t *bounds; /* the endpoint's, copied */
	size_t max_size;  /* worst-case CDR size at those bounds */
};

int zcast_typed_pub_open(const char *topic, const zcast_cdr_type *type, const void *bounds,
			 const zcast_pub_opts *opts, zcast_typed_pub **out)
{
	size_t max;
	int e = zcast_cdr_bound_size(type, bounds, &max);
	if (e < 0)
		return e;
	zcast_pub_opts o;
	if (opts)
		o = *opts;
	else
		zcast_pub_opts_init(&o);
	o.type_name = type->name;
	memcpy(o.type_hash, type->hash, ZCAST_TYPE_HASH_SIZE);
	size_t need = ZCAST_TYPED_PREFIX + max;
	if (o.slot_size < need) /* every loan must fit at the publisher's bounds */
		o.slot_size = need;
	zcast_typed_pub *p = calloc(1, sizeof *p);
	if (!p || (type->n_bounds && !(p->bounds = malloc(4ull * type->n_bounds)))) {
		free(p);
		return zc_err(ZCAST_ENOMEM, "out of memory");
	}
	if (type->n_bounds)
		memcpy(p->bounds, bounds, 4ull * type->n_bounds);
	p->type = type;
	p->max_size = max;
	if ((e = zcast_pub_open(topic, &o, &p->pub)) < 0) {
		free(p->bounds);
		free(p);
		return e;
	}
	*out = p;
	return 0;
}

int zcast_typed_pub_close(zcast_typed_pub *p)
{
	if (!p)
		return 0;
	int e = zcast_pub_close(p->pub);
	free(p->bounds);
	free(p);
	return e;
}

zcast_pub *zcast_typed_pub_handle(zcast_typed_pub *p)
{
	return p->pub;
}

size_t zcast_typed_pub_max_size(const zcast_typed_pub *p)
{
	return p->max_size;
}

/* Per-loan bounds may only be tighter than the endpoint's: the slot was sized for those. */
static int check_tighter(const zcast_typed_pub *p, const uint32_t *b)
{
	for (uint32_t i = 0; i < p->type->n_bounds; i++)
		if (b[i] > p->bounds[i])
			return zc_err(ZCAST_EINVAL,
				      "%s: loan bound entry %u is %u, above the publisher's %u",
				      p->type->name, i, b[i], p->bounds[i]);
	return 0;
}

int zcast_typed_loan(zcast_typed_pub *p, const void *bounds, zcast_msg **m, zcast_cdr_writer *w,
		     uint32_t *off, uint32_t *cap)
{
	return zcast_typed_loan_wait(p, bounds, 0, m, w, off, cap);
}

int zcast_typed_loan_wait(zcast_typed_pub *p, const void *bounds, int64_t timeout_ns, zcast_msg **m,
			  zcast_cdr_writer *w, uint32_t *off, uint32_t *cap)
{
	const uint32_t *b = bounds ? bounds : p->bounds;
	size_t size = p->max_size;
	int e;
	if (bounds &&
	    ((e = check_tighter(p, b)) < 0 || (e = zcast_cdr_bound_size(p->type, b, &size)) < 0))
		return e;
	e = timeout_ns ? zcast_loan_wait(p->pub, ZCAST_TYPED_PREFIX + size, timeout_ns, m)
		       : zcast_loan(p->pub, ZCAST_TYPED_PREFIX + size, m);
	if (e < 0)
		return e;
	uint8_t *d = zcast_msg_data(*m);
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	d[4] = 0, d[5] = 1, d[6] = 0, d[7] = 0; /* CDR_LE */
	w->base = d + ZCAST_TYPED_PREFIX;
	w->bounds = b;
	w->size = (uint32_t)size;
	zcast_cdr_layout(p->type, b, w->base, off, cap);
	return 0;
}

int zcast_typed_publish(zcast_typed_pub *p, zcast_msg *m, const zcast_cdr_writer *w)
{
	if (!p || !m || !w)
		return zc_err(ZCAST_EINVAL, "zcast_typed_publish: NULL argument");
	/* Compacted once: a retry after a refused publish (a full FULL queue) must not read the
	 * compacted stream as if it were still laid out at its bounds. */
	if (!m->compacted) {
		size_t size;
		int e = zcast_cdr_compact(p->type, w->bounds, w->base, &size);
		if (e < 0)
			return e;
		if ((e = zcast_msg_resize(m, ZCAST_TYPED_PREFIX + size)) < 0)
			return e;
		m->compacted = true;
	}
	return zcast_publish(p->pub, m);
}

int zcast_typed_publish_copy(zcast_typed_pub *p, const void *src)
{
	size_t size = zcast_cdr_serialized_size(p->type, src);
	zcast_msg *m;
	int e = zcast_loan(p->pub, ZCAST_TYPED_PREFIX + size, &m);
	if (e < 0)
		return e;
	uint8_t *d = zcast_msg_data(m);
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	zcast_cdr_serialize(p->type, src, d + ZCAST_TYPED_HEADER_OFFSET);
	if ((e = zcast_msg_resize(m, ZCAST_TYPED_PREFIX + size)) < 0 ||
	    (e = zcast_publish(p->pub, m)) < 0)
		zcast_msg_drop(m);
	return e;
}

void zcast_typed_sub_opts(zcast_sub_opts *o, const zcast_cdr_type *type)
{
	o->type_name = type->name;
	memcpy(o->type_hash, type->hash, ZCAST_TYPE_HASH_SIZE);
}

int zcast_typed_read(const zcast_cdr_type *type, zcast_msg *m, zcast_cdr_reader *r, uint32_t *off,
		     uint32_t *len)
{
	const uint8_t *d = zcast_msg_data(m);
	size_t n = zcast_msg_size(m);
	if (!d)
		return zc_err(ZCAST_ESTALE, "stale message");
	if (n < ZCAST_TYPED_PREFIX)
		return zc_err(ZCAST_ECORRUPT, "%s: typed message of %zu bytes", type->name, n);
	return zcast_cdr_read(type, d + ZCAST_TYPED_HEADER_OFFSET, n - ZCAST_TYPED_HEADER_OFFSET, r,
			      off, len);
}
