/* zcast echo --csv: typed messages as RFC 4180 rows, one column per member path (typed_print.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "typed_print.h"

/* Writes cell text s (n bytes) as one CSV field: quoted, with quotes doubled, when it holds a
 * comma, a quote or a line break (RFC 4180 section 2). */
static void csv_cell(FILE *out, const char *s, size_t n)
{
	bool quote = false;
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		fwrite(s, 1, n, out);
		return;
	}
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', out);
		fputc(s[i], out);
	}
	fputc('"', out);
}

static void header_of(const zcast_cdr_type *t, FILE *out, const char *prefix, bool *first)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		char path[256];
		snprintf(path, sizeof path, "%s%s", prefix, f->name);
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			strncat(path, ".", sizeof path - strlen(path) - 1);
			header_of(f->type, out, path, first);
			continue;
		}
		if (!*first)
			fputc(',', out);
		*first = false;
		csv_cell(out, path, strlen(path));
	}
}

void zt_csv_header(const zcast_cdr_type *t, FILE *out)
{
	bool first = false; /* after echo's own columns */
	fputs("sequence,publish_time_ns,latency_ns", out);
	header_of(t, out, "", &first);
	fputc('\n', out);
}

/* One member's cell text, into a memory stream (quoted as a whole afterwards). */
static void cell_text(FILE *cell, const zcast_cdr_reader *r, const zcast_cdr_field *f, uint32_t o,
		      uint32_t n, bool no_arr)
{
	if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
		fwrite(r->base + o, 1, n, cell); /* the string itself: UTF-8 as sent */
	} else if (f->shape == ZCAST_CDR_ONE) {
		zcast_cdr_value v = zcast_cdr_value_at(f->kind, r->base + o);
		if (v.type == ZCAST_CDR_VALUE_BOOL)
			fputs(v.u ? "true" : "false", cell);
		else if (v.type == ZCAST_CDR_VALUE_INT)
			fprintf(cell, "%" PRId64, v.i);
		else if (v.type == ZCAST_CDR_VALUE_UINT)
			fprintf(cell, "%" PRIu64, v.u);
		else
			fprintf(cell, "%.17g", v.f);
	} else if (no_arr && n > ZT_NO_ARR_MAX) {
		fprintf(cell, "<%s, length: %u>",
			f->shape == ZCAST_CDR_ARRAY ? "array" : "sequence", n);
	} else {
		zt_json_values(cell, r, f, o, n);
	}
}

static int row_of(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_type *t,
		  const uint32_t *off, const uint32_t *len, uint32_t *k, bool no_arr)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			if (row_of(out, r, f->type, off, len, k, no_arr) != 0)
				return ZCAST_ENOMEM;
			continue;
		}
		char *text = NULL;
		size_t n = 0;
		FILE *cell = open_memstream(&text, &n);
		if (!cell)
			return ZCAST_ENOMEM;
		cell_text(cell, r, f, off[*k], len[*k], no_arr);
		++*k;
		fclose(cell);
		fputc(',', out);
		csv_cell(out, text, n);
		free(text);
	}
	return 0;
}

int zt_print_typed_csv(const zcast_cdr_type *t, zcast_msg *m, FILE *out, bool no_arr)
{
	size_t slots = t->n_flat ? t->n_flat : 1;
	uint32_t *off = malloc(2 * sizeof *off * slots), k = 0;
	zcast_cdr_reader r;
	int e = off ? zcast_typed_read(t, m, &r, off, off + slots) : ZCAST_ENOMEM;
	if (e == 0)
		e = row_of(out, &r, t, off, off + slots, &k, no_arr);
	free(off);
	return e;
}
