/* zcast record: every topic of a domain (or those matching patterns, also topics that appear
 * later) into MCAP files as rosbag2 writes them (docs/RECORDING.md). The take loop writes the
 * messages of all topics in publish-time order (rec_heads.c), copying each into the open chunk
 * and dropping it at once; a writer thread compresses and writes sealed chunks. Uncompressed, a
 * large message is written from its slot before it is dropped (no copy).
 * Subscribers are DROP_OLD with a deep queue (drops counted per topic), or FULL with --lossless.
 * Split pieces are opened ahead and closed behind by a helper thread (rec_split.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zcast/typed.h>
#include <zcast/types.h>
#include <zcast/waitset.h>

#include "rec.h"

struct rec_sub {
	struct rec_topic_desc d;
	zcast_sub *sub;
	int channel; /* in the open file; -1 until its first message there */
	uint64_t messages, bytes, dropped;
	uint64_t stale; /* taken, but gone before it could be read: lost, counted with the drops */
	bool held;	/* its head (the oldest message taken, not yet written) is in R->heads */
	int left; /* stopping: messages still to take (those queued when the recording ended) */
};

struct recorder {
	const struct cli *c;
	const char *domain;
	/* -o as written, no trailing '/'; room left in a rec_piece path for '/' and a piece's name */
	char dir[sizeof((struct rec_piece *)0)->path - sizeof((struct rec_piece *)0)->name - 1];
	char base[200];
	bool lossless, quiet;
	uint32_t depth;
	struct bag_writer_opts wo;
	uint64_t max_bytes;
	int64_t max_dur_ns, wall_offset;
	struct bag_writer *w;
	struct rec_split *split; /* splitting: next piece opened ahead, last closed behind */
	struct rec_piece *pieces;
	int npieces, cap_pieces;
	struct rec_sub **subs;
	int nsubs, cap_subs;
	struct rec_heads heads; /* room for one per topic */
	zcast_ws_event *ev;	/* room for every topic's event (and the guard's) in one wait */
	int cap_ev;
	bool stopping; /* the last round: only what was queued, whatever its time */
	zcast_waitset *ws;
	zcast_guard *topics_guard; /* triggered by watch when a topic file appears */
	struct rec_watch *watch;   /* NULL: no inotify, new topics are polled for */
	struct rec_pending
	    pending; /* topic files not (yet) readable: looked at again, backing off */
	int64_t file_start, last_flush, next_scan, last_progress;
	uint64_t messages, bytes;
	bool failed;
};

static bool wanted(const struct cli *c, const char *topic)
{
	if (c->npos == 0)
		return true;
	for (int i = 0; i < c->npos; i++)
		if (fnmatch(c->pos[i], topic, 0) == 0)
			return true;
	return false;
}

static int write_index(struct recorder *R);

static int open_piece(struct recorder *R)
{
	struct rec_piece p;
	memset(&p, 0, sizeof p);
	snprintf(p.name, sizeof p.name, "%s_%d.mcap", R->base, R->npieces);
	snprintf(p.path, sizeof p.path, "%s/%s", R->dir, p.name);
	struct bag_err e;
	int r = R->split && R->npieces ? rec_split_take(R->split, &R->w, &e)
				       : bag_writer_open(p.path, &R->wo, &R->w, &e);
	if (r != 0) {
		fprintf(stderr, "zcast record: %s\n", e.text);
		return -1;
	}
	if (!cli_append((void **)&R->pieces, &R->npieces, &R->cap_pieces, &p, sizeof p))
		return -1;
	for (int i = 0; i < R->nsubs; i++)
		R->subs[i]->channel = -1;
	R->file_start = cli_now_ns();
	if (R->split) { /* the piece after this one, opened while this one fills */
		char next[sizeof p.path];
		snprintf(next, sizeof next, "%s/%s_%d.mcap", R->dir, R->base, R->npieces);
		rec_split_prepare(R->split, next, &R->wo);
	}
	return write_index(R);
}

static void topic_counts(struct recorder *R, struct rec_topic_count **out)
{
	struct rec_topic_count *t = calloc((size_t)R->nsubs + 1, sizeof *t);
	for (int i = 0; t && i < R->nsubs; i++) {
		const struct rec_sub *s = R->subs[i];
		snprintf(t[i].topic, sizeof t[i].topic, "%s", s->d.topic);
		snprintf(t[i].type, sizeof t[i].type, "%s", s->d.type_name);
		snprintf(t[i].encoding, sizeof t[i].encoding, "%s",
			 s->d.typed ? REC_ENC_CDR : REC_ENC_RAW);
		t[i].messages = s->messages;
		t[i].dropped = s->dropped;
	}
	*out = t;
}

/* What each topic lost: DROP_OLD's drops and the stale. Not a --lossless queue's refusals: a
 * refused publish reaches no one and takes no sequence number; its publisher is told (and
 * zcast_publish_wait retries it). */
static void update_drops(struct recorder *R)
{
	for (int i = 0; i < R->nsubs; i++) {
		zcast_sub_stat st;
		if (zcast_sub_stat_get(R->subs[i]->sub, &st) == 0)
			R->subs[i]->dropped = st.dropped + R->subs[i]->stale;
	}
}

/* The drops of every topic (since the recording began) as the file's "zcast" metadata. */
static void drops_metadata(struct recorder *R)
{
	update_drops(R);
	int n = R->nsubs;
	char **kv = calloc((size_t)(2 * n + 2), sizeof *kv);
	char *text = calloc((size_t)n + 1, 300);
	if (!kv || !text) {
		free(kv);
		free(text);
		return;
	}
	kv[0] = "domain";
	kv[1] = (char *)R->domain;
	for (int i = 0; i < n; i++) {
		char *k = text + 300 * (size_t)i;
		snprintf(k, 280, "dropped:%s", R->subs[i]->d.topic);
		snprintf(k + 280, 20, "%" PRIu64, R->subs[i]->dropped);
		kv[2 + 2 * i] = k;
		kv[3 + 2 * i] = k + 280;
	}
	bag_writer_metadata(R->w, "zcast", (const char *const *)kv, n + 1);
	free(kv);
	free(text);
}

/* DIR/metadata.yaml, rewritten as each file opens and closes (a killed recorder leaves one). */
static int write_index(struct recorder *R)
{
	struct rec_topic_count *t;
	topic_counts(R, &t);
	int r = t ? rec_index_write(R->dir, R->pieces, R->npieces, t, R->nsubs) : -1;
	free(t);
	if (r != 0)
		fprintf(stderr, "zcast record: cannot write %s/metadata.yaml\n", R->dir);
	return r;
}

/* At a split (`last` false, with the helper) the piece is handed over and closed behind: the take
 * loop goes on at once. The last piece is closed here. */
static int close_piece(struct recorder *R, bool last)
{
	if (!R->w)
		return 0;
	drops_metadata(R);
	struct bag_err e;
	int r = 0;
	if (R->split && !last)
		rec_split_close(R->split, R->w);
	else
		r = bag_writer_close(R->w, &e);
	R->w = NULL;
	if (r != 0)
		fprintf(stderr, "zcast record: %s\n", e.text);
	return write_index(R) != 0 ? -1 : r;
}

/* 1: recording it; 0: it cannot be recorded (said why); -1: not ready or gone meanwhile (a file
 * that has just appeared may not be a whole topic yet: look again soon). */
static int subscribe(struct recorder *R, const char *topic)
{
	struct rec_sub *s = calloc(1, sizeof *s);
	if (!s)
		return 0;
	zcast_topic_stat st;
	if (rec_topic_describe(R->domain, topic, &s->d) != 0 ||
	    zcast_topic_stat_get(R->domain, topic, &st) != 0) {
		free(s);
		return -1;
	}
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = R->domain;
	o.policy = R->lossless ? ZCAST_POLICY_FULL : ZCAST_POLICY_DROP_OLD;
	o.queue_depth = rec_join_queue(R->depth, s->d.history_depth, &st);
	if (o.queue_depth < s->d.history_depth)
		fprintf(stderr,
			"zcast record: %s: its history of %u is deeper than the topic's queues "
			"(at most %u): its oldest %u are not recorded\n",
			topic, s->d.history_depth, o.queue_depth,
			s->d.history_depth - o.queue_depth);
	/* A late joiner: the topic's history first (all of it that fits the queue). Asked for up to
	 * the topic's capacity, not the length seen above: a message published before the open
	 * lengthens it, and asking for the old length would leave out the oldest. */
	o.history = st.history_capacity < o.queue_depth ? st.history_capacity : o.queue_depth;
	s->d.queue_depth = o.queue_depth;
	s->channel = -1;
	int r = zcast_sub_open(topic, &o, &s->sub);
	int id = -1;
	if (r == 0 && rec_heads_reserve(&R->heads, R->nsubs + 1) &&
	    zcast_waitset_add_sub(R->ws, s->sub, s, &id) == 0 &&
	    cli_append((void **)&R->subs, &R->nsubs, &R->cap_subs, &s, sizeof s))
		return 1;
	if (id >= 0)
		zcast_waitset_remove(R->ws, id);
	if (s->sub)
		zcast_sub_close(s->sub);
	fprintf(stderr, "zcast record: cannot record %s: %s\n", topic,
		r < 0 ? zcast_last_error() : "out of memory");
	free(s);
	return 0;
}

struct scan {
	struct recorder *R;
	char (*found)[256];
	int n, cap;
};

static int scan_one(const char *topic, void *ctx)
{
	struct scan *sc = ctx;
	if (!wanted(sc->R->c, topic))
		return 0;
	for (int i = 0; i < sc->R->nsubs; i++)
		if (!strcmp(sc->R->subs[i]->d.topic, topic))
			return 0;
	char name[256];
	snprintf(name, sizeof name, "%s", topic);
	return !cli_append((void **)&sc->found, &sc->n, &sc->cap, name, sizeof name);
}

/* Without inotify, new topics are looked for this often; a topic file found before its topic was
 * whole is looked at again with a backoff (rec_pending.c). */
#define REC_POLL_NS 250000000

/* Joins every wanted topic not yet recorded (outside the listing's callback: joining creates).
 * With the inotify watch, the next scan is due only when a topic file appears (the guard), or
 * when a file that was not a topic yet is due for another look. */
static void scan(struct recorder *R)
{
	struct scan sc = {R, NULL, 0, 0};
	zcast_topic_list(R->domain, scan_one, &sc);
	int64_t now = cli_now_ns();
	for (int i = 0; i < sc.n; i++) {
		if (!rec_pending_due(&R->pending, sc.found[i], now))
			continue;
		int r = subscribe(R, sc.found[i]);
		if (r < 0)
			rec_pending_failed(&R->pending, sc.found[i], zcast_last_error(), now);
		else
			rec_pending_forget(&R->pending, sc.found[i]);
		if (r > 0 && !R->quiet)
			fprintf(stderr, "%szcast record: recording %s\n", isatty(2) ? "\r\033[K" : "",
				sc.found[i]);
	}
	free(sc.found);
	int64_t retry = rec_pending_sweep(&R->pending),
		poll = R->watch ? INT64_MAX : now + REC_POLL_NS;
	R->next_scan = retry < poll ? retry : poll;
}

static int record_msg(struct recorder *R, struct rec_sub *s, zcast_msg *m)
{
	if (!R->w && open_piece(R) != 0) /* the next piece opens with its first message */
		return -1;
	if (s->channel < 0) {
		/* Described again now that it has published: a topic found while its first
		 * publisher was still joining may not have shown its type yet. */
		struct rec_topic_desc d;
		if (rec_topic_describe(R->domain, s->d.topic, &d) == 0 && d.type_name[0]) {
			d.queue_depth = s->d.queue_depth;
			s->d = d;
		}
		bool warn;
		s->channel = rec_channel_add(R->w, &s->d, &warn);
		if (warn && R->npieces == 1)
			fprintf(stderr,
				"zcast record: %s: type %s is neither shipped nor in a type library "
				"with its .msg text (on %s); its schema has no text\n",
				s->d.topic, s->d.type_name, zcast_types_path());
		if (s->channel < 0)
			return -1;
	}
	const uint8_t *p = zcast_msg_data(m);
	size_t n = zcast_msg_size(m), skip = s->d.typed ? ZCAST_TYPED_HEADER_OFFSET : 0;
	if (!p) {
		s->stale++; /* gone before we read it: a loss like a drop */
		return 0;
	}
	if (n < skip)
		return 0; /* not a typed message after all: nothing to keep */
	uint64_t t = (uint64_t)(zcast_msg_time_ns(m) + R->wall_offset);
	if (bag_writer_message(R->w, s->channel, (uint32_t)zcast_msg_sequence(m), t, t, p + skip,
			       n - skip) != 0)
		return -1;
	struct rec_piece *piece = &R->pieces[R->npieces - 1];
	if (!piece->messages || t < piece->start)
		piece->start = t;
	if (!piece->messages || t > piece->end)
		piece->end = t;
	piece->messages++;
	s->messages++;
	s->bytes += n - skip;
	R->messages++;
	R->bytes += n - skip;
	return 0;
}

/* Takes the topic's next message as its head, unless it holds one (or, stopping, has taken what
 * was queued when the recording ended). */
static void take_head(struct recorder *R, struct rec_sub *s)
{
	zcast_msg *m;
	if (s->held || (R->stopping && s->left <= 0) || zcast_take(s->sub, &m) != 0)
		return;
	if (R->stopping)
		s->left--;
	s->held = true;
	rec_heads_push(&R->heads, s, m, zcast_msg_time_ns(m));
}

/* Waits up to timeout_ns for the wait set: the number of events in R->ev (0: none). */
static int wait_ready(struct recorder *R, int64_t timeout_ns)
{
	int n = zcast_waitset_wait(R->ws, timeout_ns, R->ev, R->cap_ev);
	for (int i = 0; i < n; i++)
		if (R->ev[i].kind == ZCAST_WS_GUARD) /* a topic file appeared */
			R->next_scan = 0;
	return n > 0 ? n : 0;
}

/* One round of the take loop, after a wake-up: the clock is read once, then every topic ready
 * by then gives its head (the wait set asked again: a topic that became ready between the wake-up
 * and the reading is in this round too), then the oldest head is written while its time is not
 * after that reading, and its topic gives the next one. Messages published after the reading wait
 * for the next round, so a message of another topic published before them, and not yet taken,
 * still goes first. A head held since an earlier round is written in this one whatever its time
 * (rec_heads_clamp). Stopping: every topic's head and what was queued, all of it. */
static void take_round(struct recorder *R)
{
	int64_t now = R->stopping ? INT64_MAX : cli_now_ns();
	rec_heads_clamp(&R->heads, now);
	int n = R->stopping || !R->nsubs ? 0 : wait_ready(R, 0);
	for (int i = 0; i < n; i++)
		if (R->ev[i].kind == ZCAST_WS_SUB)
			take_head(R, R->ev[i].user);
	for (int i = 0; R->stopping && i < R->nsubs; i++)
		take_head(R, R->subs[i]);
	const struct rec_head *top;
	while (!R->failed && (top = rec_heads_top(&R->heads)) && top->key <= now) {
		struct rec_head h = rec_heads_pop(&R->heads);
		struct rec_sub *s = h.owner;
		s->held = false;
		if (record_msg(R, s, h.m) != 0)
			R->failed = true;
		zcast_msg_drop(h.m);
		take_head(R, s);
	}
}

static void progress(struct recorder *R, bool last)
{
	int64_t now = cli_now_ns();
	if (R->quiet || (!last && now - R->last_progress < 1000000000))
		return;
	R->last_progress = now;
	update_drops(R);
	char mb[32];
	cli_fmt_bytes((double)R->bytes, mb, sizeof mb);
	bool tty = isatty(2);
	fprintf(stderr, "%s%" PRIu64 " messages, %s, %d topics, file %d", tty ? "\r\033[K" : "",
		R->messages, mb, R->nsubs, R->npieces - 1);
	int shown = 0, more = 0;
	uint64_t more_dropped = 0; /* of the topics beyond the 4 named: summed up, not left out */
	for (int i = 0; i < R->nsubs; i++) {
		uint64_t d = R->subs[i]->dropped;
		if (!d)
			continue;
		if (shown++ < 4) {
			fprintf(stderr, "%s %s %" PRIu64, shown == 1 ? "; dropped:" : ",",
				R->subs[i]->d.topic, d);
		} else {
			more++;
			more_dropped += d;
		}
	}
	if (more)
		fprintf(stderr, " … and %d more topic%s (%" PRIu64 " dropped)", more,
			more == 1 ? "" : "s", more_dropped);
	fprintf(stderr, "%s", tty && !last ? "" : "\n");
}

/* Reached --max-bytes, by the writer's estimate of the compressed file. Until a chunk of this
 * piece is written the estimate counts records 1:1: when that reaches the limit, the open chunk
 * is sealed and written now to learn how well the piece compresses (a wait of one chunk, at most
 * --max-bytes of records: the queues absorb it), and the estimate is made again. */
static bool piece_full(struct recorder *R)
{
	bool measured, queued;
	if (!R->w || !R->max_bytes || bag_writer_size(R->w, &measured, &queued) < R->max_bytes)
		return false;
	if (!measured && (bag_writer_flush(R->w) != 0 || bag_writer_wait(R->w) != 0)) {
		R->failed = true;
		return false;
	}
	return measured || bag_writer_size(R->w, &measured, &queued) >= R->max_bytes;
}

static void housekeeping(struct recorder *R, int64_t now)
{
	if (now >= R->next_scan)
		scan(R);
	if (R->w && now - R->last_flush >= 1000000000) {
		/* At most a second of messages is lost to kill -9: every sealed chunk is whole. */
		if (bag_writer_flush(R->w) != 0)
			R->failed = true;
		R->last_flush = now;
	}
	bool by_size = piece_full(R);
	bool by_time = R->w && R->max_dur_ns && now - R->file_start >= R->max_dur_ns;
	/* Split: the next piece is opened by the next message, so no piece is left empty. */
	if ((by_size || by_time) && bag_writer_messages(R->w) > 0 && close_piece(R, false) != 0)
		R->failed = true;
	if (R->split && rec_split_failed(R->split)) /* a piece closed behind could not be written */
		R->failed = true;
	progress(R, false);
}

static int loop(struct recorder *R, int64_t stop_at)
{
	while (!cli_stop && !R->failed && (!stop_at || cli_now_ns() < stop_at)) {
		if (R->cap_ev < R->nsubs + 2) { /* every ready topic in one round */
			int cap = R->nsubs + 64;
			zcast_ws_event *ev = realloc(R->ev, (size_t)cap * sizeof *ev);
			if (!ev) {
				R->failed = true;
				break;
			}
			R->ev = ev;
			R->cap_ev = cap;
		}
		/* A head held back (published after the clock was read) is written next round. */
		int64_t timeout = R->heads.n ? 0 : 100000000;
		if (R->nsubs || R->watch) /* else nothing to wait for: the next scan is all there is */
			wait_ready(R, timeout);
		else
			cli_sleep_ns(100000000);
		take_round(R);
		housekeeping(R, cli_now_ns());
	}
	/* The heads held and what was queued when we stopped, in order. */
	for (int i = 0; i < R->nsubs; i++)
		R->subs[i]->left = zcast_sub_queued(R->subs[i]->sub);
	R->stopping = true;
	take_round(R);
	rec_heads_free(&R->heads); /* empty unless a write failed */
	free(R->ev);
	progress(R, true);
	return R->failed ? CLI_EFAIL : CLI_OK;
}

static int setup(struct recorder *R, struct cli *c)
{
	R->c = c;
	R->domain = cli_domain(c);
	static char dflt[64];
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(dflt, sizeof dflt, "zcast_bag_%Y_%m_%d-%H_%M_%S", &tm);
	const char *out = cli_str(c, "output", dflt);
	if (rec_outdir_name(out, R->dir, sizeof R->dir) != 0)
		return cli_usage_error(c, "--output: '%.100s...' is too long", out);
	R->lossless = cli_flag(c, "lossless");
	R->quiet = cli_flag(c, "quiet");
	R->depth = (uint32_t)cli_long(c, "queue", 256, 1, 1 << 20);
	const char *comp = cli_str(c, "compression", "zstd");
	R->wo.compression = !strcmp(comp, "none") ? "" : comp;
	if (!bag_compression_known(R->wo.compression) || !strcmp(comp, ""))
		return cli_usage_error(c, "--compression: '%s' is not zstd, lz4 or none", comp);
	R->wo.chunk_size = (size_t)cli_long(c, "chunk-size", 4 << 20, 4096, 1L << 30);
	R->wo.no_crc = cli_flag(c, "no-crc");
	R->wo.profile = "ros2";
	R->wo.library = "zcast record";
	R->wo.threaded = true;
	R->max_bytes = (uint64_t)cli_long(c, "max-bytes", 0, 0, 1L << 50);
	R->max_dur_ns = (int64_t)(cli_double(c, "max-duration", 0, 0, 1e7) * 1e9);
	for (int i = 0; i < c->npos; i++)
		if (c->pos[i][0] != '/')
			return cli_usage_error(c, "TOPIC_PATTERN: '%s' does not start with '/'",
					       c->pos[i]);
	if (rec_outdir_make(R->dir, R->base, sizeof R->base) != 0)
		return CLI_EFAIL;
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	R->wall_offset = ((int64_t)rt.tv_sec - mt.tv_sec) * 1000000000 + (rt.tv_nsec - mt.tv_nsec);
	return zcast_waitset_create(&R->ws) == 0 ? CLI_OK : CLI_EFAIL;
}

/* New topics by inotify (rec_watch.c), before the first scan so none is missed in between; where
 * inotify is not available, they are polled for. */
static void watch_topics(struct recorder *R)
{
	int id;
	if (zcast_guard_create(&R->topics_guard) != 0)
		return;
	if (zcast_waitset_add_guard(R->ws, R->topics_guard, NULL, &id) == 0 &&
	    rec_watch_start(R->domain, R->topics_guard, &R->watch) == 0)
		return;
	if (!R->quiet)
		fprintf(stderr, "zcast record: no inotify on /dev/shm (%s): looking for new topics "
				"every %d ms\n",
			strerror(errno), REC_POLL_NS / 1000000);
}

static int run(struct cli *c)
{
	struct recorder R;
	memset(&R, 0, sizeof R);
	double duration = cli_double(c, "duration", 0, 0, 1e9);
	int r = setup(&R, c);
	if (r != CLI_OK)
		return r;
	if ((R.max_bytes || R.max_dur_ns) && rec_split_start(&R.split) != 0)
		R.split = NULL; /* no thread: pieces are opened and closed by the take loop */
	if (open_piece(&R) != 0) {
		rec_split_stop(R.split);
		return CLI_EFAIL;
	}
	if (!R.quiet)
		fprintf(stderr, "zcast record: domain %s into %s/ (%s chunks%s)\n", R.domain, R.dir,
			R.wo.compression[0] ? R.wo.compression : "uncompressed",
			R.lossless ? ", lossless" : "");
	R.last_flush = cli_now_ns();
	watch_topics(&R);
	scan(&R);
	r = loop(&R, duration > 0 ? cli_now_ns() + (int64_t)(duration * 1e9) : 0);
	if (close_piece(&R, true) != 0 || rec_split_stop(R.split) != 0)
		r = CLI_EFAIL;
	rec_watch_stop(R.watch); /* before the guard it triggers */
	zcast_waitset_destroy(R.ws); /* before its subscribers and guard: it owns neither */
	if (R.topics_guard)
		zcast_guard_destroy(R.topics_guard);
	for (int i = 0; i < R.nsubs; i++) {
		zcast_sub_close(R.subs[i]->sub);
		free(R.subs[i]);
	}
	free(R.subs);
	free(R.pieces);
	rec_pending_free(&R.pending);
	return r;
}

static const struct cli_opt opts[] = {
    {"output", 'o', "DIR", "directory of the recording (default zcast_bag_<date>-<time>)"},
    {"max-bytes", 'b', "BYTES", "start a new file when this one reaches BYTES"},
    {"max-duration", 0, "SECONDS", "start a new file after SECONDS"},
    {"duration", 0, "SECONDS", "stop after SECONDS (default: until Ctrl-C)"},
    {"lossless", 0, NULL, "FULL subscribers: publishers wait for the recorder (never a drop)"},
    {"queue", 0, "N", "queue depth of each subscriber (default 256, at most the topic's limit)"},
    {"compression", 0, "NAME", "chunk compression: zstd (default), lz4 or none"},
    {"chunk-size", 0, "BYTES", "uncompressed bytes per chunk (default 4194304)"},
    {"no-crc", 0, NULL, "no CRC of chunks and data (MCAP's 0: not computed; default: computed)"},
    {"quiet", 'q', NULL, "no progress line"},
    {0},
};

const struct cli_cmd cmd_record = {
    .name = "record",
    .args = "[TOPIC_PATTERN...]",
    .summary = "record topics into MCAP files (rosbag2's format), split by size or time",
    .details =
	"Records every topic of the domain, or those matching the patterns (shell globs:\n"
	"'/camera/*'), including topics that appear while it runs. Files are DIR/DIR_N.mcap,\n"
	"indexed by DIR/metadata.yaml (rosbag2's); DIR is new or empty (one that holds\n"
	"anything is refused). Subscribers are DROP_OLD with a deep\n"
	"queue: a publisher never waits for the recorder, and every message lost is counted\n"
	"per topic (progress line, and the files' \"zcast\" metadata). --lossless makes them\n"
	"FULL. Topics with history give it first. Chunks are sealed at least every second:\n"
	"a recorder killed with kill -9 leaves them readable (zcast bag reindex).\n",
    .opts = opts,
    .min_pos = 0,
    .max_pos = CLI_MAX_POS,
    .run = run,
};
