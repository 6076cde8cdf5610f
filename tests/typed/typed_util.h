/* Table-driven helpers for the typed tests: random plain C messages under given bounds, and writing
 * one through a writer view (the offsets the generated accessors use). */
#ifndef ZT_TYPED_UTIL_H
#define ZT_TYPED_UTIL_H

#include <stdlib.h>
#include <string.h>

#include <zcast/cdr.h>

static uint64_t zt_rng = 88172645463325252ull;
static inline uint64_t zt_rand(void)
{
	zt_rng ^= zt_rng << 13, zt_rng ^= zt_rng >> 7, zt_rng ^= zt_rng << 17;
	return zt_rng;
}

static inline size_t zt_c_size(const zcast_cdr_field *f)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	return es ? es : f->kind == ZCAST_CDR_STRING ? sizeof(zcast_cdr_str) : f->type->c_size;
}

/* A length up to bound: often 0 or exactly the bound (the corner cases), else anything between. */
static inline uint32_t zt_pick(uint32_t bound)
{
	switch (zt_rand() % 4) {
	case 0:
		return 0;
	case 1:
		return bound;
	default:
		return (uint32_t)(zt_rand() % ((uint64_t)bound + 1));
	}
}

static inline void zt_rand_string(zcast_cdr_str *s, uint32_t bound)
{
	uint32_t n = zt_pick(bound);
	char *d = malloc(n + 1);
	for (uint32_t i = 0; i < n; i++)
		d[i] = (char)(1 + zt_rand() % 255); /* no NUL inside */
	d[n] = 0;
	s->data = d, s->len = n;
}

static void zt_rand_struct(const zcast_cdr_type *t, const uint32_t *b, uint8_t *c);

static inline void zt_rand_values(const zcast_cdr_field *f, const uint32_t *eb, uint8_t *v,
				  uint32_t n)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	for (uint32_t i = 0; i < n; i++) {
		if (f->kind == ZCAST_CDR_BOOL)
			v[i] = zt_rand() & 1;
		else if (es)
			for (uint32_t j = 0; j < es; j++)
				v[(size_t)i * es + j] = (uint8_t)zt_rand();
		else if (f->kind == ZCAST_CDR_STRING)
			zt_rand_string((zcast_cdr_str *)v + i, eb[0]);
		else
			zt_rand_struct(f->type, eb, v + (size_t)i * f->type->c_size);
	}
}

static void zt_rand_struct(const zcast_cdr_type *t, const uint32_t *b, uint8_t *c)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		const uint32_t *fb = b ? b + f->bounds_index : NULL;
		uint8_t *v = c + f->c_offset;
		if (f->shape == ZCAST_CDR_SEQUENCE) {
			zcast_cdr_seq *s = (zcast_cdr_seq *)v;
			s->len = zt_pick(fb[0]);
			s->data = calloc(s->len ? s->len : 1, zt_c_size(f));
			zt_rand_values(f, fb + 1, s->data, s->len);
		} else if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
			zt_rand_string((zcast_cdr_str *)v, fb[0]);
		} else {
			zt_rand_values(f, fb, v, f->count);
		}
	}
}

/* Random bounds within what the type declares (unbounded members: up to max). */
static inline void zt_rand_bounds(const zcast_cdr_type *t, uint32_t *b, uint32_t max)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		uint32_t *fb = b + f->bounds_index;
		int seq = f->shape == ZCAST_CDR_SEQUENCE;
		if (seq)
			fb[0] = (uint32_t)(zt_rand() % ((f->count ? f->count : max) + 1));
		if (f->kind == ZCAST_CDR_STRING)
			fb[seq] =
			    (uint32_t)(zt_rand() % ((f->string_bound ? f->string_bound : max) + 1));
		if (f->kind == ZCAST_CDR_STRUCT && f->type->n_bounds)
			zt_rand_bounds(f->type, fb + seq, max);
	}
}

static void zt_put_struct(zcast_cdr_writer *w, const zcast_cdr_type *t, const uint8_t *c,
			  const uint32_t *off, const uint32_t *cap, uint32_t *k);

static inline void zt_put_string(zcast_cdr_writer *w, uint32_t off, uint32_t cap,
				 const zcast_cdr_str *s)
{
	memcpy(w->base + off + 4, s->data, s->len);
	if (zcast_cdr_set_strlen(w, off, cap, s->len) != 0)
		abort();
}

static inline void zt_put_values(zcast_cdr_writer *w, const zcast_cdr_field *f, const uint32_t *eb,
				 uint32_t first, const uint8_t *v, uint32_t n)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es) {
		memcpy(w->base + zcast_cdr_align_(first, es), v, (size_t)n * es);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (f->kind == ZCAST_CDR_STRING) {
			zt_put_string(w, zcast_cdr_string_slot(first, eb[0], i), eb[0],
				      (const zcast_cdr_str *)v + i);
			continue;
		}
		uint32_t eoff[256], ecap[256], k = 0;
		zcast_cdr_writer ew = {w->base, eb, w->size};
		zcast_cdr_writer_element(w, f->type, eb, first, i, eoff, ecap);
		zt_put_struct(&ew, f->type, v + (size_t)i * f->type->c_size, eoff, ecap, &k);
	}
}

/* Writes the plain struct c through a writer (w->bounds is t's bounds block). */
static void zt_put_struct(zcast_cdr_writer *w, const zcast_cdr_type *t, const uint8_t *c,
			  const uint32_t *off, const uint32_t *cap, uint32_t *k)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		const uint32_t *fb = w->bounds ? w->bounds + f->bounds_index : NULL;
		const uint8_t *v = c + f->c_offset;
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			zcast_cdr_writer sub = {w->base, fb, w->size};
			zt_put_struct(&sub, f->type, v, off, cap, k);
			continue;
		}
		uint32_t o = off[*k], cp = cap[*k];
		++*k;
		if (f->shape == ZCAST_CDR_SEQUENCE) {
			const zcast_cdr_seq *s = (const zcast_cdr_seq *)v;
			if (zcast_cdr_set_count(w, o, cp, s->len) != 0)
				abort();
			zt_put_values(w, f, fb + 1, o + 4, s->data, s->len);
		} else if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
			zt_put_string(w, o, cp, (const zcast_cdr_str *)v);
		} else {
			zt_put_values(w, f, fb, o, v, f->count);
		}
	}
}

#endif
