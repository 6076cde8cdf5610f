/* Received samples that rmw_cyclonedds accepts but zcast's form does not hold (docs/BRIDGE.md):
 * big-endian XCDR1 (encapsulation 00 00) is byte-swapped to little endian, and a 0-length string
 * (length 0, no NUL; read as "" by ROS 2) is written as "" (length 1, its NUL). The walk follows
 * the type's table; every length and count is read once and checked against the input, so a
 * malformed sample fails here or in the validation after it, never reads outside the input. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct nz {
	const uint8_t *in;
	size_t n, ip; /* input bytes after the header, position */
	int swap;
	uint8_t *out;
	size_t cap, op;
	int depth;
};

static int room(struct nz *z, size_t k)
{
	if (z->op + k <= z->cap)
		return 0;
	size_t cap = z->cap * 2 > z->op + k ? z->cap * 2 : z->op + k;
	uint8_t *o = realloc(z->out, cap + ZCAST_CDR_HEADER);
	if (!o)
		return -1;
	z->out = o, z->cap = cap;
	return 0;
}

/* One primitive of size k (1, 2, 4 or 8), aligned to k on both sides. */
static int prim(struct nz *z, size_t k, uint64_t *value)
{
	z->ip = (z->ip + k - 1) & ~(k - 1);
	size_t pad = ((z->op + k - 1) & ~(k - 1)) - z->op;
	if (z->ip > z->n || z->n - z->ip < k || room(z, pad + k) < 0)
		return -1;
	uint8_t *o = z->out + ZCAST_CDR_HEADER + z->op;
	memset(o, 0, pad);
	o += pad;
	for (size_t i = 0; i < k; i++)
		o[i] = z->in[z->ip + (z->swap ? k - 1 - i : i)];
	if (value) {
		uint64_t v = 0;
		for (size_t i = k; i-- > 0;)
			v = v << 8 | o[i];
		*value = v;
	}
	z->ip += k, z->op += pad + k;
	return 0;
}

static int string(struct nz *z)
{
	uint64_t len;
	if (prim(z, 4, &len) < 0 || len > z->n - z->ip)
		return -1;
	if (len == 0) { /* "" without its NUL */
		if (room(z, 1) < 0)
			return -1;
		uint8_t *o = z->out + ZCAST_CDR_HEADER + z->op;
		o[-4] = 1;
		o[0] = 0;
		z->op++;
		return 0;
	}
	if (room(z, len) < 0)
		return -1;
	memcpy(z->out + ZCAST_CDR_HEADER + z->op, z->in + z->ip, len);
	z->ip += len, z->op += len;
	return 0;
}

static const uint8_t prim_size[] = {
    [ZCAST_CDR_BOOL] = 1,   [ZCAST_CDR_OCTET] = 1,   [ZCAST_CDR_CHAR] = 1,
    [ZCAST_CDR_INT8] = 1,   [ZCAST_CDR_UINT8] = 1,   [ZCAST_CDR_INT16] = 2,
    [ZCAST_CDR_UINT16] = 2, [ZCAST_CDR_INT32] = 4,   [ZCAST_CDR_UINT32] = 4,
    [ZCAST_CDR_INT64] = 8,  [ZCAST_CDR_UINT64] = 8,  [ZCAST_CDR_FLOAT32] = 4,
    [ZCAST_CDR_FLOAT64] = 8,
};

static int fields(struct nz *z, const zcast_cdr_type *t);

static int value(struct nz *z, const zcast_cdr_field *f)
{
	if (f->kind == ZCAST_CDR_STRING)
		return string(z);
	if (f->kind == ZCAST_CDR_STRUCT)
		return f->type ? fields(z, f->type) : -1;
	if (f->kind >= sizeof prim_size || !prim_size[f->kind])
		return -1;
	return prim(z, prim_size[f->kind], NULL);
}

static int fields(struct nz *z, const zcast_cdr_type *t)
{
	if (++z->depth > 64)
		return -1;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		uint64_t count = f->shape == ZCAST_CDR_ARRAY ? f->count : 1;
		if (f->shape == ZCAST_CDR_SEQUENCE && prim(z, 4, &count) < 0)
			return -1;
		if (count > z->n - z->ip + 1) /* every element takes a byte (empty: none left) */
			return -1;
		for (uint64_t k = 0; k < count; k++)
			if (value(z, f) < 0)
				return -1;
	}
	z->depth--;
	return 0;
}

int zb_normalize(const zcast_cdr_type *t, const uint8_t *in, size_t n, uint8_t **out,
		 size_t *out_n)
{
	if (n < ZCAST_CDR_HEADER || in[0] != 0 || in[1] > 1)
		return -1; /* not plain CDR (XCDR1) */
	struct nz z = {in + ZCAST_CDR_HEADER, n - ZCAST_CDR_HEADER, 0, in[1] == 0, NULL, 0, 0, 0};
	if (room(&z, n) < 0)
		return -1;
	if (fields(&z, t) < 0) {
		free(z.out);
		return -1;
	}
	z.out[0] = 0, z.out[1] = 1, z.out[2] = 0, z.out[3] = 0; /* little endian, no padding */
	*out = z.out;
	*out_n = ZCAST_CDR_HEADER + z.op;
	return 0;
}
