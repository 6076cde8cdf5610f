/* Prints every message of MCAP files (given in order) as "topic<TAB>bytes<TAB>fnv1a64", for
 * comparing recordings per topic: same messages, bytes and order. Uses tools/bag's reader; an
 * error prints "file: offset: what" and exits 1. */
#include <inttypes.h>
#include <stdio.h>

#include "bag.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct bag_reader r;
		if (bag_open(argv[i], &r) != 0) {
			fprintf(stderr, "%s\n", r.err.text);
			return 1;
		}
		struct bag_message m;
		int k;
		while ((k = bag_next(&r, &m)) > 0) {
			uint64_t h = 0xcbf29ce484222325ull;
			for (size_t b = 0; b < m.len; b++)
				h = (h ^ m.data[b]) * 0x100000001b3ull;
			printf("%s\t%zu\t%016" PRIx64 "\n", bag_channel_get(&r, m.channel)->topic, m.len,
			       h);
		}
		if (k < 0)
			fprintf(stderr, "%s\n", r.err.text);
		bag_close(&r);
		if (k < 0)
			return 1;
	}
	return 0;
}
