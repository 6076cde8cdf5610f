/* CDR reader: validates a received message while finding member offsets, and the deserializing copy
 * (the same walk, copying into a plain C struct). The buffer is hostile shared memory: every length
 * and count is read once into a local and checked against the message size before it is used. */
#include <stdio.h>
#include <stdlib.h>

#include "cdr_internal.h"
#include "core_internal.h"

#define RD_DEPTH 16 /* nesting levels an error message names */

struct rd {
	const uint8_t *b;
	uint32_t size;
	const zcast_cdr_type *top;
	/* Where the walk is, for errors: the enclosing members (index -1: a single message) and
	 * the index of the string element being read (-1: none). */
	uint32_t depth;
	const char *outer[RD_DEPTH];
	int64_t outer_index[RD_DEPTH];
	int64_t leaf_index;
};

static void rd_enter(struct rd *r, const zcast_cdr_field *f, int64_t index)
{
	if (r->depth < RD_DEPTH)
		r->outer[r->depth] = f->name, r->outer_index[r->depth] = index;
	r->depth++;
}

/* Appends one path element ("name" or "name[i]", then sep) to path (size n) at *at. */
static void path_add(char *path, size_t n, size_t *at, const char *name, int64_t index,
		     const char *sep)
{
	int w = index < 0 ? snprintf(path + *at, n - *at, "%s%s", name, sep)
			  : snprintf(path + *at, n - *at, "%s[%lld]%s", name, (long long)index, sep);
	if (w > 0)
		*at = *at + (size_t)w < n ? *at + (size_t)w : n - 1;
}

/* A corrupt message: the error names the member's path ("orientation.x", "fields[1].name"). */
static int bad(struct rd *r, const zcast_cdr_field *f, const char *what, uint64_t pos)
{
	char path[256];
	size_t at = 0;
	path[0] = 0;
	for (uint32_t d = 0; d < r->depth && d < RD_DEPTH; d++)
		path_add(path, sizeof path, &at, r->outer[d], r->outer_index[d], ".");
	if (r->depth > RD_DEPTH)
		path_add(path, sizeof path, &at, "...", -1, ".");
	path_add(path, sizeof path, &at, f->name, r->leaf_index, "");
	return zc_err(ZCAST_ECORRUPT, "%s: member %s: %s (offset %llu of %u)", r->top->name, path,
		      what, (unsigned long long)pos, r->size);
}

/* Aligns *pos to a and checks that n more bytes are in the message. */
static bool room(struct rd *r, uint64_t *pos, uint32_t a, uint64_t n)
{
	uint64_t p = zc_cdr_align(*pos, a);
	if (p > r->size || n > r->size - p)
		return false;
	*pos = p;
	return true;
}

static int rd_struct(struct rd *r, const zcast_cdr_type *t, uint64_t *pos, uint32_t *off,
		     uint32_t *len, uint32_t *k, uint8_t *c);

/* A nested message of member f (element index, or -1 for a single one). */
static int rd_nested(struct rd *r, const zcast_cdr_field *f, int64_t index, uint64_t *pos,
		     uint32_t *off, uint32_t *len, uint32_t *k, uint8_t *c)
{
	rd_enter(r, f, index);
	int e = rd_struct(r, f->type, pos, off, len, k, c);
	r->depth--;
	return e;
}

/* One string at *pos: its checked length (without the NUL) and data offset. */
static int rd_string(struct rd *r, const zcast_cdr_field *f, uint64_t *pos, uint32_t *data,
		     uint32_t *slen, zcast_cdr_str *cdst)
{
	if (!room(r, pos, 4, 4))
		return bad(r, f, "string length past the end", *pos);
	uint32_t n = zc_cdr_load32(r->b + *pos); /* read once */
	*pos += 4;
	if (n == 0 || n > r->size - *pos)
		return bad(r, f, "string length out of range", *pos - 4);
	if (r->b[*pos + n - 1] != 0)
		return bad(r, f, "string without its NUL", *pos);
	if (f->string_bound && n - 1 > f->string_bound)
		return bad(r, f, "string longer than its bound", *pos - 4);
	*data = (uint32_t)*pos;
	*slen = n - 1;
	if (cdst) {
		char *s = malloc(n);
		if (!s)
			return zc_err(ZCAST_ENOMEM, "out of memory copying %s", f->name);
		memcpy(s, r->b + *pos, n - 1);
		s[n - 1] = 0;
		cdst->data = s, cdst->len = n - 1;
	}
	*pos += n;
	return 0;
}

/* count values of f's kind starting at *pos; cdst (if any) receives them (C layout). */
static int rd_values(struct rd *r, const zcast_cdr_field *f, uint64_t *pos, uint32_t count,
		     uint32_t *first, uint8_t *cdst)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es) {
		if (count == 0) {
			*first = (uint32_t)*pos;
			return 0;
		}
		if (!room(r, pos, es, (uint64_t)count * es))
			return bad(r, f, "values past the end", *pos);
		*first = (uint32_t)*pos;
		const uint8_t *v = r->b + *pos;
		if (cdst)
			memcpy(cdst, v, (size_t)count * es);
		if (f->kind == ZCAST_CDR_BOOL) /* a bool is 0 or 1, as every CDR reader demands */
			for (uint32_t i = 0; i < count; i++)
				if ((cdst ? cdst[i] : v[i]) > 1)
					return bad(r, f, "bool neither 0 nor 1", *pos + i);
		*pos += (uint64_t)count * es;
		return 0;
	}
	*first = (uint32_t)*pos;
	for (uint32_t i = 0; i < count; i++) {
		int e;
		if (f->kind == ZCAST_CDR_STRING) {
			uint32_t d, l;
			r->leaf_index = i;
			e = rd_string(r, f, pos, &d, &l, cdst ? (zcast_cdr_str *)cdst + i : NULL);
			r->leaf_index = -1;
			if (i == 0)
				*first = d - 4;
		} else {
			uint32_t k = 0;
			e = rd_nested(r, f, i, pos, NULL, NULL, &k,
				      cdst ? cdst + (size_t)i * f->type->c_size : NULL);
		}
		if (e < 0)
			return e;
	}
	return 0;
}

static size_t c_elem_size(const zcast_cdr_field *f)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es)
		return es;
	return f->kind == ZCAST_CDR_STRING ? sizeof(zcast_cdr_str) : f->type->c_size;
}

static int rd_field(struct rd *r, const zcast_cdr_field *f, uint64_t *pos, uint32_t *off,
		    uint32_t *len, uint32_t *k, uint8_t *c)
{
	uint8_t *cf = c ? c + f->c_offset : NULL;
	if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE)
		return rd_nested(r, f, -1, pos, off, len, k, cf);
	uint32_t first = 0, count = 0;
	int e = 0;
	if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
		e = rd_string(r, f, pos, &first, &count, (zcast_cdr_str *)cf);
	} else if (f->shape == ZCAST_CDR_SEQUENCE) {
		if (!room(r, pos, 4, 4))
			return bad(r, f, "sequence count past the end", *pos);
		count = zc_cdr_load32(r->b + *pos); /* read once */
		*pos += 4;
		if (f->count && count > f->count)
			return bad(r, f, "sequence longer than its bound", *pos - 4);
		if (count > r->size - *pos) /* every element takes at least one byte */
			return bad(r, f, "sequence count out of range", *pos - 4);
		uint8_t *data = NULL;
		if (cf && count) {
			data = calloc(count, c_elem_size(f));
			if (!data)
				return zc_err(ZCAST_ENOMEM, "out of memory copying %s", f->name);
			((zcast_cdr_seq *)cf)->data = data;
		}
		if (cf)
			((zcast_cdr_seq *)cf)->len = count;
		e = rd_values(r, f, pos, count, &first, data);
	} else {
		count = f->count;
		e = rd_values(r, f, pos, count, &first, cf);
	}
	if (e < 0)
		return e;
	if (off) {
		off[*k] = first;
		len[*k] = count;
	}
	++*k;
	return 0;
}

static int rd_struct(struct rd *r, const zcast_cdr_type *t, uint64_t *pos, uint32_t *off,
		     uint32_t *len, uint32_t *k, uint8_t *c)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		int e = rd_field(r, &t->fields[i], pos, off, len, k, c);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Checks the encapsulation header; sets up the reader over what follows it. */
static int rd_open(const zcast_cdr_type *type, const void *data, size_t size, struct rd *r)
{
	const uint8_t *p = data;
	if (size < ZCAST_CDR_HEADER || size - ZCAST_CDR_HEADER >= ZC_CDR_MAX)
		return zc_err(ZCAST_ECORRUPT, "%s: message of %zu bytes", type->name, size);
	if ((uintptr_t)(p + ZCAST_CDR_HEADER) % 8)
		return zc_err(ZCAST_EINVAL,
			      "%s: CDR origin not 8-byte aligned (values are read in place)",
			      type->name);
	if (p[0] != 0 || p[1] != 1) /* the message's bytes, so a corrupt message */
		return zc_err(ZCAST_ECORRUPT,
			      "%s: encapsulation %02x%02x is not little-endian plain CDR",
			      type->name, p[0], p[1]);
	*r = (struct rd){.b = p + ZCAST_CDR_HEADER,
			 .size = (uint32_t)(size - ZCAST_CDR_HEADER),
			 .top = type,
			 .leaf_index = -1};
	return 0;
}

/* Only the padding the options announce may follow the message (DDS-XTypes 7.6.3.1.2: the low
 * two bits of the options count it): anything else, or a missing announced padding, is corrupt. */
static int rd_end(const struct rd *r, const uint8_t *data, uint64_t end)
{
	uint32_t pad = data[3] & 3u;
	if (end + pad == r->size)
		return 0;
	return zc_err(ZCAST_ECORRUPT,
		      "%s: the message ends at %llu of %u bytes; the encapsulation allows %u bytes "
		      "of padding after it",
		      r->top->name, (unsigned long long)end, r->size, pad);
}

/* Opens and walks a whole message; c (if any) receives a deserialized copy. */
static int rd_whole(const zcast_cdr_type *type, const void *data, size_t size, uint32_t *off,
		    uint32_t *len, uint8_t *c, struct rd *r, uint64_t *end)
{
	int e = rd_open(type, data, size, r);
	uint32_t k = 0;
	*end = 0;
	if (e < 0 || (e = rd_struct(r, type, end, off, len, &k, c)) < 0)
		return e;
	return rd_end(r, data, *end);
}

int zcast_cdr_read(const zcast_cdr_type *type, const void *data, size_t size, zcast_cdr_reader *out,
		   uint32_t *off, uint32_t *len)
{
	struct rd r;
	uint64_t end;
	int e = rd_whole(type, data, size, off, len, NULL, &r, &end);
	if (e < 0)
		return e;
	out->base = r.b, out->size = r.size, out->end = (uint32_t)end;
	return 0;
}

/* Offset of element `index` of a fixed-size type when every element has the same layout: that holds
 * when the first element's size is a multiple of the type's largest alignment (each element then
 * starts at the same offset modulo every alignment). */
static bool fixed_stride(const zcast_cdr_type *t, uint32_t first, uint32_t index, uint64_t *pos)
{
	if (t->n_bounds)
		return false;
	uint64_t s = zc_cdr_bound_end(t, NULL, first) - first;
	if (s % zc_cdr_max_align(t))
		return false;
	*pos = first + (uint64_t)index * s;
	return true;
}

int zcast_cdr_element(const zcast_cdr_reader *rd, const zcast_cdr_type *elem, uint32_t first,
		      uint32_t count, uint32_t index, zcast_cdr_reader *out, uint32_t *off,
		      uint32_t *len)
{
	if (index >= count)
		return zc_err(ZCAST_EINVAL, "%s: element %u of %u", elem->name, index, count);
	struct rd r = {.b = rd->base, .size = rd->size, .top = elem, .leaf_index = -1};
	uint64_t pos = first;
	uint32_t k = 0;
	int e;
	if (!index || !fixed_stride(elem, first, index, &pos))
		for (uint32_t i = 0; i < index; i++)
			if ((e = rd_struct(&r, elem, &pos, NULL, NULL, &k, NULL)) < 0)
				return e;
	k = 0;
	if ((e = rd_struct(&r, elem, &pos, off, len, &k, NULL)) < 0)
		return e;
	out->base = r.b, out->size = r.size, out->end = (uint32_t)pos;
	return 0;
}

int zcast_cdr_string_element(const zcast_cdr_reader *rd, uint32_t first, uint32_t count,
			     uint32_t index, const char **str, uint32_t *len)
{
	static const zcast_cdr_type strings = {"string", NULL, NULL, 0, 0, 0, 0};
	static const zcast_cdr_field f = {"element", ZCAST_CDR_STRING, ZCAST_CDR_ONE, 0, 0, 0, NULL,
					  0, NULL, 0};
	if (index >= count)
		return zc_err(ZCAST_EINVAL, "string element %u of %u", index, count);
	struct rd r = {.b = rd->base, .size = rd->size, .top = &strings, .leaf_index = -1};
	uint64_t pos = first;
	uint32_t d = 0, l = 0;
	for (uint32_t i = 0; i <= index; i++) {
		int e = rd_string(&r, &f, &pos, &d, &l, NULL);
		if (e < 0)
			return e;
	}
	*str = (const char *)r.b + d;
	*len = l;
	return 0;
}

int zcast_cdr_deserialize(const zcast_cdr_type *type, const void *data, size_t size, void *dst)
{
	memset(dst, 0, type->c_size);
	struct rd r;
	uint64_t end;
	/* Validate first, so no allocation is sized by a count the message cannot back; the copying
	 * walk checks everything again (the bytes may change in between). */
	int e = rd_whole(type, data, size, NULL, NULL, NULL, &r, &end);
	if (e < 0)
		return e;
	if ((e = rd_whole(type, data, size, NULL, NULL, dst, &r, &end)) < 0)
		zcast_cdr_free(type, dst);
	return e;
}
