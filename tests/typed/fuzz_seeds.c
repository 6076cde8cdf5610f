/* Writes the typed fuzz corpus seeds (tests/typed/corpus): random valid messages of every fuzzed
 * type under random bounds, serialized by the copy path. Usage: typed_fuzz_seeds <dir>. */
#include <stdio.h>

#include "typed_types.h"
#include "typed_util.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	for (unsigned ti = 0; ti < ZT_FUZZ_TYPES; ti++)
		for (int i = 0; i < 6; i++) {
			const zcast_cdr_type *t = zt_fuzz_types[ti];
			uint32_t b[256] = {0};
			zt_rand_bounds(t, b, 6);
			uint8_t *c = calloc(1, t->c_size);
			zt_rand_struct(t, b, c);
			size_t n = zcast_cdr_serialized_size(t, c) + 4;
			uint8_t *out = malloc(n + 1);
			out[0] = (uint8_t)ti;
			zcast_cdr_serialize(t, c, out + 1);
			char path[4096];
			snprintf(path, sizeof path, "%s/%s-%d", argv[1], t->name + 0, i);
			for (char *p = path + strlen(argv[1]) + 1; *p; p++)
				*p = *p == '/' ? '_' : *p;
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(out, 1, n + 1, f) != n + 1)
				return 1;
			fclose(f);
			zcast_cdr_free(t, c);
			free(c), free(out);
		}
	return 0;
}
