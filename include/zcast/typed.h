/* zcast typed topics: constrained loans of generated message types (docs/TYPED.md).
 *
 * A typed publisher declares its bounds (the most bytes per string and elements per sequence, see
 * include/zcast/cdr.h). A loan is laid out at those bounds (or tighter per-loan bounds), so every
 * member has a fixed place and is written in place; publish compacts the message in place and
 * publishes its exact CDR size.
 *
 * A typed message in a slot: 4 reserved zero bytes, the 4-byte CDR encapsulation header, then the
 * CDR stream. The payload is 64-byte aligned, so the CDR origin is 8-byte aligned and every value
 * is naturally aligned in memory (a float64[] can be used in place). Topics carry the type name and
 * its RIHS01 hash; openers of another type get ZCAST_ETYPE.
 */
#ifndef ZCAST_TYPED_H
#define ZCAST_TYPED_H

#include "cdr.h"
#include "zcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Offset of the encapsulation header in a typed message's payload. */
#define ZCAST_TYPED_HEADER_OFFSET 4
/* Payload bytes in front of the CDR origin. */
#define ZCAST_TYPED_PREFIX (ZCAST_TYPED_HEADER_OFFSET + ZCAST_CDR_HEADER)

typedef struct zcast_typed_pub zcast_typed_pub;

/* Opens a publisher of `type` with endpoint `bounds` (copied; NULL only for types without strings
 * and sequences). opts may be NULL; its type_name/type_hash are replaced by the type's, and a
 * slot_size below the worst-case message at these bounds is raised to it. */
ZCAST_API int zcast_typed_pub_open(const char *topic, const zcast_cdr_type *type,
				   const void *bounds, const zcast_pub_opts *opts,
				   zcast_typed_pub **out);
ZCAST_API int zcast_typed_pub_close(zcast_typed_pub *pub);
/* The untyped publisher underneath (for zcast_pub_stat_get and the like). */
ZCAST_API zcast_pub *zcast_typed_pub_handle(zcast_typed_pub *pub);
/* Worst-case CDR size (header excluded) at the publisher's bounds. */
ZCAST_API size_t zcast_typed_pub_max_size(const zcast_typed_pub *pub);

/* Loans a message laid out at `bounds` (NULL: the publisher's; else each entry at most the
 * publisher's, larger is ZCAST_EINVAL naming the member). `bounds` must stay valid until the
 * message is published or dropped. Fills the writer (w, off, cap: type->n_flat entries). On success
 * the caller owns *m (zcast_typed_publish or zcast_msg_drop). Errors as zcast_loan. */
ZCAST_API int zcast_typed_loan(zcast_typed_pub *pub, const void *bounds, zcast_msg **m,
			       zcast_cdr_writer *w, uint32_t *off, uint32_t *cap);
/* As zcast_typed_loan, but waits up to timeout_ns (CLOCK_MONOTONIC; negative: forever) for a free
 * slot, as zcast_loan_wait does: ZCAST_ETIMEDOUT then. */
ZCAST_API int zcast_typed_loan_wait(zcast_typed_pub *pub, const void *bounds, int64_t timeout_ns,
				    zcast_msg **m, zcast_cdr_writer *w, uint32_t *off,
				    uint32_t *cap);
/* Compacts the loan in place and publishes its exact size. Consumes m on success only; a count or
 * length above its bound is ZCAST_EINVAL (m still the caller's, its contents partly compacted:
 * drop it). A publish refused after the compaction (say ZCAST_EAGAIN from a full FULL queue) may be
 * retried with the same m and w: the message is compacted once; do not write it in between. */
ZCAST_API int zcast_typed_publish(zcast_typed_pub *pub, zcast_msg *m, const zcast_cdr_writer *w);
/* Copy path: serializes the plain C struct `src` into a loan and publishes it. */
ZCAST_API int zcast_typed_publish_copy(zcast_typed_pub *pub, const void *src);

/* Sets type_name and type_hash of subscriber options to the type's. */
ZCAST_API void zcast_typed_sub_opts(zcast_sub_opts *opts, const zcast_cdr_type *type);
/* Reader view of a received typed message (validates it; see zcast_cdr_read). */
ZCAST_API int zcast_typed_read(const zcast_cdr_type *type, zcast_msg *m, zcast_cdr_reader *r,
			       uint32_t *off, uint32_t *len);

#ifdef __cplusplus
}
#endif
#endif
