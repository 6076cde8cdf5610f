/* The type identity a replay gives a channel of a recording that zcast did not make (rosbag2's:
 * no zcast.type_* keys). Typed zcast subscribers check a topic's RIHS01 hash, and such a file
 * carries one only since Iron (topic_type_hash) or not at all (Humble): so the hash is the one
 * zcast knows for the named type (shipped, or from a type library on $ZCAST_TYPE_PATH). A type
 * zcast does not know, or one whose hash in the file differs from zcast's (another version of it),
 * is published untyped: its CDR as raw bytes, which no typed subscriber misreads. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <zcast/types.h>

#include "rec.h"
#include "typed_print.h"

void rec_foreign_type(struct rec_topic_desc *d, char *said, size_t n)
{
	static const uint8_t zero[ZCAST_TYPE_HASH_SIZE];
	const zcast_cdr_type *t = NULL;
	char file[ZCAST_TYPE_HASH_STR_SIZE], ours[ZCAST_TYPE_HASH_STR_SIZE];
	bool hashed = memcmp(d->type_hash, zero, sizeof zero) != 0;
	if (!d->typed)
		snprintf(said, n, "untyped (its messages are not cdr)");
	else if (!d->type_name[0])
		snprintf(said, n, "untyped (its channel names no type)");
	else if (zt_type_named(d->type_name, &t) != 0)
		snprintf(said, n,
			 "untyped (type %s is neither shipped nor in a type library on %s)",
			 d->type_name, zcast_types_path());
	else if (hashed && memcmp(d->type_hash, t->hash, sizeof d->type_hash)) {
		zcast_type_hash_str(d->type_hash, file);
		zcast_type_hash_str(t->hash, ours);
		snprintf(said, n, "untyped (type %s: the file has %s, zcast knows %s)",
			 d->type_name, file, ours);
		t = NULL;
	}
	if (!t) {
		d->typed = false;
		d->type_name[0] = 0;
		memset(d->type_hash, 0, sizeof d->type_hash);
		return;
	}
	snprintf(d->type_name, sizeof d->type_name, "%s", t->name);
	memcpy(d->type_hash, t->hash, sizeof d->type_hash);
	zcast_type_hash_str(t->hash, ours);
	snprintf(said, n, "typed %s (%s%s)", t->name, ours, hashed ? ", as in the file" : "");
}
