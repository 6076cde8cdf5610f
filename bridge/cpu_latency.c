/* "cpu_latency_us N" (docs/BRIDGE.md, "Cost and latency"): while the bridge runs it holds a CPU
 * wake-up latency request of N microseconds, Linux's PM QoS interface. The kernel keeps the request
 * as long as the file stays open and drops it when the file is closed, by zb_cpu_latency_release or
 * by the process's end however it ends: a bridge killed with -9 leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int zb_cpu_latency_hold(int us, int line, char *err, size_t errlen)
{
	/* close-on-exec: a child of an embedding program must not keep the request after us */
	int fd = open(ZB_CPU_LATENCY_FILE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(
		    err, errlen,
		    "line %d: cpu_latency_us %d: %s: %s (writing it needs root; without the line "
		    "the bridge asks for nothing)",
		    line, us, ZB_CPU_LATENCY_FILE, strerror(errno));
		return ZCAST_ESYS;
	}
	/* the value as a binary s32 (the kernel takes a 4-byte write as the number itself) */
	int32_t v = us;
	ssize_t n = write(fd, &v, sizeof v);
	if (n != (ssize_t)sizeof v) {
		snprintf(err, errlen, "line %d: cpu_latency_us %d: writing %s: %s", line, us,
			 ZB_CPU_LATENCY_FILE, n < 0 ? strerror(errno) : "short write");
		close(fd);
		return ZCAST_ESYS;
	}
	return fd;
}

void zb_cpu_latency_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
