/* The std_msgs/Header stamp of a typed message (zcast delay, as `ros2 topic delay`). */
#include <stdlib.h>
#include <string.h>

#include <zcast/types.h>

#include "typed_print.h"

/* Reader slot of the Header's stamp.sec below t (slots numbered as zcast_cdr_read's: single nested
 * messages expanded), counting from *k; -1 when t has no std_msgs Header member. A member named
 * "header" wins over an earlier Header of another name. */
static long header_slot(const zcast_cdr_type *t, uint32_t *k)
{
	long found = -1;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		if (f->kind != ZCAST_CDR_STRUCT || f->shape != ZCAST_CDR_ONE) {
			++*k;
			continue;
		}
		bool header = zcast_type_name_is(f->type->name, "std_msgs/msg/Header");
		if (header && (found < 0 || !strcmp(f->name, "header")))
			found = (long)*k; /* stamp (a Time: sec, nanosec) is the Header's first member */
		header_slot(f->type, k); /* only counts: Headers are looked for at the top */
	}
	return found;
}

long zt_stamp_slot(const zcast_cdr_type *t)
{
	uint32_t k = 0;
	return header_slot(t, &k);
}

int zt_read_stamp(const zcast_cdr_type *t, long slot, zcast_msg *m, int64_t *ns)
{
	size_t slots = t->n_flat ? t->n_flat : 1;
	uint32_t *off = malloc(2 * sizeof *off * slots);
	zcast_cdr_reader r;
	int e = off ? zcast_typed_read(t, m, &r, off, off + slots) : ZCAST_ENOMEM;
	if (e == 0) {
		zcast_cdr_value sec = zcast_cdr_value_at(ZCAST_CDR_INT32, r.base + off[slot]);
		zcast_cdr_value nsec = zcast_cdr_value_at(ZCAST_CDR_UINT32, r.base + off[slot + 1]);
		*ns = sec.i * 1000000000 + (int64_t)nsec.u;
	}
	free(off);
	return e;
}
