/* Typed values from the command line (typed_values.h): YAML flow style as `ros2 topic pub` takes it
 * ('{header: {frame_id: cam}, data: [1, 2]}'), checked against the type's table, filled into the
 * plain C struct over its declared defaults and serialized. */
#define _GNU_SOURCE
#include "typed_values.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a YAML flow value: a map, a sequence or a scalar ---- */

struct yn {
	char kind; /* 'm' map, 's' sequence, 'v' scalar */
	char *text; /* scalar: its text (unquoted, unescaped); map: NULL */
	uint32_t n; /* map pairs / sequence items */
	char **keys; /* map keys */
	struct yn *kids;
};

struct parse {
	const char *p;
	char *err;
	size_t errn;
};

static int perr(struct parse *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parse *P, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(P->err, P->errn, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct parse *P)
{
	while (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')
		P->p++;
}

static void yn_free(struct yn *y)
{
	for (uint32_t i = 0; i < y->n; i++) {
		if (y->keys)
			free(y->keys[i]);
		yn_free(&y->kids[i]);
	}
	free(y->keys);
	free(y->kids);
	free(y->text);
}

/* A quoted scalar: 'it''s' or "a \"b\" \n". */
static int parse_quoted(struct parse *P, char **out)
{
	char q = *P->p++;
	size_t cap = strlen(P->p) + 1, n = 0;
	char *s = malloc(cap);
	if (!s)
		return perr(P, "out of memory");
	for (;;) {
		char c = *P->p++;
		if (!c) {
			free(s);
			return perr(P, "a string quoted with %c has no end", q);
		}
		if (c == q && q == '\'' && *P->p == '\'') {
			P->p++;
		} else if (c == q) {
			break;
		} else if (c == '\\' && q == '"' && *P->p) {
			c = *P->p++;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == '0' ? 0 : c;
		}
		s[n++] = c;
	}
	s[n] = 0;
	*out = s;
	return 0;
}

/* A plain scalar up to one of `stops` (or the end), without surrounding blanks. */
static int parse_plain(struct parse *P, const char *stops, char **out)
{
	size_t n = strcspn(P->p, stops);
	while (n && (P->p[n - 1] == ' ' || P->p[n - 1] == '\t'))
		n--;
	if (!n)
		return perr(P, "a value is missing at '%.20s'", P->p);
	*out = strndup(P->p, n);
	P->p += n;
	return *out ? 0 : perr(P, "out of memory");
}

static int parse_scalar(struct parse *P, const char *stops, char **out)
{
	skip_space(P);
	return *P->p == '\'' || *P->p == '"' ? parse_quoted(P, out) : parse_plain(P, stops, out);
}

static int parse_value(struct parse *P, struct yn *y);

/* Grows y by one item (and key). */
static struct yn *add_item(struct parse *P, struct yn *y, char *key)
{
	struct yn *k = realloc(y->kids, (y->n + 1) * sizeof *k);
	char **keys = y->kind == 'm' ? realloc(y->keys, (y->n + 1) * sizeof *keys) : NULL;
	if (k)
		y->kids = k;
	if (keys)
		y->keys = keys;
	if (!k || (y->kind == 'm' && !keys)) {
		free(key);
		perr(P, "out of memory");
		return NULL;
	}
	if (keys)
		keys[y->n] = key;
	memset(&k[y->n], 0, sizeof *k);
	return &k[y->n++];
}

/* Items of a map or sequence up to `close` ('}', ']' or 0 for a map without braces). */
static int parse_items(struct parse *P, struct yn *y, char close)
{
	for (;;) {
		skip_space(P);
		if (*P->p == close) {
			P->p += close != 0;
			return 0;
		}
		if (!*P->p)
			return perr(P, "'%c' is missing at the end", close);
		char *key = NULL;
		if (y->kind == 'm') {
			if (parse_scalar(P, ":,{}[]", &key) < 0)
				return -1;
			skip_space(P);
			if (*P->p != ':') {
				perr(P, "'%s' needs ': value'", key);
				free(key);
				return -1;
			}
			P->p++;
		}
		struct yn *item = add_item(P, y, key);
		if (!item || parse_value(P, item) < 0)
			return -1;
		skip_space(P);
		if (*P->p == ',')
			P->p++;
		else if (!*P->p && close)
			return perr(P, "'%c' is missing at the end", close);
		else if (*P->p != close)
			return perr(P, "',' or '%c' expected at '%.20s'", close ? close : ' ', P->p);
	}
}

static int parse_value(struct parse *P, struct yn *y)
{
	skip_space(P);
	if (*P->p == '{' || *P->p == '[') {
		y->kind = *P->p == '{' ? 'm' : 's';
		char close = *P->p == '{' ? '}' : ']';
		P->p++;
		return parse_items(P, y, close);
	}
	y->kind = 'v';
	return parse_scalar(P, ",{}[]", &y->text);
}

/* ---- filling the plain C struct ---- */

struct fill {
	char *err;
	size_t errn;
	void **allocs; /* sequence buffers, freed after serializing */
	size_t n_allocs;
	char path[256];
};

static int ferr(struct fill *F, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ferr(struct fill *F, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(F->err, F->errn, "member %s: %s", F->path, what);
	return -1;
}

static void *falloc(struct fill *F, size_t n)
{
	void **a = realloc(F->allocs, (F->n_allocs + 1) * sizeof *a);
	void *p = a ? calloc(1, n ? n : 1) : NULL;
	if (a)
		F->allocs = a;
	if (p)
		F->allocs[F->n_allocs++] = p;
	return p;
}

/* One primitive of f's kind from text into dst. */
/* YAML's spellings of infinities and NaN (.inf, -.Inf, .nan, ...), else 0. */
static double yaml_special(const char *text)
{
	const char *t = text + (*text == '-' || *text == '+');
	double sign = *text == '-' ? -1 : 1;
	if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF"))
		return sign * INFINITY;
	if (t == text && (!strcmp(t, ".nan") || !strcmp(t, ".NaN") || !strcmp(t, ".NAN")))
		return NAN;
	return 0;
}

static int fill_prim(struct fill *F, const zcast_cdr_field *f, const char *text, uint8_t *dst)
{
	static const long long lo[] = {0, 0, 0, INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0, INT64_MIN};
	static const unsigned long long hi[] = {1,	   UINT8_MAX, UINT8_MAX, INT8_MAX,
						UINT8_MAX, INT16_MAX, UINT16_MAX, INT32_MAX,
						UINT32_MAX, INT64_MAX, UINT64_MAX};
	const char *kind = zcast_cdr_kind_name(f->kind);
	char *end;
	errno = 0;
	if (f->kind == ZCAST_CDR_BOOL) {
		bool t = !strcmp(text, "true") || !strcmp(text, "True"),
		     n = !strcmp(text, "false") || !strcmp(text, "False");
		if (!t && !n)
			return ferr(F, "'%s' is not a bool (true or false)", text);
		*dst = t;
		return 0;
	}
	if (f->kind == ZCAST_CDR_FLOAT32 || f->kind == ZCAST_CDR_FLOAT64) {
		double d = yaml_special(text);
		bool special = d != 0, bad = false;
		if (!special) {
			d = strtod(text, &end);
			/* 1e999 overflows: not a number that can be sent */
			bad = *end || end == text || (errno == ERANGE && isinf(d));
		}
		if (bad ||
		    (f->kind == ZCAST_CDR_FLOAT32 && isfinite(d) && (d > FLT_MAX || d < -FLT_MAX)))
			return ferr(F, "'%s' is not a %s", text, kind);
		float x = (float)d;
		memcpy(dst, f->kind == ZCAST_CDR_FLOAT32 ? (void *)&x : (void *)&d,
		       zcast_cdr_kind_size(f->kind));
		return 0;
	}
	bool is_unsigned = f->kind == ZCAST_CDR_UINT64 || f->kind == ZCAST_CDR_OCTET ||
			   f->kind == ZCAST_CDR_CHAR || f->kind == ZCAST_CDR_UINT8 ||
			   f->kind == ZCAST_CDR_UINT16 || f->kind == ZCAST_CDR_UINT32;
	uint64_t v;
	if (is_unsigned) {
		unsigned long long u = strtoull(text, &end, 0);
		bool ok = !errno && *end == 0 && end != text && !strchr(text, '-') && u <= hi[f->kind];
		if (!ok)
			return ferr(F, "'%s' is not a %s (0 .. %llu)", text, kind, hi[f->kind]);
		v = u;
	} else {
		long long s = strtoll(text, &end, 0);
		bool ok = !errno && *end == 0 && end != text && s >= lo[f->kind] &&
			  (s < 0 || (unsigned long long)s <= hi[f->kind]);
		if (!ok)
			return ferr(F, "'%s' is not a %s (%lld .. %llu)", text, kind, lo[f->kind],
				    hi[f->kind]);
		v = (uint64_t)s;
	}
	memcpy(dst, &v, zcast_cdr_kind_size(f->kind)); /* little endian: the low bytes */
	return 0;
}

static int fill_struct(struct fill *F, const zcast_cdr_type *t, const struct yn *y, uint8_t *dst);

/* One value (an element or a single member) of f from y into dst. */
static int fill_one(struct fill *F, const zcast_cdr_field *f, const struct yn *y, uint8_t *dst)
{
	if (f->kind == ZCAST_CDR_STRUCT)
		return fill_struct(F, f->type, y, dst);
	if (y->kind != 'v')
		return ferr(F, "a %s, not a %s", zcast_cdr_kind_name(f->kind),
			    y->kind == 'm' ? "map" : "sequence");
	if (f->kind != ZCAST_CDR_STRING)
		return fill_prim(F, f, y->text, dst);
	size_t n = strlen(y->text);
	if (f->string_bound && n > f->string_bound)
		return ferr(F, "%zu bytes, its bound is %u", n, f->string_bound);
	*(zcast_cdr_str *)dst = (zcast_cdr_str){y->text, (uint32_t)n};
	return 0;
}

static size_t c_elem_size(const zcast_cdr_field *f)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	return es ? es : f->kind == ZCAST_CDR_STRING ? sizeof(zcast_cdr_str) : f->type->c_size;
}

/* An array or sequence member from the YAML sequence y. */
static int fill_many(struct fill *F, const zcast_cdr_field *f, const struct yn *y, uint8_t *dst)
{
	if (y->kind != 's')
		return ferr(F, "a sequence [a, b, ...] is expected");
	if (f->shape == ZCAST_CDR_ARRAY && y->n != f->count)
		return ferr(F, "%u values, the array has %u", y->n, f->count);
	if (f->shape == ZCAST_CDR_SEQUENCE && f->count && y->n > f->count)
		return ferr(F, "%u values, its bound is %u", y->n, f->count);
	size_t es = c_elem_size(f);
	uint8_t *v = dst;
	if (f->shape == ZCAST_CDR_SEQUENCE) {
		if (!(v = falloc(F, es * y->n)))
			return ferr(F, "out of memory");
		*(zcast_cdr_seq *)dst = (zcast_cdr_seq){v, y->n};
	}
	size_t at = strlen(F->path);
	for (uint32_t i = 0; i < y->n; i++) {
		snprintf(F->path + at, sizeof F->path - at, "[%u]", i);
		if (f->kind == ZCAST_CDR_STRUCT)
			zcast_cdr_init(f->type, v + i * es);
		if (fill_one(F, f, &y->kids[i], v + i * es) < 0)
			return -1;
	}
	F->path[at] = 0;
	return 0;
}

static const zcast_cdr_field *field_named(const zcast_cdr_type *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_fields; i++)
		if (!strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

/* The members y gives; the others keep their defaults (dst was initialized). */
static int fill_struct(struct fill *F, const zcast_cdr_type *t, const struct yn *y, uint8_t *dst)
{
	if (y->kind != 'm')
		return ferr(F, "a map {member: value, ...} of %s is expected", t->name);
	size_t at = strlen(F->path);
	for (uint32_t i = 0; i < y->n; i++) {
		const zcast_cdr_field *f = field_named(t, y->keys[i]);
		snprintf(F->path + at, sizeof F->path - at, "%s%s", at ? "." : "", y->keys[i]);
		if (!f)
			return ferr(F, "%s has no such member", t->name);
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(y->keys[j], y->keys[i]))
				return ferr(F, "given twice");
		int e = f->shape == ZCAST_CDR_ONE ? fill_one(F, f, &y->kids[i], dst + f->c_offset)
						  : fill_many(F, f, &y->kids[i], dst + f->c_offset);
		if (e < 0)
			return e;
	}
	F->path[at] = 0;
	return 0;
}

int zt_values_serialize(const zcast_cdr_type *t, const char *text, uint8_t **out, size_t *len,
			char *err, size_t errn)
{
	struct parse P = {text, err, errn};
	struct yn root = {.kind = 'm'};
	skip_space(&P);
	int e = *P.p == '{' ? parse_value(&P, &root) : parse_items(&P, &root, 0);
	skip_space(&P);
	if (e == 0 && *P.p)
		e = perr(&P, "unexpected '%.20s' after the value", P.p);
	struct fill F = {.err = err, .errn = errn};
	uint8_t *c = e == 0 ? calloc(1, t->c_size ? t->c_size : 1) : NULL;
	if (e == 0 && !c)
		e = perr(&P, "out of memory");
	if (e == 0) {
		zcast_cdr_init(t, c);
		e = fill_struct(&F, t, &root, c);
	}
	if (e == 0) {
		size_t n = ZCAST_TYPED_HEADER_OFFSET + ZCAST_CDR_HEADER + zcast_cdr_serialized_size(t, c);
		if ((*out = calloc(1, n))) {
			*len = ZCAST_TYPED_HEADER_OFFSET + zcast_cdr_serialize(t, c, *out + 4);
		} else {
			e = perr(&P, "out of memory");
		}
	}
	for (size_t i = 0; i < F.n_allocs; i++)
		free(F.allocs[i]);
	free(F.allocs);
	free(c);
	yn_free(&root);
	return e;
}
