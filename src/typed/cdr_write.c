/* CDR writer: a message laid out at its bounds (a constrained loan), and its compaction in place.
 *
 * Layout at bounds: every string and sequence takes the room of its bound, so each member's offset
 * is fixed when the loan is made and the writer fills members in any order. Compaction walks the
 * bound layout (src) and the exact layout (dst) together; dst never passes src, so moving pieces in
 * member order with memmove never overwrites a piece not yet moved. */
#include "cdr_internal.h"
#include "core_internal.h"

uint32_t zc_cdr_max_align(const zcast_cdr_type *t)
{
	uint32_t a = 1;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		uint32_t fa = f->kind == ZCAST_CDR_STRUCT   ? zc_cdr_max_align(f->type)
			      : f->kind == ZCAST_CDR_STRING ? 4
							    : zcast_cdr_kind_size(f->kind);
		if (f->shape == ZCAST_CDR_SEQUENCE && fa < 4)
			fa = 4;
		a = fa > a ? fa : a;
	}
	return a;
}

/* The lay-out walk. With base, strings are made empty, counts and fixed values 0; with off, member
 * offsets and capacities are recorded (flat numbering). bounds: this type's block (NULL for fixed
 * types). */
struct lay {
	uint8_t *base;
	uint32_t *off, *cap, k;
};

static uint64_t lay_struct(const zcast_cdr_type *t, const uint32_t *bounds, uint64_t pos,
			   struct lay *l);

/* Aligns pos; with base, the padding is zeroed (then a message at its bounds is final as laid out). */
static uint64_t lay_align(uint64_t pos, uint32_t a, uint8_t *base)
{
	uint64_t p = zc_cdr_align(pos, a);
	if (base)
		memset(base + pos, 0, p - pos);
	return p;
}

static uint64_t lay_string(uint32_t bound, uint64_t pos, uint8_t *base)
{
	pos = lay_align(pos, 4, base);
	if (base) {
		zc_cdr_store32(base + pos, 1);
		base[pos + 4] = 0;
	}
	return pos + 4 + bound + 1;
}

/* n elements of f (element bounds eb) from pos. */
static uint64_t lay_values(const zcast_cdr_field *f, const uint32_t *eb, uint32_t n, uint64_t pos,
			   uint8_t *base)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es)
		return n ? lay_align(pos, es, base) + (uint64_t)n * es : pos;
	struct lay sub = {base, NULL, NULL, 0};
	for (uint32_t i = 0; i < n && pos <= ZC_CDR_MAX; i++)
		pos = f->kind == ZCAST_CDR_STRING ? lay_string(eb[0], pos, base)
						  : lay_struct(f->type, eb, pos, &sub);
	return pos;
}

/* The string s at prefix p if it fits bound (it stays empty otherwise). */
static void lay_default_string(uint8_t *base, uint64_t p, uint32_t bound, const zcast_cdr_str *s)
{
	if (s->len > bound)
		return;
	zc_cdr_store32(base + p, s->len + 1);
	memcpy(base + p + 4, s->data, s->len);
	base[p + 4 + s->len] = 0;
}

/* f's declared default over its fresh layout; start: its values, or its length/count prefix. A
 * sequence longer than this loan's bound stays empty. */
static void lay_default(const zcast_cdr_field *f, const uint32_t *b, uint64_t start, uint8_t *base)
{
	const zcast_cdr_str *strs = f->defaults;
	uint32_t n = f->n_defaults, es = zcast_cdr_kind_size(f->kind);
	bool seq = f->shape == ZCAST_CDR_SEQUENCE;
	if (f->shape == ZCAST_CDR_ONE && f->kind == ZCAST_CDR_STRING) {
		lay_default_string(base, start, b[0], strs);
		return;
	}
	if (seq && n > b[0])
		return;
	if (seq)
		zc_cdr_store32(base + start, n);
	uint64_t first = seq ? start + 4 : start;
	if (es) {
		memcpy(base + zc_cdr_align(first, es), f->defaults, (size_t)n * es);
		return;
	}
	uint32_t bound = b[seq]; /* each string's */
	for (uint32_t i = 0; i < n; i++)
		lay_default_string(base, zcast_cdr_string_slot((uint32_t)first, bound, i), bound,
				   &strs[i]);
}

static uint64_t lay_field(const zcast_cdr_field *f, const uint32_t *b, uint64_t pos, struct lay *l)
{
	if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE)
		return lay_struct(f->type, b, pos, l);
	uint64_t start;
	uint32_t cap;
	if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
		start = lay_align(pos, 4, l->base), cap = b[0];
		pos = lay_string(cap, pos, l->base);
	} else if (f->shape == ZCAST_CDR_SEQUENCE) {
		start = lay_align(pos, 4, l->base), cap = b[0];
		if (l->base)
			zc_cdr_store32(l->base + start, 0);
		pos = lay_values(f, b + 1, cap, start + 4, l->base);
	} else {
		cap = f->count;
		uint32_t es = zcast_cdr_kind_size(f->kind);
		start = es			      ? lay_align(pos, es, l->base)
			: f->kind == ZCAST_CDR_STRING ? lay_align(pos, 4, l->base)
						      : pos;
		pos = lay_values(f, b, cap, pos, l->base);
		if (es && l->base) /* fixed values start at zero (a stale bool would make the
				      message invalid) */
			memset(l->base + start, 0, (size_t)cap * es);
	}
	if (l->base && f->defaults)
		lay_default(f, b, start, l->base);
	if (l->off) {
		l->off[l->k] = (uint32_t)start;
		l->cap[l->k] = cap;
	}
	l->k++;
	return pos;
}

static uint64_t lay_struct(const zcast_cdr_type *t, const uint32_t *bounds, uint64_t pos,
			   struct lay *l)
{
	for (uint32_t i = 0; i < t->n_fields && pos <= ZC_CDR_MAX; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		pos = lay_field(f, bounds ? bounds + f->bounds_index : NULL, pos, l);
	}
	return pos;
}

uint64_t zc_cdr_bound_end(const zcast_cdr_type *t, const uint32_t *bounds, uint64_t pos)
{
	struct lay l = {NULL, NULL, NULL, 0};
	return lay_struct(t, bounds, pos, &l);
}

/* Every bound within what the definition declares. */
static int check_bounds(const zcast_cdr_type *top, const zcast_cdr_type *t, const uint32_t *b)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		const uint32_t *fb = b + f->bounds_index;
		bool seq = f->shape == ZCAST_CDR_SEQUENCE;
		if (seq && f->count && fb[0] > f->count)
			return zc_err(ZCAST_EINVAL,
				      "%s: member %s: bound %u above its declared bound %u",
				      top->name, f->name, fb[0], f->count);
		if (f->kind == ZCAST_CDR_STRING && f->string_bound && fb[seq] > f->string_bound)
			return zc_err(ZCAST_EINVAL,
				      "%s: member %s: string bound %u above its declared bound %u",
				      top->name, f->name, fb[seq], f->string_bound);
		if (f->kind == ZCAST_CDR_STRUCT && f->type->n_bounds) {
			int e = check_bounds(top, f->type, fb + seq);
			if (e < 0)
				return e;
		}
	}
	return 0;
}

int zcast_cdr_bound_size(const zcast_cdr_type *type, const void *b, size_t *size)
{
	const uint32_t *bounds = b;
	if (type->n_bounds && !bounds)
		return zc_err(ZCAST_EINVAL, "%s has strings or sequences: bounds are required",
			      type->name);
	int e = check_bounds(type, type, bounds);
	if (e < 0)
		return e;
	uint64_t end = zc_cdr_bound_end(type, bounds, 0);
	if (end > ZC_CDR_MAX)
		return zc_err(ZCAST_EINVAL, "%s: bounds give a message larger than 2 GiB",
			      type->name);
	*size = (size_t)end;
	return 0;
}

void zcast_cdr_layout(const zcast_cdr_type *type, const void *bounds, uint8_t *base, uint32_t *off,
		      uint32_t *cap)
{
	struct lay l = {base, off, cap, 0};
	lay_struct(type, bounds, 0, &l);
}

void zcast_cdr_writer_element(const zcast_cdr_writer *w, const zcast_cdr_type *elem,
			      const uint32_t *eb, uint32_t first, uint32_t index, uint32_t *off,
			      uint32_t *cap)
{
	uint64_t pos = first;
	uint64_t s = zc_cdr_bound_end(elem, eb, first) - first;
	if (s % zc_cdr_max_align(elem) == 0) /* same layout for every element */
		pos = first + (uint64_t)index * s;
	else
		for (uint32_t i = 0; i < index; i++)
			pos = zc_cdr_bound_end(elem, eb, pos);
	struct lay l = {NULL, off, cap, 0};
	(void)w;
	lay_struct(elem, eb, pos, &l);
}

/* ---- compaction ---- */

struct cmp {
	uint8_t *b;
	const zcast_cdr_type *top;
	uint64_t src, dst;
};

/* Moves n bytes at src (aligned to a) to dst (aligned to a), zeroing dst's padding. */
static void move(struct cmp *c, uint32_t a, uint64_t n)
{
	uint64_t s = zc_cdr_align(c->src, a), d = zc_cdr_align(c->dst, a);
	memset(c->b + c->dst, 0, d - c->dst);
	if (d != s && n)
		memmove(c->b + d, c->b + s, n);
	c->src = s + n, c->dst = d + n;
}

static int cmp_struct(struct cmp *c, const zcast_cdr_type *t, const uint32_t *bounds);

static int cmp_string(struct cmp *c, const zcast_cdr_field *f, uint32_t bound)
{
	uint64_t s = zc_cdr_align(c->src, 4);
	uint32_t n = zc_cdr_load32(c->b + s); /* read once */
	if (n == 0 || n - 1 > bound)
		return zc_err(ZCAST_EINVAL, "%s: member %s: string length %u above its bound %u",
			      c->top->name, f->name, n ? n - 1 : 0, bound);
	c->b[s + 4 + n - 1] = 0;
	move(c, 4, 4 + (uint64_t)n);
	c->src = s + 4 + bound + 1;
	return 0;
}

/* n used elements of f out of cap laid out; eb: element bounds. */
static int cmp_values(struct cmp *c, const zcast_cdr_field *f, const uint32_t *eb, uint32_t n,
		      uint32_t cap)
{
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es) {
		if (cap == 0)
			return 0;
		uint64_t s_end = zc_cdr_align(c->src, es) + (uint64_t)cap * es;
		if (n)
			move(c, es, (uint64_t)n * es);
		c->src = s_end;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		int e = f->kind == ZCAST_CDR_STRING ? cmp_string(c, f, eb[0])
						    : cmp_struct(c, f->type, eb);
		if (e < 0)
			return e;
	}
	c->src = lay_values(f, eb, cap - n, c->src, NULL);
	return 0;
}

static int cmp_field(struct cmp *c, const zcast_cdr_field *f, const uint32_t *b)
{
	if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE)
		return cmp_struct(c, f->type, b);
	if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE)
		return cmp_string(c, f, b[0]);
	if (f->shape != ZCAST_CDR_SEQUENCE) /* one primitive, or an array */
		return cmp_values(c, f, b, f->count, f->count);
	uint64_t s = zc_cdr_align(c->src, 4);
	uint32_t n = zc_cdr_load32(c->b + s); /* read once */
	if (n > b[0])
		return zc_err(ZCAST_EINVAL, "%s: member %s: %u elements above its bound %u",
			      c->top->name, f->name, n, b[0]);
	move(c, 4, 4);
	return cmp_values(c, f, b + 1, n, b[0]);
}

static int cmp_struct(struct cmp *c, const zcast_cdr_type *t, const uint32_t *bounds)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		int e = cmp_field(c, f, bounds ? bounds + f->bounds_index : NULL);
		if (e < 0)
			return e;
	}
	return 0;
}

int zcast_cdr_compact(const zcast_cdr_type *type, const void *bounds, uint8_t *base, size_t *size)
{
	struct cmp c = {base, type, 0, 0};
	int e = cmp_struct(&c, type, bounds);
	if (e < 0)
		return e;
	*size = (size_t)c.dst;
	return 0;
}
