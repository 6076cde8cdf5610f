/* Fuzz target: reader views over hostile bytes. Input: one byte choosing the type, then the message
 * (encapsulation header and CDR). Whatever the bytes, reading gives a defined result; when the
 * message is accepted, every element is reachable, and deserializing and serializing it again gives
 * exactly the size the reader found. Run under ASan/UBSan by libFuzzer, replayed by `make test`. */
#include <stdio.h>
#include <stdlib.h>

#include "typed_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void visit(const zcast_cdr_reader *r, const zcast_cdr_type *t, const uint32_t *off,
		  const uint32_t *len, uint32_t *k);

static void visit_elements(const zcast_cdr_reader *r, const zcast_cdr_field *f, uint32_t first,
			   uint32_t count)
{
	for (uint32_t i = 0; i < count && i < 64; i++) {
		if (f->kind == ZCAST_CDR_STRING) {
			const char *s;
			uint32_t n;
			if (zcast_cdr_string_element(r, first, count, i, &s, &n) != 0 || s[n] != 0)
				abort(); /* validated already: must be readable, NUL-terminated */
			continue;
		}
		zcast_cdr_reader er;
		uint32_t eoff[256], elen[256], k = 0;
		if (zcast_cdr_element(r, f->type, first, count, i, &er, eoff, elen) != 0)
			abort();
		visit(&er, f->type, eoff, elen, &k);
	}
}

static void visit(const zcast_cdr_reader *r, const zcast_cdr_type *t, const uint32_t *off,
		  const uint32_t *len, uint32_t *k)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			visit(r, f->type, off, len, k);
			continue;
		}
		uint32_t o = off[*k], n = len[*k];
		++*k;
		if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
			if ((uint64_t)o + n >= r->size || r->base[o + n] != 0)
				abort();
		} else if (f->kind == ZCAST_CDR_STRING || f->kind == ZCAST_CDR_STRUCT) {
			visit_elements(r, f, o, n);
		} else if (n && (uint64_t)o + n > r->size) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const zcast_cdr_type *t = zt_fuzz_types[data[0] % ZT_FUZZ_TYPES];
	size--, data++;
	/* The message as it sits in a slot: CDR origin 8-byte aligned. */
	uint8_t *buf = aligned_alloc(64, 64 + ((size + 63) & ~(size_t)63));
	memcpy(buf + 4, data, size);
	zcast_cdr_reader r;
	uint32_t off[256], len[256], k = 0;
	if (zcast_cdr_read(t, buf + 4, size, &r, off, len) == 0) {
		visit(&r, t, off, len, &k);
		void *c = malloc(t->c_size);
		if (zcast_cdr_deserialize(t, buf + 4, size, c) != 0)
			abort();
		if (zcast_cdr_serialized_size(t, c) != r.end)
			abort();
		zcast_cdr_free(t, c);
		free(c);
	}
	free(buf);
	return 0;
}
