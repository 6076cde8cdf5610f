/* Typed output of `zcast echo` (typed_print.h). */
#include "typed_print.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <zcast/types.h>

#include "cli.h"
#include "zcast_shipped_types.h" /* every type of msg/ (tools/msggen/shipped_types.py) */


#define SHOW_VALUES 8 /* values shown of an array or sequence */
#define SHOW_CHARS 80 /* characters shown of a string */

static const zcast_cdr_type *const known[] = {ZCAST_SHIPPED_TYPES};

static const zcast_cdr_type *shipped_named(const char *name)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(known[i]->name, name))
			return known[i];
	return NULL;
}

int zt_type_named(const char *name, const zcast_cdr_type **out)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (zcast_type_name_is(known[i]->name, name)) {
			*out = known[i];
			return 0;
		}
	return zcast_types_find(name, NULL, out);
}

int zt_find_type(const char *name, const uint8_t *hash, const zcast_cdr_type **out, char *why,
		 size_t why_size)
{
	const zcast_cdr_type *shipped = shipped_named(name);
	if (shipped && !memcmp(shipped->hash, hash, ZCAST_TYPE_HASH_SIZE)) {
		*out = shipped; /* shipped types first: a type library cannot replace them */
		return 0;
	}
	int e = zcast_types_find(name, hash, out);
	snprintf(why, why_size, "%s", zcast_last_error());
	if (e != ZCAST_ENOENT || !shipped)
		return e;
	char want[ZCAST_TYPE_HASH_STR_SIZE], have[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(hash, want);
	zcast_type_hash_str(shipped->hash, have);
	snprintf(why, why_size, "type %s: the topic has %s, zcast ships %s (another version)", name,
		 want, have);
	return ZCAST_ETYPE;
}

static void print_value(FILE *out, uint8_t kind, const uint8_t *p)
{
	zcast_cdr_value v = zcast_cdr_value_at(kind, p);
	switch (v.type) {
	case ZCAST_CDR_VALUE_BOOL:
		fputs(v.u ? "true" : "false", out);
		break;
	case ZCAST_CDR_VALUE_INT:
		fprintf(out, "%" PRId64, v.i);
		break;
	case ZCAST_CDR_VALUE_UINT:
		fprintf(out, "%" PRIu64, v.u);
		break;
	case ZCAST_CDR_VALUE_FLOAT:
		fprintf(out, "%g", v.f);
		break;
	}
}

static void print_string(FILE *out, const char *s, uint32_t n)
{
	fputc('"', out);
	for (uint32_t i = 0; i < n && i < SHOW_CHARS; i++)
		fputc(isprint((unsigned char)s[i]) ? s[i] : '.', out);
	fprintf(out, n > SHOW_CHARS ? "...\" (%u bytes)" : "\"", n);
}

/* Whether member `path` is printed: every one without --field, else the field itself, what it
 * contains (path under it) and the members on the way to it (path above it). */
static bool selected(const char *path, const char *field, bool *above)
{
	*above = false;
	if (!field)
		return true;
	size_t pl = strlen(path), fl = strlen(field);
	if (pl <= fl && !strncmp(path, field, pl) && (pl == fl || strchr(".[", field[pl]))) {
		*above = pl < fl;
		return true;
	}
	return pl > fl && !strncmp(path, field, fl) && strchr(".[", path[fl]);
}

static void print_struct(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_type *t,
			 const uint32_t *off, const uint32_t *len, uint32_t *k, const char *prefix,
			 struct zt_print_opts *o);

/* Elements of an array or sequence of messages, each as "path[j].member" (only for --field). */
static void print_elements(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_field *f,
			   uint32_t off, uint32_t n, const char *path, struct zt_print_opts *o)
{
	size_t slots = f->type->n_flat ? f->type->n_flat : 1;
	uint32_t *eoff = malloc(2 * slots * sizeof *eoff);
	for (uint32_t j = 0; eoff && j < n; j++) {
		char sub[280];
		bool above;
		snprintf(sub, sizeof sub, "%.255s[%u]", path, j);
		zcast_cdr_reader er;
		uint32_t ek = 0;
		if (selected(sub, o->field, &above) &&
		    zcast_cdr_element(r, f->type, off, n, j, &er, eoff, eoff + slots) == 0) {
			strncat(sub, ".", sizeof sub - strlen(sub) - 1);
			print_struct(out, &er, f->type, eoff, eoff + slots, &ek, sub, o);
		}
	}
	free(eoff);
}

static void print_array(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_field *f, uint32_t o,
			uint32_t n, bool no_arr)
{
	if (no_arr && n > ZT_NO_ARR_MAX) {
		fprintf(out, "<%s, length: %u>", f->shape == ZCAST_CDR_ARRAY ? "array" : "sequence",
			n);
		return;
	}
	if (f->kind == ZCAST_CDR_STRUCT) {
		fprintf(out, "[%u %s]", n, f->type->name);
		return;
	}
	fputc('[', out);
	for (uint32_t j = 0; j < n && j < SHOW_VALUES; j++) {
		const char *s;
		uint32_t sl;
		fprintf(out, j ? ", " : "");
		if (f->kind != ZCAST_CDR_STRING)
			print_value(out, f->kind, r->base + o + (size_t)j * zcast_cdr_kind_size(f->kind));
		else if (zcast_cdr_string_element(r, o, n, j, &s, &sl) == 0)
			print_string(out, s, sl);
	}
	fprintf(out, n > SHOW_VALUES ? ", ...] (%u values)" : "]", n);
}

/* Members of t, numbered as the reader's flat slots (single nested messages expanded). */
static void print_struct(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_type *t,
			 const uint32_t *off, const uint32_t *len, uint32_t *k, const char *prefix,
			 struct zt_print_opts *o)
{
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		char path[256];
		bool above;
		snprintf(path, sizeof path, "%s%s", prefix, f->name);
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			strncat(path, ".", sizeof path - strlen(path) - 1);
			print_struct(out, r, f->type, off, len, k, path, o);
			continue;
		}
		uint32_t v = off[*k], n = len[*k];
		++*k;
		if (!selected(path, o->field, &above))
			continue;
		if (o->field && f->kind == ZCAST_CDR_STRUCT) { /* "fields", "fields[1]..." */
			print_elements(out, r, f, v, n, path, o);
			continue;
		}
		if (above)
			continue; /* "data[2]" of a plain array: not a member path */
		fprintf(out, "  %s: ", path);
		o->printed++;
		if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE)
			print_string(out, (const char *)r->base + v, n);
		else if (f->shape == ZCAST_CDR_ONE)
			print_value(out, f->kind, r->base + v);
		else
			print_array(out, r, f, v, n, o->no_arr);
		fputc('\n', out);
	}
}

bool zt_field_valid(const zcast_cdr_type *t, const char *path)
{
	size_t n = strcspn(path, ".[");
	const zcast_cdr_field *f = NULL;
	for (uint32_t i = 0; i < t->n_fields && !f; i++)
		if (strlen(t->fields[i].name) == n && !strncmp(t->fields[i].name, path, n))
			f = &t->fields[i];
	if (!f || !n)
		return false;
	path += n;
	if (*path == '[') {
		size_t digits = strspn(path + 1, "0123456789");
		if (f->shape == ZCAST_CDR_ONE || !digits || path[1 + digits] != ']')
			return false;
		path += digits + 2;
	}
	if (!*path)
		return true;
	return *path == '.' && f->kind == ZCAST_CDR_STRUCT &&
	       (f->shape == ZCAST_CDR_ONE || path[-1] == ']') && zt_field_valid(f->type, path + 1);
}

int zt_print_typed(const zcast_cdr_type *t, zcast_msg *m, FILE *out, struct zt_print_opts *o)
{
	const uint8_t *d = zcast_msg_data(m);
	if (!d)
		return zcast_typed_read(t, m, NULL, NULL, NULL); /* ZCAST_ESTALE, said as it says it */
	return zt_print_payload(t, d, zcast_msg_size(m), out, o);
}

int zt_print_payload(const zcast_cdr_type *t, const uint8_t *p, size_t n, FILE *out,
		     struct zt_print_opts *o)
{
	struct zt_print_opts all = {0};
	o = o ? o : &all;
	o->printed = 0;
	uint32_t *off = malloc(2 * sizeof *off * (t->n_flat ? t->n_flat : 1)),
		 *len = off + t->n_flat;
	zcast_cdr_reader r;
	int e = !off ? ZCAST_ENOMEM
		: n < ZCAST_TYPED_PREFIX ? zcast_cdr_read(t, "", 0, &r, off, len)
		: zcast_cdr_read(t, p + ZCAST_TYPED_HEADER_OFFSET, n - ZCAST_TYPED_HEADER_OFFSET, &r,
				 off, len);
	if (e == 0) {
		uint32_t k = 0;
		print_struct(out, &r, t, off, len, &k, "", o);
	}
	free(off);
	return e;
}

/* ---- JSON: every member by name, every value (docs/TYPED.md) ---- */

static void json_value(FILE *out, uint8_t kind, const uint8_t *p)
{
	zcast_cdr_value v = zcast_cdr_value_at(kind, p);
	if (v.type == ZCAST_CDR_VALUE_FLOAT && (v.f != v.f || v.f - v.f != 0))
		fputs("null", out); /* NaN and infinities have no JSON spelling */
	else if (v.type == ZCAST_CDR_VALUE_FLOAT)
		fprintf(out, "%.17g", v.f);
	else
		print_value(out, kind, p);
}

static void json_struct(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_type *t,
			const uint32_t *off, const uint32_t *len, uint32_t *k);

/* Element j of the array or sequence of messages of f whose first element is at o (n of them). */
static void json_element(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_field *f,
			 uint32_t o, uint32_t n, uint32_t j)
{
	size_t slots = f->type->n_flat ? f->type->n_flat : 1;
	uint32_t *eoff = malloc(2 * slots * sizeof *eoff), k = 0;
	zcast_cdr_reader er;
	if (eoff && zcast_cdr_element(r, f->type, o, n, j, &er, eoff, eoff + slots) == 0)
		json_struct(out, &er, f->type, eoff, eoff + slots, &k);
	else
		fputs("null", out); /* out of memory: the message itself was validated */
	free(eoff);
}

void zt_json_values(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_field *f, uint32_t o,
		    uint32_t n)
{
	fputc('[', out);
	for (uint32_t j = 0; j < n; j++) {
		const char *str;
		uint32_t sl;
		if (j)
			fputc(',', out);
		if (f->kind == ZCAST_CDR_STRUCT)
			json_element(out, r, f, o, n, j);
		else if (f->kind != ZCAST_CDR_STRING)
			json_value(out, f->kind, r->base + o + (size_t)j * zcast_cdr_kind_size(f->kind));
		else if (zcast_cdr_string_element(r, o, n, j, &str, &sl) == 0)
			cli_json_strn(out, str, sl);
		else
			fputs("null", out);
	}
	fputc(']', out);
}

static void json_struct(FILE *out, const zcast_cdr_reader *r, const zcast_cdr_type *t,
			const uint32_t *off, const uint32_t *len, uint32_t *k)
{
	fputc('{', out);
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		if (i)
			fputc(',', out);
		cli_json_str(out, f->name);
		fputc(':', out);
		if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
			json_struct(out, r, f->type, off, len, k);
			continue;
		}
		uint32_t o = off[*k], n = len[*k];
		++*k;
		if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE)
			cli_json_strn(out, (const char *)r->base + o, n);
		else if (f->shape == ZCAST_CDR_ONE)
			json_value(out, f->kind, r->base + o);
		else
			zt_json_values(out, r, f, o, n);
	}
	fputc('}', out);
}

int zt_print_typed_json(const zcast_cdr_type *t, zcast_msg *m, FILE *out)
{
	size_t slots = t->n_flat ? t->n_flat : 1;
	uint32_t *off = malloc(2 * sizeof *off * slots), k = 0;
	zcast_cdr_reader r;
	int e = off ? zcast_typed_read(t, m, &r, off, off + slots) : ZCAST_ENOMEM;
	if (e == 0) {
		fputs("\"type\":", out);
		cli_json_str(out, t->name);
		fputs(",\"value\":", out);
		json_struct(out, &r, t, off, off + slots, &k);
	}
	free(off);
	return e;
}
