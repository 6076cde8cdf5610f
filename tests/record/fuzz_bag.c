/* Fuzz target of the MCAP reader (tools/bag): any bytes as a file end in a file that opens and
 * walks, or in an error "file: offset: what"; never a crash, a hang or a read out of bounds.
 * Replayed over tests/record/corpus by record_fuzz_replay; with clang, fuzz_bag fuzzes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bag_max_chunk = 1u << 24; /* a fuzzed size must not ask for gigabytes */
	int fd = memfd_create("fuzz_bag", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct bag_reader r;
	if (bag_open(path, &r) == 0) {
		struct bag_message m;
		uint64_t sum = 0;
		while (bag_next(&r, &m) > 0)
			sum += m.len ? m.data[m.len - 1] : 0;
		for (int i = 0; i < r.nchannels; i++)
			sum += bag_channel_get(&r, r.channels[i].id)->count;
		(void)sum;
	} else if (strncmp(r.err.text, path, strlen(path)) != 0) {
		abort(); /* every error names the file */
	}
	bag_close(&r);
	close(fd);
	return 0;
}
