/* Payload printers, chosen by the topic's type name. Only the raw printer exists today (text when
 * the payload is printable, bytes in hex otherwise); a typed printer (generated from a message
 * definition) registers here under its type name and echo picks it up. */
#include <ctype.h>
#include <string.h>

#include "cli.h"

/* Printable text, allowing one trailing NUL (what C publishers send with strings). */
static bool is_text(const uint8_t *p, size_t n)
{
	if (n && p[n - 1] == 0)
		n--;
	for (size_t i = 0; i < n; i++)
		if (!isprint(p[i]) && p[i] != '\n' && p[i] != '\t')
			return false;
	return true;
}

static size_t shown(size_t n, const struct cli_print_opts *o)
{
	return o->max_bytes && n > o->max_bytes ? o->max_bytes : n;
}

static void hexdump(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t off = 0; off < n; off += 16) {
		fprintf(f, "  %08zx ", off);
		for (size_t i = off; i < off + 16; i++)
			fprintf(f, i < n ? " %02x" : "   ", i < n ? p[i] : 0);
		fprintf(f, "  |");
		for (size_t i = off; i < off + 16 && i < n; i++)
			fputc(isprint(p[i]) ? p[i] : '.', f);
		fprintf(f, "|\n");
	}
}

static void raw_text(FILE *f, const uint8_t *p, size_t n, const struct cli_print_opts *o)
{
	size_t k = shown(n, o);
	if (o->hex) {
		fputc('\n', f);
		hexdump(f, p, k);
	} else if (is_text(p, k)) {
		fprintf(f, " \"");
		for (size_t i = 0; i < k && p[i]; i++)
			fputs(p[i] == '\n'   ? "\\n"
			      : p[i] == '\t' ? "\\t"
					     : (char[]){(char)p[i], 0},
			      f);
		fputc('"', f);
	} else {
		fputc(' ', f);
		for (size_t i = 0; i < k; i++)
			fprintf(f, "%02x", p[i]);
	}
	if (k < n)
		fprintf(f, "%s... (%zu more bytes)\n", o->hex ? "  " : " ", n - k);
	else if (!o->hex)
		fputc('\n', f); /* the dump ends its own lines */
}

static void raw_json(FILE *f, const uint8_t *p, size_t n, const struct cli_print_opts *o)
{
	size_t k = shown(n, o);
	fprintf(f, "\"data_hex\":\"");
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%02x", p[i]);
	fprintf(f, "\",\"truncated\":%s", k < n ? "true" : "false");
	if (is_text(p, k)) {
		char buf[4096];
		size_t m = 0;
		for (size_t i = 0; i < k && p[i] && m + 1 < sizeof buf; i++)
			buf[m++] = (char)p[i];
		buf[m] = 0;
		fprintf(f, ",\"text\":");
		cli_json_str(f, buf);
	}
}

static const struct cli_printer printers[] = {
    {NULL, raw_text, raw_json}, /* the raw printer: last resort for every type */
};

const struct cli_printer *cli_printer_for(const char *type_name)
{
	size_t n = sizeof printers / sizeof printers[0];
	for (size_t i = 0; i < n; i++)
		if (printers[i].type_name && type_name &&
		    strcmp(printers[i].type_name, type_name) == 0)
			return &printers[i];
	return &printers[0];
}
