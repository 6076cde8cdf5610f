/* Every byte the reader takes from its file goes through here, by pread(2) into memory of the
 * caller's choosing. The reader never maps the file: a mapped file that another process cuts
 * shorter (a recorder's `truncate`, a copy being replaced) kills the reader with SIGBUS at the
 * first access past the new end, where a read only comes back short. A short read is the file
 * having become shorter than when it was opened, reported like any bad input: "file: offset:
 * what". An error of the read itself keeps its errno (r->err_errno) for callers that tell the
 * system's failures from bad content. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag_read.h"

void (*bag_read_hook)(const struct bag_reader *r, uint64_t at);

bool bag_read_at(struct bag_reader *r, uint64_t at, void *dst, size_t n, const char *what)
{
	if (bag_read_hook)
		bag_read_hook(r, at);
	uint8_t *p = dst;
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(r->fd, p + done, n - done, (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r->err_errno = errno;
			bag_err_set(&r->err, r->path, (int64_t)(at + done), "%s: cannot read: %s",
				    what, strerror(errno));
			return false;
		}
		if (k == 0) {
			struct stat st;
			long long now = fstat(r->fd, &st) == 0 ? (long long)st.st_size : -1;
			bag_err_set(&r->err, r->path, (int64_t)(at + done),
				    "%s: the file ends here (%lld bytes; %llu when it was opened): "
				    "cut while being read",
				    what, now, (unsigned long long)r->size);
			return false;
		}
		done += (size_t)k;
	}
	return true;
}

const uint8_t *bag_read_buf(struct bag_reader *r, struct bag_buf *b, uint64_t at, size_t n,
			    const char *what)
{
	b->len = 0;
	b->failed = false; /* the old contents are not wanted: a failed grow before is no matter */
	/* at least one byte: an empty record's body is a valid pointer, not NULL */
	if (!bag_buf_grow(b, n ? n : 1)) {
		bag_err_set(&r->err, r->path, (int64_t)at, "%s: out of memory (%zu bytes)", what, n);
		return NULL;
	}
	if (!bag_read_at(r, at, b->p, n, what))
		return NULL;
	b->len = n;
	return b->p;
}
