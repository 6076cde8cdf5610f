/* The copy path: a plain C struct (generated next to each type) serialized into CDR, and freeing
 * what zcast_cdr_deserialize allocated. For comparison with loans, and to talk to code that has its
 * data in ordinary structs. */
#include <stdlib.h>

#include "cdr_internal.h"

/* out NULL: only computes the end offset. */
static uint64_t ser_struct(const zcast_cdr_type *t, const uint8_t *c, uint8_t *out, uint64_t pos);

static uint64_t put(uint8_t *out, uint64_t pos, uint32_t a, const void *v, uint64_t n)
{
	uint64_t p = zc_cdr_align(pos, a);
	if (out) {
		memset(out + pos, 0, p - pos);
		memcpy(out + p, v, n);
	}
	return p + n;
}

static uint64_t ser_string(const zcast_cdr_str *s, uint8_t *out, uint64_t pos)
{
	uint32_t n = s->len + 1;
	pos = put(out, pos, 4, &n, 4);
	if (out) {
		if (s->len)
			memcpy(out + pos, s->data, s->len);
		out[pos + s->len] = 0;
	}
	return pos + n;
}

static uint64_t ser_values(const zcast_cdr_field *f, const uint8_t *v, uint32_t n, uint8_t *out,
			   uint64_t pos)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es)
		return n ? put(out, pos, es, v, (uint64_t)n * es) : pos;
	for (uint32_t i = 0; i < n; i++)
		pos = f->kind == ZCAST_CDR_STRING
			  ? ser_string((const zcast_cdr_str *)v + i, out, pos)
			  : ser_struct(f->type, v + (size_t)i * f->type->c_size, out, pos);
	return pos;
}

static uint64_t ser_struct(const zcast_cdr_type *t, const uint8_t *c, uint8_t *out, uint64_t pos)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		const uint8_t *v = c + f->c_offset;
		if (f->shape == ZCAST_CDR_SEQUENCE) {
			const zcast_cdr_seq *s = (const zcast_cdr_seq *)v;
			pos = put(out, pos, 4, &s->len, 4);
			pos = ser_values(f, s->data, s->len, out, pos);
		} else if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
			pos = ser_string((const zcast_cdr_str *)v, out, pos);
		} else {
			pos = ser_values(f, v, f->count, out, pos);
		}
	}
	return pos;
}

size_t zcast_cdr_serialized_size(const zcast_cdr_type *type, const void *src)
{
	return (size_t)ser_struct(type, src, NULL, 0);
}

size_t zcast_cdr_serialize(const zcast_cdr_type *type, const void *src, void *out)
{
	uint8_t *o = out;
	o[0] = 0, o[1] = 1, o[2] = 0, o[3] = 0; /* CDR_LE, no options */
	return ZCAST_CDR_HEADER + (size_t)ser_struct(type, src, o + ZCAST_CDR_HEADER, 0);
}

/* ---- declared defaults ---- */

static void init_struct(const zcast_cdr_type *t, uint8_t *c)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		uint8_t *v = c + f->c_offset;
		if (f->kind == ZCAST_CDR_STRUCT && f->shape != ZCAST_CDR_SEQUENCE) {
			for (uint32_t j = 0; j < f->count; j++)
				init_struct(f->type, v + (size_t)j * f->type->c_size);
		} else if (f->defaults && f->shape == ZCAST_CDR_SEQUENCE) {
			zcast_cdr_seq *s = (zcast_cdr_seq *)v;
			s->data = (void *)(uintptr_t)f->defaults; /* read-only: zcast_cdr_init says so */
			s->len = f->n_defaults;
		} else if (f->defaults) {
			size_t es = f->kind == ZCAST_CDR_STRING ? sizeof(zcast_cdr_str)
								: zcast_cdr_kind_size(f->kind);
			memcpy(v, f->defaults, es * f->n_defaults);
		}
	}
}

void zcast_cdr_init(const zcast_cdr_type *type, void *dst)
{
	memset(dst, 0, type->c_size);
	init_struct(type, dst);
}

static void free_struct(const zcast_cdr_type *t, uint8_t *c);

static void free_values(const zcast_cdr_field *f, uint8_t *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (f->kind == ZCAST_CDR_STRING)
			free((void *)((zcast_cdr_str *)v)[i].data);
		else if (f->kind == ZCAST_CDR_STRUCT)
			free_struct(f->type, v + (size_t)i * f->type->c_size);
	}
}

static void free_struct(const zcast_cdr_type *t, uint8_t *c)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		uint8_t *v = c + f->c_offset;
		if (f->shape == ZCAST_CDR_SEQUENCE) {
			zcast_cdr_seq *s = (zcast_cdr_seq *)v;
			if (s->data)
				free_values(f, s->data, s->len);
			free(s->data);
			s->data = NULL, s->len = 0;
		} else if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
			free((void *)((zcast_cdr_str *)v)->data);
			((zcast_cdr_str *)v)->data = NULL;
		} else {
			free_values(f, v, f->count);
		}
	}
}

void zcast_cdr_free(const zcast_cdr_type *type, void *dst)
{
	free_struct(type, dst);
}

const char *zcast_cdr_kind_name(int kind)
{
	static const char *const names[] = {
	    "bool",   "byte",  "char",	 "int8",    "uint8",   "int16",	 "uint16",  "int32",
	    "uint32", "int64", "uint64", "float32", "float64", "string", "message",
	};
	return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "?";
}
