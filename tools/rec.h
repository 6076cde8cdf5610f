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
};
/* Fills d from the topic's state (type, history). */
int rec_topic_describe(const char *domain, const char *topic, struct rec_topic_desc *d);
/* Adds schema (typed) and channel of d to w; returns the channel id or -1. `warn` is set when the
 * type's .msg text is known neither shipped nor from a type library (the schema is then empty). */
int rec_channel_add(struct bag_writer *w, const struct rec_topic_desc *d, bool *warn);
/* Reads a channel back into d (type identity and history from its metadata). */
void rec_channel_read(const struct bag_reader *r, const struct bag_channel *ch,
		      struct rec_topic_desc *d);

/* ---- rec_watch.c: new topic files of a domain, without polling ---- */
struct rec_watch;
/* Watches /dev/shm (inotify) on a thread of its own and triggers `guard` whenever a topic file of
 * `domain` appears (or events were lost). -1 when inotify is not available (errno set). */
int rec_watch_start(const char *domain, zcast_guard *guard, struct rec_watch **out);
/* Stops and joins the thread (NULL: nothing). The guard is the caller's. */
void rec_watch_stop(struct rec_watch *w);

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

#endif
