/* Growing buffers with little-endian fields, and a bounds-checked read cursor (bag.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag.h"

void bag_err_set(struct bag_err *e, const char *file, int64_t offset, const char *fmt, ...)
{
	if (!e)
		return;
	int n = offset >= 0 ? snprintf(e->text, sizeof e->text, "%s: %lld: ", file, (long long)offset)
			    : snprintf(e->text, sizeof e->text, "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof e->text)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text + n, sizeof e->text - (size_t)n, fmt, ap);
	va_end(ap);
}

void bag_buf_free(struct bag_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

uint8_t *bag_buf_grow(struct bag_buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap - b->len < n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

void bag_put(struct bag_buf *b, const void *p, size_t n)
{
	uint8_t *d = bag_buf_grow(b, n);
	if (!d)
		return;
	if (n)
		memcpy(d, p, n);
	b->len += n;
}

static void put_le(struct bag_buf *b, uint64_t v, int bytes)
{
	uint8_t *d = bag_buf_grow(b, (size_t)bytes);
	if (!d)
		return;
	for (int i = 0; i < bytes; i++)
		d[i] = (uint8_t)(v >> (8 * i));
	b->len += (size_t)bytes;
}

void bag_put_u8(struct bag_buf *b, uint8_t v)
{
	put_le(b, v, 1);
}
void bag_put_u16(struct bag_buf *b, uint16_t v)
{
	put_le(b, v, 2);
}
void bag_put_u32(struct bag_buf *b, uint32_t v)
{
	put_le(b, v, 4);
}
void bag_put_u64(struct bag_buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

void bag_put_bytes(struct bag_buf *b, const void *p, size_t n)
{
	bag_put_u32(b, (uint32_t)n);
	bag_put(b, p, n);
}

void bag_put_str(struct bag_buf *b, const char *s)
{
	bag_put_bytes(b, s, strlen(s));
}

size_t bag_record_begin(struct bag_buf *b, uint8_t op)
{
	size_t start = b->len;
	bag_put_u8(b, op);
	bag_put_u64(b, 0);
	return start;
}

void bag_record_end(struct bag_buf *b, size_t start)
{
	if (b->failed)
		return;
	uint64_t len = b->len - start - 9;
	for (int i = 0; i < 8; i++)
		b->p[start + 1 + (size_t)i] = (uint8_t)(len >> (8 * i));
}

void bag_put_map(struct bag_buf *b, const char *const *kv, int npairs)
{
	size_t at = b->len;
	bag_put_u32(b, 0);
	for (int i = 0; i < 2 * npairs; i++)
		bag_put_str(b, kv[i]);
	if (b->failed)
		return;
	uint32_t len = (uint32_t)(b->len - at - 4);
	for (int i = 0; i < 4; i++)
		b->p[at + (size_t)i] = (uint8_t)(len >> (8 * i));
}

uint64_t bag_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint32_t bag_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint8_t *take(struct bag_cur *c, size_t n)
{
	if (c->bad || c->len - c->at < n) {
		c->bad = true;
		return NULL;
	}
	const uint8_t *p = c->p + c->at;
	c->at += n;
	return p;
}

uint8_t bag_get_u8(struct bag_cur *c)
{
	const uint8_t *p = take(c, 1);
	return p ? p[0] : 0;
}

uint16_t bag_get_u16(struct bag_cur *c)
{
	const uint8_t *p = take(c, 2);
	return p ? (uint16_t)(p[0] + 256u * p[1]) : 0;
}

uint32_t bag_get_u32(struct bag_cur *c)
{
	const uint8_t *p = take(c, 4);
	return p ? bag_le32(p) : 0;
}

uint64_t bag_get_u64(struct bag_cur *c)
{
	const uint8_t *p = take(c, 8);
	return p ? bag_le64(p) : 0;
}

struct bag_cur bag_get_prefixed(struct bag_cur *c)
{
	struct bag_cur s = {0};
	uint32_t n = bag_get_u32(c);
	const uint8_t *p = take(c, n);
	if (!p) {
		s.bad = true;
		return s;
	}
	s.p = p;
	s.len = n;
	return s;
}

struct bag_cur bag_get_rest(struct bag_cur *c)
{
	struct bag_cur s = {0};
	if (c->bad) {
		s.bad = true;
		return s;
	}
	s.p = c->p + c->at;
	s.len = c->len - c->at;
	c->at = c->len;
	return s;
}
