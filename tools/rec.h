/* What zcast record, play and bag share: how a zcast topic is described in an MCAP channel (and
 * read back), and the pieces of a recording (a directory of numbered files with an index). */
#ifndef ZCAST_TOOL_REC_H
#define ZCAST_TOOL_REC_H

#include <zcast/waitset.h>

#include "bag.h"
#include "cli.h"

/* Message encodings of channels: ROS 2 CDR (typed topics), and raw bytes (every other topic). */
#define REC_ENC_CDR "cdr"
#define REC_ENC_RAW "zcast.raw"

/* ---- rec_channel.c: a topic as an MCAP channel ---- */
struct rec_topic_desc {
	char topic[256];
	char type_name[64];
	uint8_t type_hash[ZCAST_TYPE_HASH_SIZE];
	bool typed;		/* a ROS 2 type (RIHS01 hash): CDR after the typed prefix */
	uint32_t history_depth; /* largest history of its publishers: transient local */
	uint32_t queue_depth;	/* the recorder's queue (QoS depth) */
	bool foreign;		/* read from a channel without zcast's keys (rosbag2's) */
};
/* Fills d from the topic's state (type, history). */
int rec_topic_describe(const char *domain, const char *topic, struct rec_topic_desc *d);
/* The queue depth of the recorder's subscriber to a topic with `history` (d.history_depth): the
 * depth `asked` (--queue), but at least the history, so a late joiner is given all of it (a
 * shorter queue would lose its oldest uncounted); at most the topic's max_queue_depth. */
uint32_t rec_join_queue(uint32_t asked, uint32_t history, const zcast_topic_stat *st);
/* Adds schema (typed) and channel of d to w; returns the channel id or -1. `warn` is set when the
 * type's .msg text is known neither shipped nor from a type library (the schema is then empty). */
int rec_channel_add(struct bag_writer *w, const struct rec_topic_desc *d, bool *warn);
/* ---- rec_qos.c: rosbag2's QoS of a channel ---- */
/* The history depth a replay gives a topic whose offered_qos_profiles (rosbag2's YAML; policies
 * by name or as rmw's enum numbers) is `yaml`: the deepest transient-local profile's depth (keep
 * all: the channel's `messages`), at most REC_HISTORY_MAX; 0 when none is transient local. */
#define REC_HISTORY_MAX 1024
uint32_t rec_qos_history(const char *yaml, uint64_t messages);

/* Reads a channel back into d (type identity and history from its metadata). */
void rec_channel_read(const struct bag_reader *r, const struct bag_channel *ch,
		      struct rec_topic_desc *d);

/* ---- rec_foreign.c: channels of recordings zcast did not make ---- */
/* For d read from a foreign channel (d->foreign): the RIHS01 hash zcast knows for its type, or
 * untyped (type and hash cleared) when zcast does not know the type or the file's hash differs.
 * `said` (n bytes) tells which, for the user. */
void rec_foreign_type(struct rec_topic_desc *d, char *said, size_t n);

/* ---- rec_watch.c: new topic files of a domain, without polling ---- */
struct rec_watch;
/* Watches /dev/shm (inotify) on a thread of its own and triggers `guard` whenever a topic file of
 * `domain` appears (or events were lost). -1 when inotify is not available (errno set). */
int rec_watch_start(const char *domain, zcast_guard *guard, struct rec_watch **out);
/* Stops and joins the thread (NULL: nothing). The guard is the caller's. */
void rec_watch_stop(struct rec_watch *w);

/* ---- rec_pending.c: files named like topics that are not (yet) readable ones ---- */
struct pending_name;
struct rec_pending {
	struct pending_name *v;
	int n, cap;
};
/* Whether `name` (listed by this scan) is due for a look now: a name not failed before is. */
bool rec_pending_due(struct rec_pending *p, const char *name, int64_t now);
/* `name` is not a readable topic (why): looked at again after 20 ms, doubling up to 1 s; named on
 * stderr once when it still is not one a second after it was first seen. */
void rec_pending_failed(struct rec_pending *p, const char *name, const char *why, int64_t now);
/* `name` is recorded now: no longer pending. */
void rec_pending_forget(struct rec_pending *p, const char *name);
/* After a scan: forgets names it did not list (gone); returns when the next look is due
 * (INT64_MAX: none pending). */
int64_t rec_pending_sweep(struct rec_pending *p);
void rec_pending_free(struct rec_pending *p);

/* ---- rec_split.c: split pieces opened ahead and closed behind, on a helper thread ---- */
struct rec_split;
int rec_split_start(struct rec_split **out); /* -1: no thread */
/* Has the piece `path` opened ahead (as path.next) with o, for the next rec_split_take. */
void rec_split_prepare(struct rec_split *s, const char *path, const struct bag_writer_opts *o);
/* The piece prepared last, renamed to its path; waits while it is still being opened. Only after
 * a rec_split_prepare. 0, or -1 with e. */
int rec_split_take(struct rec_split *s, struct bag_writer **w, struct bag_err *e);
/* Hands w over to be closed (last chunk, summary, footer) on the helper thread. */
void rec_split_close(struct rec_split *s, struct bag_writer *w);
/* True once a close failed (its error printed once). */
bool rec_split_failed(struct rec_split *s);
/* Closes every piece handed over, removes one prepared and not taken, ends the thread, frees s
 * (NULL: nothing). -1 when a close failed. */
int rec_split_stop(struct rec_split *s);

/* ---- rec_outdir.c: the directory of a new recording ---- */
/* Creates dir, or takes it if it exists and is empty; a directory holding anything (an earlier
 * recording) is refused. base (n bytes) gets the name of its pieces: the last component of its
 * real path. 0, or -1 (message printed). */
int rec_outdir_make(const char *dir, char *base, size_t n);
/* dir as written without its trailing slashes ("run1//": "run1"; "/" stays) into name (n bytes):
 * what the recording's paths are joined to with one '/'. 0, or -1 when it does not fit. */
int rec_outdir_name(const char *dir, char *name, size_t n);
/* ---- rec_heads.c: messages taken and not yet written, oldest first ---- */
struct rec_head {
	int64_t key;	/* publish time (lowered by rec_heads_clamp) */
	uint64_t taken; /* order of the push: ties go to the message taken first */
	void *owner;	/* the topic's */
	zcast_msg *m;	/* the reference the take gave: dropped only once written */
};
struct rec_heads {
	struct rec_head *v;
	int n, cap;
	uint64_t count;
};
/* Room for n heads (one per topic, reserved as a topic is joined). False: out of memory. */
bool rec_heads_reserve(struct rec_heads *h, int n);
/* Adds a head (within the room reserved). */
void rec_heads_push(struct rec_heads *h, void *owner, zcast_msg *m, int64_t key);
/* The oldest head, or NULL. */
const struct rec_head *rec_heads_top(const struct rec_heads *h);
/* Removes the oldest head and returns it (only when there is one). */
struct rec_head rec_heads_pop(struct rec_heads *h);
/* Lowers every key above limit to limit (heads held since an earlier round are written in this
 * one, whatever time their publisher wrote into shared memory). */
void rec_heads_clamp(struct rec_heads *h, int64_t limit);
/* Drops every head left (a recorder that failed) and frees the room. */
void rec_heads_free(struct rec_heads *h);

/* ---- rec_files.c: the pieces of a recording ---- */
struct rec_piece {
	char path[4096];
	char name[256]; /* relative to the directory */
	uint64_t start, end, messages;
};
struct rec_topic_count {
	char topic[256], type[64], encoding[16];
	uint64_t messages, dropped;
};
/* DIR/metadata.yaml (rosbag2's index of a recording: its files, topics, counts and times),
 * written to a temporary file and renamed. */
int rec_index_write(const char *dir, const struct rec_piece *pieces, int npieces,
		    const struct rec_topic_count *topics, int ntopics);
/* The files of a recording: a file as is, or a directory's *.mcap in their numbered order.
 * Returns the count (malloc'ed *out) or -1 (message printed). */
int rec_pieces(const char *cmd, const char *path, struct rec_piece **out);

/* ---- rec_reindex.c: zcast bag reindex DIR ---- */
/* Reindexes every piece of the recording in dir that has no summary (compression: as
 * bag_reindex) and rewrites dir/metadata.yaml from the pieces. Refuses (changing nothing) while a
 * piece is being written. 0, or -1 (printed). */
int rec_reindex_dir(const char *dir, const char *comp);

#endif
