/* Error codes and the per-thread detailed message. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "os_internal.h"

static _Thread_local char last_error[512];
/* Whether last_error holds a message. A shared library reaches its thread-locals through
 * __tls_get_addr (about 0.1 us here); this flag uses the initial-exec model (one %fs-relative
 * access), so the clear on every empty take stays cheap. One byte: it fits the static TLS that
 * glibc keeps for libraries loaded later (Python's extension loads us with dlopen). */
static _Thread_local bool has_error __attribute__((tls_model("initial-exec")));

int zc_err(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	has_error = true;
	return code;
}

int zc_errno(int code, const char *what)
{
	return zc_err(code, "%s: %s", what, strerror(errno));
}

ZC_HOT void zc_err_clear(void)
{
	if (has_error) {
		last_error[0] = 0;
		has_error = false;
	}
}

const char *zcast_last_error(void)
{
	return last_error;
}

const char *zcast_strerror(int err)
{
	switch (err) {
	case ZCAST_OK: return "success";
	case ZCAST_EINVAL: return "invalid argument";
	case ZCAST_ENOMEM: return "out of memory, /dev/shm space or file descriptors";
	case ZCAST_EAGAIN: return "try again: nothing queued, or a subscriber queue is full";
	case ZCAST_ENOSLOT: return "the publisher's pool has no free slot";
	case ZCAST_ETIMEDOUT: return "timed out";
	case ZCAST_ETYPE: return "topic exists with another type";
	case ZCAST_ELIMIT: return "a topic limit is exceeded";
	case ZCAST_ECORRUPT: return "shared memory is corrupted";
	case ZCAST_ESTALE: return "stale handle";
	case ZCAST_EPERM: return "permission denied";
	case ZCAST_ENOENT: return "no such topic";
	case ZCAST_ELAYOUT: return "segment in use with another layout version";
	case ZCAST_ESYS: return "system call failed";
	case ZCAST_EBUSY: return "resource busy";
	case ZCAST_ENOSERVER: return "the service has no live server";
	case ZCAST_ESRVGONE: return "the server that had the call is gone (died or closed before answering)";
	case ZCAST_EREFUSED: return "a server refused the request";
	default: return "unknown error";
	}
}
