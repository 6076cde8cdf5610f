/* zcast typed messages: the CDR runtime behind the headers zcast-msggen generates (docs/TYPED.md).
 *
 * One memory representation for every language: plain CDR (XCDR version 1), little endian, after a
 * 4-byte encapsulation header {0x00, 0x01, 0x00, 0x00}. Offsets below count from the CDR origin,
 * the first byte after that header; a primitive of size n sits at an offset that is a multiple of n
 * (at most 8); a string is a uint32 length (bytes including the NUL), the bytes and the NUL; a
 * sequence is a uint32 count and its elements; an array is its elements.
 *
 * A type is described by a zcast_cdr_type table (generated): field names, kinds, shapes, declared
 * bounds, where each field lives in the generated plain C struct (for the copy path) and which
 * entries of the *bounds* struct belong to it. Tools and language bindings walk the same table.
 *
 * Bounds: one uint32 per string / sequence member (string: most bytes without the NUL; sequence:
 * most elements), nested per nested message, in field order:
 *   string                      1 entry          T[] / T[<=N] of a primitive   1 entry (count)
 *   string[N]                   1 (each string)  string[] / string[<=N]        2 (count, length)
 *   message, message[N]         the message's    message[] / message[<=N]      1 + the message's
 * A member declared bounded (string<=N, T[<=N]) may not get a larger bound.
 *
 * Every reader function treats the buffer as hostile: each length and count is read once into a
 * local, checked against the message size and only the checked copy is used. A malformed message
 * gives ZCAST_ECORRUPT, never a read outside [data, data + size).
 */
#ifndef ZCAST_CDR_H
#define ZCAST_CDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size of the encapsulation header in front of the CDR origin. */
#define ZCAST_CDR_HEADER 4

enum zcast_cdr_kind {
	ZCAST_CDR_BOOL,
	ZCAST_CDR_OCTET,
	ZCAST_CDR_CHAR,
	ZCAST_CDR_INT8,
	ZCAST_CDR_UINT8,
	ZCAST_CDR_INT16,
	ZCAST_CDR_UINT16,
	ZCAST_CDR_INT32,
	ZCAST_CDR_UINT32,
	ZCAST_CDR_INT64,
	ZCAST_CDR_UINT64,
	ZCAST_CDR_FLOAT32,
	ZCAST_CDR_FLOAT64,
	ZCAST_CDR_STRING,
	ZCAST_CDR_STRUCT,
};

enum zcast_cdr_shape {
	ZCAST_CDR_ONE,	    /* a single value */
	ZCAST_CDR_ARRAY,    /* T[N]: N values, no count */
	ZCAST_CDR_SEQUENCE, /* T[] or T[<=N]: a uint32 count, then the values */
};

struct zcast_cdr_type;

/** One member of a type's introspection table. */
typedef struct zcast_cdr_field {
	const char *name;      /**< member name as in the .msg */
	uint8_t kind;	       /**< enum zcast_cdr_kind of the value (the element, for arrays) */
	uint8_t shape;	       /**< enum zcast_cdr_shape */
	uint16_t bounds_index; /**< first entry of this member in the bounds struct */
	uint32_t count;	       /**< ONE: 1; ARRAY: N; SEQUENCE: declared bound, 0 = unbounded */
	uint32_t string_bound; /**< string<=N: N; 0 = unbounded */
	const struct zcast_cdr_type *type; /**< STRUCT values: their type */
	uint32_t c_offset;		   /**< offsetof in the generated plain C struct */
	/** The declared default (`float64 w 1`), or NULL: n_defaults values in their C (= CDR)
	 * representation; strings and arrays of strings as zcast_cdr_str. Messages have none. */
	const void *defaults;
	uint32_t n_defaults; /**< values of defaults (ONE: 1, ARRAY: N, SEQUENCE: its length) */
} zcast_cdr_field;

/** A generated type's introspection table (name, hash, members, sizes). */
typedef struct zcast_cdr_type {
	const char *name;    /**< ROS 2 form: "sensor_msgs/msg/Image" */
	const uint8_t *hash; /**< RIHS01, ZCAST_TYPE_HASH_SIZE bytes */
	const zcast_cdr_field *fields; /**< members in declaration order */
	uint32_t n_fields;             /**< entries of fields */
	uint32_t n_bounds; /**< uint32 entries of the bounds struct (0: fixed size type) */
	uint32_t n_flat;   /**< members with nested single messages expanded (reader slots) */
	uint32_t c_size;   /**< sizeof the plain C struct */
} zcast_cdr_type;

/** A generated service type (pkg/srv/Name.h, docs/TYPED.md "Services"): its name, the RIHS01 hash
 * of the service (REP-2011: over its request, response and event messages) and the tables of its
 * request and response messages. */
typedef struct zcast_service_type {
	const char *name;              /**< ROS 2 form: "std_srvs/srv/SetBool" */
	const uint8_t *hash;           /**< RIHS01 of the service, ZCAST_TYPE_HASH_SIZE bytes */
	const zcast_cdr_type *request; /**< pkg/srv/Name_Request */
	const zcast_cdr_type *response; /**< pkg/srv/Name_Response */
	const char *text;              /**< the .srv text */
} zcast_service_type;

/** A string member of a plain C struct (copy path). */
typedef struct zcast_cdr_str {
	const char *data; /**< need not be NUL terminated */
	uint32_t len;	  /**< bytes, without a NUL */
} zcast_cdr_str;
/** A sequence member of a plain C struct (copy path). */
typedef struct zcast_cdr_seq {
	void *data; /**< len elements of the member's C type (zcast_cdr_str for strings) */
	uint32_t len; /**< elements */
} zcast_cdr_seq;

/* ---- reader ----
 * A validated position of every flat member: for member k, off[k] is the offset of its first value
 * byte (after a count or length) and len[k] its count (sequence), its length without the NUL
 * (string) or N (array). Arrays and sequences of strings or messages: off[k] is the offset of the
 * first element's own encoding; elements are reached with zcast_cdr_element(). */
/** A validated message (or nested message) being read in place. */
typedef struct zcast_cdr_reader {
	const uint8_t *base; /**< CDR origin */
	uint32_t size;	     /**< bytes from the origin */
	uint32_t end;	     /**< offset just past this (sub)message */
} zcast_cdr_reader;

/* Validates a whole message (data: its encapsulation header; size: header included) and fills
 * off/len (type->n_flat entries each). The CDR origin (data + 4) must be 8-byte aligned, so values
 * are naturally aligned in place (typed zcast messages always are). Returns 0, ZCAST_ECORRUPT (with
 * zcast_last_error naming the member path; also for an encapsulation that is not little-endian plain
 * CDR, and for bytes after the message other than the padding the options announce) or ZCAST_EINVAL
 * (misaligned origin). */
ZCAST_API int zcast_cdr_read(const zcast_cdr_type *type, const void *data, size_t size,
			     zcast_cdr_reader *r, uint32_t *off, uint32_t *len);
/* Element `index` (< count) of an array or sequence of messages whose first element is at `first`
 * (off[k] of the member, len[k] its count): validates it and fills the element's reader, off and
 * len. Elements of fixed-stride types are found directly, others by walking from the first element.
 */
ZCAST_API int zcast_cdr_element(const zcast_cdr_reader *r, const zcast_cdr_type *elem,
				uint32_t first, uint32_t count, uint32_t index,
				zcast_cdr_reader *out, uint32_t *off, uint32_t *len);
/* String element `index` of an array or sequence of strings starting at `first`: pointer and length
 * (without the NUL). */
ZCAST_API int zcast_cdr_string_element(const zcast_cdr_reader *r, uint32_t first, uint32_t count,
				       uint32_t index, const char **str, uint32_t *len);

/* Values of a validated reader. The offset comes from a checked off[] entry, so these only read
 * inside the message. */
static inline uint64_t zcast_cdr_get_(const zcast_cdr_reader *r, uint32_t off, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, r->base + off, size); /* little endian host (checked by the build) */
	return v;
}

/* ---- writer (a loan laid out at its bounds) ----
 * Member k of a writer: off[k] is where its values go, for a string or sequence the offset of its
 * uint32 length/count prefix (its values start at zcast_cdr_align_(off + 4, value alignment));
 * cap[k] its capacity in values (array N; sequence bound; string bound in bytes, the NUL fits after
 * it). */
/** A loan laid out at its bounds, being written in place. */
typedef struct zcast_cdr_writer {
	uint8_t *base; /**< CDR origin in the loan */
	const uint32_t *bounds; /**< the bounds it was laid out at (bounds struct as uint32 entries) */
	uint32_t size; /**< worst-case bytes from the origin */
} zcast_cdr_writer;

/* Worst-case CDR size (header excluded) of the type at these bounds, or ZCAST_EINVAL when a bound
 * is above a member's declared bound (zcast_last_error names it). */
ZCAST_API int zcast_cdr_bound_size(const zcast_cdr_type *type, const void *bounds, size_t *size);
/* Lays the type out at `bounds` over base (which has room for the bound size): every member starts
 * at its declared default, members without one empty (strings, sequences) or 0 (scalars, arrays);
 * a default string or sequence longer than its bound starts empty. Sequence contents past the count
 * are left as they are. Fills off/cap (type->n_flat entries). */
ZCAST_API void zcast_cdr_layout(const zcast_cdr_type *type, const void *bounds, uint8_t *base,
				uint32_t *off, uint32_t *cap);
/* Element `index` of an array/sequence of messages of a writer (laid out at the member's element
 * bounds); `first` is the first element's offset (off[k] for an array, off[k] + 4 for a sequence).
 */
ZCAST_API void zcast_cdr_writer_element(const zcast_cdr_writer *w, const zcast_cdr_type *elem,
					const uint32_t *elem_bounds, uint32_t first, uint32_t index,
					uint32_t *off, uint32_t *cap);
/* Compacts a message written at bounds in place: members after the first one shorter than its
 * bound move towards the origin (nothing moves when all are at bound) and padding becomes zero.
 * Returns the exact CDR size (header excluded) or ZCAST_EINVAL if a written count or length exceeds
 * its bound. Touches only bytes in [base, base + bound size). */
ZCAST_API int zcast_cdr_compact(const zcast_cdr_type *type, const void *bounds, uint8_t *base,
				size_t *size);

static inline uint32_t zcast_cdr_align_(uint32_t x, uint32_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Sets the count of the sequence whose prefix is at off (at most cap). */
static inline int zcast_cdr_set_count(zcast_cdr_writer *w, uint32_t off, uint32_t cap, uint32_t n)
{
	if (n > cap)
		return ZCAST_EINVAL;
	memcpy(w->base + off, &n, 4);
	return 0;
}

/* Sets the length (without the NUL) of the string whose prefix is at off; its bytes are already in
 * place (the buffer after the prefix). */
static inline int zcast_cdr_set_strlen(zcast_cdr_writer *w, uint32_t off, uint32_t cap, uint32_t n)
{
	if (n > cap)
		return ZCAST_EINVAL;
	uint32_t with_nul = n + 1;
	memcpy(w->base + off, &with_nul, 4);
	w->base[off + 4 + n] = 0;
	return 0;
}

/* Copies a NUL-terminated string into the string whose prefix is at off. */
static inline int zcast_cdr_set_string(zcast_cdr_writer *w, uint32_t off, uint32_t cap,
				       const char *s)
{
	size_t n = strlen(s);
	if (n > cap)
		return ZCAST_EINVAL;
	memcpy(w->base + off + 4, s, n);
	return zcast_cdr_set_strlen(w, off, cap, (uint32_t)n);
}

/* Prefix offset of string i of an array/sequence of strings laid out at `bound` from `first`: at
 * their bound all strings have the same size and alignment 4, so the stride is constant. */
static inline uint32_t zcast_cdr_string_slot(uint32_t first, uint32_t bound, uint32_t i)
{
	return first + i * zcast_cdr_align_(4 + bound + 1, 4);
}

/* ---- copy path ---- */
/* Sets every member of the plain C struct dst to its declared default, others to 0 / empty. A
 * default sequence points at the type's read-only defaults (replace it, do not write into it). */
ZCAST_API void zcast_cdr_init(const zcast_cdr_type *type, void *dst);
/* CDR size (header excluded) of the plain C struct `src` of `type`. */
ZCAST_API size_t zcast_cdr_serialized_size(const zcast_cdr_type *type, const void *src);
/* Writes header + CDR of `src` into out (room for 4 + zcast_cdr_serialized_size bytes, 8-aligned
 * origin expected by nobody: any address works). Returns the bytes written. */
ZCAST_API size_t zcast_cdr_serialize(const zcast_cdr_type *type, const void *src, void *out);
/* Copies a received message into the plain C struct dst; strings and sequences are allocated (free
 * them with zcast_cdr_free). Returns 0, ZCAST_ECORRUPT or ZCAST_ENOMEM. */
ZCAST_API int zcast_cdr_deserialize(const zcast_cdr_type *type, const void *data, size_t size,
				    void *dst);
ZCAST_API void zcast_cdr_free(const zcast_cdr_type *type, void *dst);

/* Size (= CDR alignment) of a primitive kind; 0 for strings and messages. */
static inline uint32_t zcast_cdr_kind_size(int kind)
{
	static const uint8_t size[] = {1, 1, 1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8}; /* BOOL .. FLOAT64 */
	return kind >= 0 && kind < (int)sizeof size ? size[kind] : 0;
}

/* One primitive value widened to what a tool prints or a binding converts: `type` says which of
 * i, u, f holds it (bool: u is 0 or not). The one reader of a primitive's bytes for the zcast
 * tool and the Python module. */
/** Which member of a zcast_cdr_value holds the value. */
enum zcast_cdr_value_type {
	ZCAST_CDR_VALUE_BOOL,  /**< u: 0 or 1 */
	ZCAST_CDR_VALUE_INT,   /**< i: int8 .. int64 */
	ZCAST_CDR_VALUE_UINT,  /**< u: byte, char, uint8 .. uint64 */
	ZCAST_CDR_VALUE_FLOAT, /**< f: float32, float64 */
};
/** A primitive value, widened (zcast_cdr_value_at). */
typedef struct zcast_cdr_value {
	enum zcast_cdr_value_type type; /**< which of i, u, f holds it */
	int64_t i;			/**< signed integers */
	uint64_t u;			/**< unsigned integers and bools */
	double f;			/**< floating point */
} zcast_cdr_value;

/* The value of primitive kind `kind` at p (zcast_cdr_kind_size(kind) bytes, any alignment). */
static inline zcast_cdr_value zcast_cdr_value_at(int kind, const void *p)
{
	union {
		int8_t i8;
		uint8_t u8;
		int16_t i16;
		uint16_t u16;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		float f32;
		double f64;
	} v;
	zcast_cdr_value r = {ZCAST_CDR_VALUE_UINT, 0, 0, 0.0};
	memcpy(&v, p, zcast_cdr_kind_size(kind));
	switch (kind) {
	case ZCAST_CDR_BOOL:
		r.type = ZCAST_CDR_VALUE_BOOL, r.u = v.u8 != 0;
		break;
	case ZCAST_CDR_INT8:
		r.type = ZCAST_CDR_VALUE_INT, r.i = v.i8;
		break;
	case ZCAST_CDR_INT16:
		r.type = ZCAST_CDR_VALUE_INT, r.i = v.i16;
		break;
	case ZCAST_CDR_INT32:
		r.type = ZCAST_CDR_VALUE_INT, r.i = v.i32;
		break;
	case ZCAST_CDR_INT64:
		r.type = ZCAST_CDR_VALUE_INT, r.i = v.i64;
		break;
	case ZCAST_CDR_UINT16:
		r.u = v.u16;
		break;
	case ZCAST_CDR_UINT32:
		r.u = v.u32;
		break;
	case ZCAST_CDR_UINT64:
		r.u = v.u64;
		break;
	case ZCAST_CDR_FLOAT32:
		r.type = ZCAST_CDR_VALUE_FLOAT, r.f = (double)v.f32;
		break;
	case ZCAST_CDR_FLOAT64:
		r.type = ZCAST_CDR_VALUE_FLOAT, r.f = v.f64;
		break;
	default: /* octet, char, uint8 */
		r.u = v.u8;
		break;
	}
	return r;
}

/* Name of a kind ("uint32", "string", ...), for tools. */
ZCAST_API const char *zcast_cdr_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif
