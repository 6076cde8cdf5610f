/* zcast play: publishes a recording on its original timing against CLOCK_MONOTONIC (scaled by
 * --rate), each message read from the file straight into a zcast loan. Typed channels (cdr) get
 * their topic's type identity back, and channels of topics that had history (transient local)
 * publish with that history depth.
 * Nothing slow happens on the replay's clock: every file is opened (and checked, which reads all
 * of it) once, before the clock starts, and stays open; a message is read, decompressed and copied
 * into its loan before its time, and only published at it; and a pass's clock starts when its
 * first message goes out, so the time it took to get that one ready delays no later message. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <zcast/typed.h>
#include <zcast/waitset.h>

#include "play_clock.h"
#include "rec.h"

struct play_chan {
	struct rec_topic_desc d;
	char out[256]; /* topic published (after --remap) */
	bool selected;
	size_t max_len;
	uint64_t messages, last; /* in the recording, and the last one's log time */
	zcast_pub *pub;
	uint64_t sent;
};

struct player {
	const struct cli *c;
	struct rec_piece *pieces;
	struct bag_reader *readers; /* one per piece, opened and checked before the first publish */
	int npieces, nopen;
	struct play_chan *ch;
	int nch, cap;
	int *map; /* channel id of the open file -> index in ch */
	uint64_t first;
	bool any;
	double rate;
	uint32_t slots; /* --slots */
	struct play_spin spin; /* the last stretch before a message's time is spun (play_spin.h) */
};

static bool in_list(const char *list, const char *topic)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (fnmatch(t, topic, 0) == 0)
			return true;
	return false;
}

/* The topic a channel is published on: --remap FROM:=TO[,FROM:=TO...]. */
static void remap(const char *list, const char *topic, char *out, size_t n)
{
	snprintf(out, n, "%s", topic);
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", list ? list : "");
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *sep = strstr(t, ":=");
		if (sep && (size_t)(sep - t) == strlen(topic) && !strncmp(t, topic, strlen(topic)))
			snprintf(out, n, "%s", sep + 2);
	}
}

/* Maps the open file's channels to ours (by topic), adding new ones. */
static int map_channels(struct player *P, const struct bag_reader *r)
{
	for (int i = 0; i < r->nchannels; i++) {
		const struct bag_channel *bc = &r->channels[i];
		int k = 0;
		while (k < P->nch && strcmp(P->ch[k].d.topic, bc->topic))
			k++;
		if (k == P->nch) {
			struct play_chan pc;
			memset(&pc, 0, sizeof pc);
			rec_channel_read(r, bc, &pc.d);
			const char *topics = cli_str(P->c, "topics", NULL);
			pc.selected = !topics || in_list(topics, pc.d.topic);
			char said[512];
			if (pc.d.foreign) /* rosbag2's: the type as zcast knows it, or untyped */
				rec_foreign_type(&pc.d, said, sizeof said);
			if (pc.d.foreign && pc.selected && !cli_flag(P->c, "quiet"))
				fprintf(stderr, "zcast play: %s: %s\n", pc.d.topic, said);
			remap(cli_str(P->c, "remap", NULL), pc.d.topic, pc.out, sizeof pc.out);
			if (!cli_append((void **)&P->ch, &P->nch, &P->cap, &pc, sizeof pc))
				return -1;
		}
		P->map[bc->id] = k;
	}
	return 0;
}

static int open_file(const struct rec_piece *p, struct bag_reader *r)
{
	if (bag_open(p->path, r) == 0)
		return 0;
	fprintf(stderr, "zcast play: %s\n", r->err.text);
	bag_close(r);
	return -1;
}

/* Every piece stays open for the whole replay, a descriptor each (the reader reads with pread):
 * room for a recording of many pieces beside what zcast itself opens. */
static void room_for_files(int pieces)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)pieces + 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl); /* not raised: a piece over the limit fails to open, saying so */
}

/* First pass, before anything is published: every piece opened and checked (records, chunk
 * CRCs, indexes, summary: a bad piece is "file: offset: what" now, not half-way through the
 * replay), its channels, the largest message of each (slot size), the first time. The pieces stay
 * open: the replay moves from one to the next without opening (and walking) a file at that moment. */
static int survey(struct player *P)
{
	P->readers = calloc((size_t)P->npieces, sizeof *P->readers);
	if (!P->readers)
		return -1;
	room_for_files(P->npieces);
	for (int f = 0; f < P->npieces; f++) {
		struct bag_reader *r = &P->readers[f];
		if (open_file(&P->pieces[f], r) != 0)
			return -1;
		P->nopen++;
		if (map_channels(P, r) != 0)
			return -1;
		if (r->truncated)
			fprintf(stderr, "zcast play: %s: no footer (its recorder died); playing its "
					"complete chunks\n",
				P->pieces[f].path);
		struct bag_message m;
		int k;
		while ((k = bag_next_lazy(r, &m)) > 0) { /* sizes and times: no message data read */
			struct play_chan *pc = &P->ch[P->map[m.channel]];
			if (m.len > pc->max_len)
				pc->max_len = m.len;
			if (!pc->messages++ || m.log_time > pc->last)
				pc->last = m.log_time;
			if (!P->any || m.log_time < P->first)
				P->first = m.log_time;
			P->any = true;
		}
		if (k < 0) {
			fprintf(stderr, "zcast play: %s\n", r->err.text);
			return -1;
		}
		bag_idle(r);
	}
	return 0;
}

/* Whether a pass would publish nothing, and then why (on stderr): no topic selected, no message
 * on the selected ones, or all of them before --start-offset. --loop would go round and round over
 * nothing, a core at 100 %. */
static bool nothing_to_play(const struct player *P, uint64_t t0)
{
	const char *topics = cli_str(P->c, "topics", NULL), *rec = P->c->pos[0];
	bool selected = false, messages = false;
	uint64_t last = 0;
	for (int i = 0; i < P->nch; i++) {
		const struct play_chan *pc = &P->ch[i];
		selected |= pc->selected;
		if (pc->selected && pc->messages) {
			last = messages && last > pc->last ? last : pc->last;
			messages = true;
		}
	}
	if (!selected && topics)
		fprintf(stderr, "zcast play: nothing to play: --topics '%s' matches no topic of %s\n",
			topics, rec);
	else if (!messages)
		fprintf(stderr, "zcast play: nothing to play: no messages in %s%s\n", rec,
			topics ? " on the topics --topics selects" : "");
	else if (last < t0)
		fprintf(stderr,
			"zcast play: nothing to play: --start-offset %s is past the last message "
			"(%.3f s after the first) of %s\n",
			cli_str(P->c, "start-offset", ""), (double)(last - P->first) / 1e9, rec);
	return !messages || last < t0;
}

static int open_publishers(struct player *P)
{
	for (int i = 0; i < P->nch; i++) {
		struct play_chan *pc = &P->ch[i];
		if (!pc->selected)
			continue;
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.domain = cli_domain(P->c);
		o.type_name = pc->d.type_name[0] ? pc->d.type_name : NULL;
		memcpy(o.type_hash, pc->d.type_hash, sizeof o.type_hash);
		size_t need = pc->max_len + (pc->d.typed ? ZCAST_TYPED_HEADER_OFFSET : 0);
		o.slot_size = need > 64 ? need : 64;
		o.slot_count = P->slots;
		o.history_depth = pc->d.history_depth; /* transient local: late joiners get it */
		if (o.history_depth > 64)
			o.topic.history_capacity = o.history_depth;
		if (o.slot_count <= o.history_depth)
			o.slot_count = o.history_depth + 2;
		int r = zcast_pub_open(pc->out, &o, &pc->pub);
		if (r < 0) {
			fprintf(stderr, "zcast play: cannot publish %s: %s (%s)\n", pc->out,
				zcast_strerror(r), zcast_last_error());
			return -1;
		}
	}
	return 0;
}

static void wait_for_subscribers(struct player *P, long n)
{
	for (int i = 0; i < P->nch && !cli_stop; i++)
		while (P->ch[i].pub && zcast_pub_matched(P->ch[i].pub) < n && !cli_stop)
			cli_sleep_ns(10000000);
}

/* The message in a loan, ready to go: done before its deadline, so the deadline costs a publish
 * only (not a loan wait and a copy of up to megabytes). Its bytes go from the file (pread) or the
 * decompressed chunk straight into the loan. 0, a zcast error, or 1 when the file could not be
 * read (br->err: it was cut or changed since it was opened). */
static int prepare(struct bag_reader *br, struct play_chan *pc, const struct bag_message *m,
		   zcast_msg **out)
{
	size_t skip = pc->d.typed ? ZCAST_TYPED_HEADER_OFFSET : 0;
	zcast_msg *msg;
	int r;
	while ((r = zcast_loan_wait(pc->pub, m->len + skip, 200000000, &msg)) == ZCAST_ETIMEDOUT &&
	       !cli_stop)
		;
	if (r < 0)
		return r;
	uint8_t *p = zcast_msg_data(msg);
	memset(p, 0, skip); /* the typed prefix's reserved bytes */
	if (bag_message_read(br, m, p + skip) < 0) {
		zcast_msg_drop(msg);
		return 1;
	}
	*out = msg;
	return 0;
}

static int publish(struct play_chan *pc, zcast_msg *msg)
{
	int r;
	while (((r = zcast_publish_wait(pc->pub, msg, 200000000)) == ZCAST_ETIMEDOUT ||
		r == ZCAST_EAGAIN) &&
	       !cli_stop)
		;
	if (r < 0)
		zcast_msg_drop(msg);
	else
		pc->sent++;
	return r;
}

/* One pass's clock: a message of log time t is due at mono0 + (t - t0) / rate. */
struct pass {
	uint64_t t0;
	int64_t mono0;
	bool started; /* mono0 is set (by the pass's first message) */
};

/* The message, in its loan, waits for its time and goes out. The pass's first message is due
 * (t - t0) / rate after it was ready, and its clock is set when that message has gone out: so
 * b_i - b_0 >= (t_i - t_0) / rate for every later one, whatever getting the first ready cost. */
static int send_on_time(struct player *P, struct pass *T, struct play_chan *pc, uint64_t t,
			zcast_msg *msg)
{
	int64_t after = (int64_t)((double)(t - T->t0) / P->rate);
	play_clock_wait((T->started ? T->mono0 : play_clock_now()) + after, &P->spin, &cli_stop);
	if (cli_stop) {
		zcast_msg_drop(msg);
		return 0;
	}
	int x = publish(pc, msg);
	if (x < 0 && cli_stop)
		return 0; /* its wait for room was cut short by Ctrl-C: not a failure */
	if (x == 0 && !T->started) {
		T->mono0 = play_clock_now() - after;
		T->started = true;
	}
	return x;
}

static int play_file(struct player *P, struct bag_reader *r, struct pass *T)
{
	if (map_channels(P, r) != 0) /* this file's channel ids */
		return -1;
	struct bag_message m;
	int k = 0, x = 0;
	while (!cli_stop && (k = bag_next_lazy(r, &m)) > 0) {
		struct play_chan *pc = &P->ch[P->map[m.channel]];
		if (!pc->pub || m.log_time < T->t0)
			continue;
		/* Read (bag_next_lazy, prepare), decompressed and copied into a loan before its time. */
		zcast_msg *msg = NULL;
		if ((x = prepare(r, pc, &m, &msg)) == 0)
			x = send_on_time(P, T, pc, m.log_time, msg);
		else if (cli_stop)
			x = 0;
		if (x > 0) {
			fprintf(stderr, "zcast play: %s\n", r->err.text);
			x = -1;
			break;
		}
		if (x < 0) {
			fprintf(stderr, "zcast play: publish on %s failed: %s\n", pc->out,
				zcast_strerror(x));
			break;
		}
	}
	if (!cli_stop && k < 0)
		fprintf(stderr, "zcast play: %s\n", r->err.text);
	bag_idle(r); /* rewound for --loop, its chunk buffer freed */
	return x < 0 || (!cli_stop && k < 0) ? -1 : 0;
}

/* --topics and --remap, checked before any file is read: an entry that can match nothing is a
 * mistake, not a quiet no-op. */
static int check_lists(const struct cli *c)
{
	const char *topics = cli_str(c, "topics", NULL), *map = cli_str(c, "remap", NULL);
	if (topics && (!topics[0] || strlen(topics) >= 4096 || strstr(topics, ",,") ||
		       topics[0] == ',' || topics[strlen(topics) - 1] == ','))
		return cli_usage_error(c, "--topics: '%s' names no topic (want NAME_OR_GLOB[,...])",
				       topics);
	if (!map)
		return CLI_OK;
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", map) >= (int)sizeof buf)
		return cli_usage_error(c, "--remap: longer than %zu bytes", sizeof buf - 1);
	char *save, *t = strtok_r(buf, ",", &save);
	bool ok = t != NULL;
	for (; t && ok; t = strtok_r(NULL, ",", &save)) {
		char *sep = strstr(t, ":=");
		if (sep)
			*sep = 0;
		ok = sep && !zcast_topic_name_valid(t) && !zcast_topic_name_valid(sep + 2);
	}
	return ok ? CLI_OK
		  : cli_usage_error(c, "--remap: '%s' is not FROM:=TO[,...] with topic names", map);
}

static int run(struct cli *c)
{
	struct player P;
	memset(&P, 0, sizeof P);
	P.c = c;
	P.rate = cli_double(c, "rate", 1, 1e-6, 1e6);
	P.slots = (uint32_t)cli_long(c, "slots", 16, 2, 4096);
	const char *why = play_clock_setup(cli_flag(c, "realtime"));
	if (why)
		fprintf(stderr, "zcast play: --realtime: no SCHED_FIFO (%s); playing without\n", why);
	const char *spin = cli_str(c, "spin-us", "auto");
	bool learn = strcmp(spin, "auto") == 0;
	char *end = NULL;
	double us = learn ? 0 : strtod(spin, &end);
	if (!learn && (end == spin || *end || !(us >= 0 && us <= 1e6)))
		return cli_usage_error(c, "--spin-us: '%s' is not auto or microseconds from 0 to 1000000",
				       spin);
	play_spin_init(&P.spin, learn ? -1 : (int64_t)(us * 1e3), cli_flag(c, "realtime") && !why);
	double offset = cli_double(c, "start-offset", 0, 0, 1e9);
	long subs = cli_long(c, "wait-for-subscribers", 0, 0, 1024);
	if (check_lists(c) != CLI_OK)
		return CLI_EUSAGE;
	P.npieces = rec_pieces("play", c->pos[0], &P.pieces);
	P.map = calloc(65536, sizeof *P.map);
	int r = CLI_EFAIL;
	bool nothing = false;
	if (P.npieces > 0 && P.map && survey(&P) == 0 &&
	    !(nothing = nothing_to_play(&P, P.first + (uint64_t)(offset * 1e9))) &&
	    open_publishers(&P) == 0) {
		wait_for_subscribers(&P, subs);
		r = CLI_OK;
		do {
			struct pass T = {.t0 = P.first + (uint64_t)(offset * 1e9)};
			for (int f = 0; f < P.npieces && r == CLI_OK && !cli_stop; f++)
				if (play_file(&P, &P.readers[f], &T) != 0)
					r = CLI_EFAIL;
		} while (cli_flag(c, "loop") && r == CLI_OK && !cli_stop);
	}
	uint64_t sent = 0;
	for (int i = 0; i < P.nch; i++) {
		sent += P.ch[i].sent;
		if (P.ch[i].pub)
			zcast_pub_close(P.ch[i].pub);
	}
	if (nothing) /* as ros2 bag play: not a failure, unless asked to play it over and over */
		r = cli_flag(c, "loop") ? CLI_EFAIL : CLI_OK;
	else if (!cli_flag(c, "quiet") && r == CLI_OK)
		fprintf(stderr, "zcast play: published %" PRIu64 " messages\n", sent);
	for (int f = 0; f < P.nopen; f++)
		bag_close(&P.readers[f]);
	free(P.readers);
	free(P.ch);
	free(P.map);
	free(P.pieces);
	return r;
}

static const struct cli_opt opts[] = {
    {"rate", 'r', "FACTOR", "play FACTOR times as fast (default 1)"},
    {"loop", 'l', NULL, "start over at the end, until Ctrl-C"},
    {"start-offset", 0, "SECONDS", "skip the first SECONDS of the recording"},
    {"topics", 0, "LIST", "only these topics (comma-separated names or globs)"},
    {"remap", 0, "FROM:=TO,...", "publish topic FROM as TO"},
    {"wait-for-subscribers", 0, "N", "before playing, wait until every topic has N subscribers"},
    {"slots", 0, "N", "slots of each publisher's pool (default 16)"},
    {"spin-us", 0, "US|auto",
     "spin the last US microseconds before each message's time (default auto)"},
    {"realtime", 0, NULL, "run at SCHED_FIFO priority 10 where permitted (on time on a busy host)"},
    {"quiet", 'q', NULL, "no summary line (nor the type each rosbag2 topic is played with)"},
    {0},
};

const struct cli_cmd cmd_play = {
    .name = "play",
    .args = "RECORDING",
    .summary = "publish a recording (directory or .mcap file) on its original timing",
    .details =
	"Messages go out in file order, each at its recorded time relative to the first\n"
	"(CLOCK_MONOTONIC, scaled by --rate); a late message goes out at once. It sleeps to\n"
	"--spin-us before that time and spins the rest (auto: as late as recent wake-ups came, 20 us\n"
	"to 2 ms; 0: never spins); --realtime asks for SCHED_FIFO. Typed topics\n"
	"keep their type name and hash; topics recorded with history publish with it again.\n"
	"A publisher waits (never drops) when a FULL subscriber's queue is full. With nothing\n"
	"to play (--topics matches nothing, no messages) it says why and exits 0 (1 with --loop).\n",
    .opts = opts,
    .min_pos = 1,
    .max_pos = 1,
    .run = run,
};
