/* Replays every file of the checked-in fuzz corpus through the fuzz target (any compiler, no
 * libFuzzer): each input must end in success or a defined error code, without crash or hang.
 * Usage: fuzz_replay [corpus dir or file...] (default: tests/fuzz/corpus). */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	static uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	alarm(60); /* a hang is a failure, not a stuck test */
	LLVMFuzzerTestOneInput(buf, n);
	alarm(0);
	return 1;
}

int main(int argc, char **argv)
{
	const char *dirs[64] = {ZCAST_FUZZ_CORPUS};
	int n_dirs = 1;
	if (argc > 1) {
		n_dirs = argc - 1 < 64 ? argc - 1 : 64;
		for (int i = 0; i < n_dirs; i++)
			dirs[i] = argv[i + 1];
	}
	int count = 0;
	for (int i = 0; i < n_dirs; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d) {
			count += replay_file(dirs[i]);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
			count += replay_file(path);
		}
		closedir(d);
	}
	printf("replayed %d inputs: all ended in success or a defined error\n", count);
	return count > 0 ? 0 : 1;
}
