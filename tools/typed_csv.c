/* CSV output of `zcast echo --csv` (typed_print.h): one column per member path, fixed arrays one
 * column per element (their length is part of the type, so every row has the same columns),
 * sequences and arrays of messages one cell; cells quoted as RFC 4180 says. */
#define _GNU_SOURCE /* open_memstream */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "typed_print.h"

struct csv {
	FILE *out;
	bool header; /* writing member paths, not values */
	bool no_arr;
	unsigned cells;
};

/* One cell: quoted when it holds a comma, quote or line break (always for strings), quotes
 * doubled. */
static void cell(struct csv *c, const char *s, size_t n, bool quote)
{
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (c->cells++)
		fputc(',', c->out);
	if (quote)
		fputc('"', c->out);
	for (size_t i = 0; i < n; i++) {
		if (quote && s[i] == '"')
			fputc('"', c->out);
		fputc(s[i], c->out);
	}
	if (quote)
		fputc('"', c->out);
}

static void value_text(char *buf, size_t size, uint8_t kind, const uint8_t *p)
{
	zcast_cdr_value v = zcast_cdr_value_at(kind, p);
	if (v.type == ZCAST_CDR_VALUE_BOOL)
		snprintf(buf, size, "%s", v.u ? "true" : "false");
	else if (v.type == ZCAST_CDR_VALUE_INT)
		snprintf(buf, size, "%" PRId64, v.i);
	else if (v.type == ZCAST_CDR_VALUE_UINT)
		snprintf(buf, size, "%" PRIu64, v.u);
	else
		snprintf(buf, size, "%.17g", v.f);
}

/* Element j of a primitive or string array starting at o (n elements) as one cell. */
static void element_cell(struct csv *c, const zcast_cdr_reader *r, const zcast_cdr_field *f,
			 uint32_t o, uint32_t n, uint32_t j)
{
	char buf[64];
	const char *s;
	uint32_t sl;
	if (f->kind != ZCAST_CDR_STRING) {
		value_text(buf, sizeof buf, f->kind,
			   r->base + o + (size_t)j * zcast_cdr_kind_size(f->kind));
		cell(c, buf, strlen(buf), false);
	} else if (zcast_cdr_string_element(r, o, n, j, &s, &sl) == 0) {
		cell(c, s, sl, true);
	} else {
		cell(c, "", 0, false);
	}
}

/* A sequence (or an array --no-arr shortens, or an array of messages) as one cell. */
static void list_cell(struct csv *c, const zcast_cdr_reader *r, const zcast_cdr_field *f,
		      uint32_t o, uint32_t n)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	if (!mem)
		return cell(c, "", 0, false);
	if (f->kind == ZCAST_CDR_STRUCT)
		fprintf(mem, "[%u %s]", n, f->type->name);
	else if (c->no_arr && n > ZT_NO_ARR_MAX)
		fprintf(mem, "<%s, length: %u>",
			f->shape == ZCAST_CDR_ARRAY ? "array" : "sequence", n);
	else {
		struct csv inner = {.out = mem};
		for (uint32_t j = 0; j < n; j++)
			element_cell(&inner, r, f, o, n, j); /* "1,2,3", quoted as one cell */
	}
	fclose(mem);
	cell(c, text, size, f->kind == ZCAST_CDR_STRING);
	free(text);
}

static void csv_struct(struct csv *c, const zcast_cdr_reader *r, const zcast_cdr_type *t,
		       const uint32_t *off, const uint32_t *len, uint32_t *k, const char *prefix)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		char path[256];
		snprintf(path, sizeof path, "%s%s", prefix, f->name);
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			strncat(path, ".", sizeof path - strlen(path) - 1);
			csv_struct(c, r, f->type, off, len, k, path);
			continue;
		}
		uint32_t o = off[*k], n = len[*k];
		++*k;
		bool columns = f->shape == ZCAST_CDR_ARRAY && f->kind != ZCAST_CDR_STRUCT &&
			       !(c->no_arr && n > ZT_NO_ARR_MAX);
		for (uint32_t j = 0; columns && j < n; j++) {
			char col[280];
			snprintf(col, sizeof col, "%s[%u]", path, j);
			if (c->header)
				cell(c, col, strlen(col), false);
			else
				element_cell(c, r, f, o, n, j);
		}
		if (columns)
			continue;
		if (c->header)
			cell(c, path, strlen(path), false);
		else if (f->shape != ZCAST_CDR_ONE)
			list_cell(c, r, f, o, n);
		else if (f->kind == ZCAST_CDR_STRING)
			cell(c, (const char *)r->base + o, n, true);
		else
			element_cell(c, r, f, o, 1, 0);
	}
}

int zt_print_typed_csv(const zcast_cdr_type *t, zcast_msg *m, FILE *out, bool header, bool no_arr)
{
	size_t slots = t->n_flat ? t->n_flat : 1;
	uint32_t *off = malloc(2 * sizeof *off * slots), k = 0;
	zcast_cdr_reader r;
	int e = off ? zcast_typed_read(t, m, &r, off, off + slots) : ZCAST_ENOMEM;
	for (int row = header ? 0 : 1; e == 0 && row < 2; row++) {
		struct csv c = {.out = out, .header = row == 0, .no_arr = no_arr};
		k = 0;
		csv_struct(&c, &r, t, off, off + slots, &k, "");
		fputc('\n', out);
	}
	free(off);
	return e;
}
