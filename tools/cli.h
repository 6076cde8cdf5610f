/* zcast command-line tool: what the command files share (argument parsing, output helpers, topic
 * snapshots). One command per cmd_*.c file. */
#ifndef ZCAST_CLI_H
#define ZCAST_CLI_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <zcast/cdr.h>
#include <zcast/zcast.h>

/* Exit codes scripts can rely on (also in `zcast --help` and zcast(1)). */
enum {
	CLI_OK = 0,
	CLI_EFAIL = 1,	  /* runtime failure (system error, corrupt segment, publish failed, ...) */
	CLI_EUSAGE = 2,	  /* bad command line */
	CLI_ENOTOPIC = 3, /* no such topic */
	CLI_ETIMEOUT = 4, /* --timeout ran out before anything was received */
	CLI_EREFUSED = 5, /* refused: typed topic without --force, topic with live members */
	CLI_EPROBLEMS =
	    6, /* doctor found something to fix; gc --dry-run found something to reclaim */
};

/* An option of a command. `arg` names the value (NULL: a flag). */
struct cli_opt {
	const char *name; /* long name, without "--" */
	char shrt;	  /* short letter, or 0 */
	const char *arg;
	const char *help;
};

struct cli;
struct cli_cmd {
	const char *name;
	const char *args;    /* positional arguments, for the usage line */
	const char *summary; /* one line, in `zcast --help` */
	const char *details; /* further help text, or NULL */
	const struct cli_opt *opts;
	int min_pos, max_pos;
	bool json; /* accepts --json */
	int (*run)(struct cli *c);
};

#define CLI_MAX_OPTS 24
#define CLI_MAX_POS INT_MAX /* max_pos of a command that takes any number (record, bag reindex) */
struct cli {
	const struct cli_cmd *cmd;
	const char *domain; /* NULL: $ZCAST_DOMAIN or "default" */
	bool json;
	int npos;
	const char **pos; /* npos of them (malloc'ed by cli_parse: room for every argument) */
	const char *val[CLI_MAX_OPTS]; /* value of opts[i], or "" for a set flag; NULL if absent */
};

/* ---- arguments (cli_args.c) ---- */
/* Parses argv after the command name into c. Returns CLI_OK, CLI_EUSAGE (message printed), or -1
 * when --help was asked for (help printed). c->pos is malloc'ed (free it after the command). */
int cli_parse(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv);
void cli_cmd_help(const struct cli_cmd *cmd, FILE *f);
bool cli_flag(const struct cli *c, const char *name);
const char *cli_str(const struct cli *c, const char *name, const char *dflt);
/* Numeric option values; a malformed or out-of-range value exits with CLI_EUSAGE. */
long cli_long(const struct cli *c, const char *name, long dflt, long min, long max);
double cli_double(const struct cli *c, const char *name, double dflt, double min, double max);
/* Prints "zcast CMD: message" on stderr and returns CLI_EUSAGE. */
int cli_usage_error(const struct cli *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- common helpers (cli_util.c) ---- */
extern volatile sig_atomic_t cli_stop; /* set by SIGINT / SIGTERM / SIGHUP (unless nohup) */
void cli_catch_signals(void);
int64_t cli_now_ns(void);
/* Sleeps up to ns, returning early when cli_stop is set. */
void cli_sleep_ns(int64_t ns);
const char *cli_domain(const struct cli *c);
/* Reports a library error "zcast CMD: sentence (detail)" and maps it to an exit code. */
int cli_fail(const struct cli *c, int err);
/* The type hash as text: the one place that knows its width. */
void cli_type_hash(const zcast_topic_stat *st, char *out, size_t n);
/* /proc/PID/comm, or "?" when the process is gone or not visible. */
void cli_proc_name(int32_t pid, char *out, size_t n);
/* Replaces every control byte and every byte from 0x7f up with '?', in place: what a member wrote
 * (names, error texts quoting them) reaches no terminal as an escape sequence. Returns s. */
char *cli_safe(char *s);
/* cli_safe on a copy of s in out (n bytes, truncated). Returns out. */
const char *cli_safe_copy(const char *s, char *out, size_t n);
/* zcast_last_error() made safe to print (an error text may quote what a member wrote). */
const char *cli_error_text(void);
const char *cli_policy_name(int policy);
const char *cli_role_name(int role);
/* Human units: "12.3 kB", "4.56 ms". */
void cli_fmt_bytes(double bytes, char *out, size_t n);
void cli_fmt_ns(double ns, char *out, size_t n);
/* Appends one item of `size` bytes to a growing array (*v, *n items, room for *cap). False when
 * out of memory. */
bool cli_append(void **v, int *n, int *cap, const void *item, size_t size);
/* printf for table rows: the line without trailing blanks (padded columns left empty). */
void cli_row(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A JSON string literal (quoted and escaped): valid UTF-8 is kept as it is, control characters are
 * escaped, and bytes that are not UTF-8 become U+FFFD (JSON text is Unicode). */
void cli_json_str(FILE *f, const char *s);
/* The same for n bytes (may hold NULs). */
void cli_json_strn(FILE *f, const char *s, size_t n);

/* ---- topic snapshots (cli_topics.c) ---- */
struct cli_topic {
	char name[256];
	int err; /* 0, or the error reading it (then only name is valid) */
	zcast_topic_stat st;
	char type_hash[80];
	uint32_t live_pubs, live_subs, dead; /* dead members not yet reclaimed */
	uint64_t dropped, rejected;	     /* summed over subscribers */
	uint32_t refusing;		     /* FULL subscribers whose queue is full now */
	double fill;			     /* fullest subscriber queue, 0..1 */
	uint64_t last_size;		     /* size of the newest message of any publisher */
	int64_t when_ns;
};
/* Snapshot of every topic of the domain, sorted by name. Returns the count (or a negative error);
 * *out is malloc'ed. */
int cli_topics(const char *domain, struct cli_topic **out);
int cli_topic_read(const char *domain, const char *name, struct cli_topic *t);
/* Per-second rate of a counter between two snapshots. */
double cli_rate(uint64_t before, uint64_t after, int64_t dt_ns);
/* Prints topics of the domain whose names are close to `topic` (a likely typo) on f. */
void cli_similar_topics(const char *domain, const char *topic, FILE *f);

/* A subscriber for watching: untyped and DROP_OLD with a short queue (cli_watch_depth), so
 * watching never slows a publisher down. While the topic has no publisher, says so on stderr (once
 * per change), with similarly named topics. */
struct cli_watch {
	zcast_sub *sub;
	const char *domain, *topic;
	const char *cmd;
	int64_t joined_ns, next_check_ns;
	int had_publisher; /* -1 unknown, 0 no, 1 yes */
	zcast_msg **early;   /* the history, taken right after the join (cli_watch_take) */
	uint32_t n_early, next_early;
	uint32_t n_history;  /* how many of the early ones came from the history */
};
/* Queue depth of a watcher: a quarter of the smallest publisher pool (1 to 16; 2 while there is no
 * publisher). Queued and held messages occupy the publisher's slots; a deep queue behind a slow
 * terminal would leave it none and make it wait for us. A watcher holds one message at a time, and
 * the history it asked for from the join until it prints it: at most depth + history + 1 slots. */
uint32_t cli_watch_depth(const char *domain, const char *topic);
int cli_watch_open(struct cli_watch *w, const struct cli *c, const char *topic, uint32_t history);
/* Waits up to timeout_ns for a message (checking for publishers on the way). 0 when one is queued.
 */
int cli_watch_wait(struct cli_watch *w, int64_t timeout_ns);
/* The next message: the history taken at the join first, then the queue. 0 or ZCAST_EAGAIN.
 * *from_history (may be NULL) says whether it came from the topic's history. */
int cli_watch_take(struct cli_watch *w, zcast_msg **m, bool *from_history);
void cli_watch_close(struct cli_watch *w);

/* ---- payload printers (printers.c): per type name, so typed decoding can plug in ---- */
struct cli_print_opts {
	bool hex;	  /* full hex dump */
	size_t max_bytes; /* 0: all */
};
struct cli_printer {
	const char *type_name; /* NULL: the raw printer, for any type */
	void (*text)(FILE *f, const uint8_t *p, size_t n, const struct cli_print_opts *o);
	/* Writes the payload as JSON members (`"key":value,...`, no braces). */
	void (*json)(FILE *f, const uint8_t *p, size_t n, const struct cli_print_opts *o);
};
const struct cli_printer *cli_printer_for(const char *type_name);

/* ---- services (cli_services.c) ---- */
/* "requests" when topic is a service's request topic (<service>/_rq), "responses" for one of its
 * response topics (<service>/_rs/c<id>_<nonce>), else NULL; *service gets the service name. */
const char *cli_service_part(const char *topic, char *service, size_t n);
struct cli_service {
	char name[256];
	struct cli_topic rq; /* the request topic (type: the service type) */
	uint32_t servers, clients;
	uint64_t pending; /* requests queued at servers or held by them (their slots not released) */
};
/* Snapshot of every service of the domain, by name. Returns the count or a negative error; *out is
 * malloc'ed. */
int cli_services(const char *domain, struct cli_service **out);
/* The same from a topic snapshot (t, n as cli_topics gives them). */
int cli_services_of(const struct cli_topic *t, int n, struct cli_service **out);
/* The service type named `name` (pkg/srv/Name or pkg/Name): a shipped one, else a type library's.
 * 0 or a library error (zcast_last_error says why). */
int cli_service_type_named(const char *name, const zcast_service_type **out);
/* The service's JSON members, without braces (service, type, type_hash, servers, clients, pending). */
void cli_service_json(FILE *f, const struct cli_service *s);

/* ---- commands ---- */
extern const struct cli_cmd cmd_list, cmd_info, cmd_echo, cmd_hz, cmd_bw, cmd_delay, cmd_pub,
    cmd_top, cmd_gc, cmd_rm, cmd_doctor, cmd_record, cmd_play, cmd_bag, cmd_interface,
    cmd_service;

#endif
