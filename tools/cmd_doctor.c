/* zcast doctor: checks what zcast needs from this host (/dev/shm, kernel features) and looks for
 * leftovers of crashed processes, and says what to do about each finding. Problems (exit 6) are
 * what breaks zcast or wastes memory; warnings (exit 0) are what degrades it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define TMPFS_MAGIC_NUMBER 0x01021994
#define SHM_SMALL (256ull << 20)

enum level { OK, WARN, PROBLEM };
static const char *const level_name[] = {"ok", "warn", "problem"};

struct doctor {
	const struct cli *c;
	int problems, warnings, shown;
};

/* One finding: a check, its level, what was seen and (unless ok) what to do. */
static void report(struct doctor *d, enum level lv, const char *check, const char *fix,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void report(struct doctor *d, enum level lv, const char *check, const char *fix,
		   const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	d->problems += lv == PROBLEM;
	d->warnings += lv == WARN;
	if (d->c->json) {
		printf("%s{\"check\":", d->shown++ ? "," : "");
		cli_json_str(stdout, check);
		printf(",\"status\":\"%s\",\"detail\":", level_name[lv]);
		cli_json_str(stdout, detail);
		printf(",\"fix\":");
		cli_json_str(stdout, lv == OK || !fix ? "" : fix);
		printf("}");
		return;
	}
	printf("%-7s %-16s %s\n", lv == OK ? "ok" : lv == WARN ? "WARN" : "PROBLEM", check, detail);
	if (lv != OK && fix)
		printf("%-7s %-16s fix: %s\n", "", "", fix);
}

static void check_shm(struct doctor *d)
{
	struct stat st;
	struct statfs fs;
	struct statvfs vfs;
	if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) {
		report(d, PROBLEM, "/dev/shm",
		       "mount a tmpfs on /dev/shm (mount -t tmpfs -o mode=1777 tmpfs /dev/shm)",
		       "missing: zcast keeps every topic there");
		return;
	}
	if (statfs("/dev/shm", &fs) == 0 && fs.f_type != TMPFS_MAGIC_NUMBER)
		report(d, WARN, "/dev/shm", "mount a tmpfs on /dev/shm",
		       "is not a tmpfs: segments may be written to disk");
	if (access("/dev/shm", W_OK | X_OK) != 0)
		report(d, PROBLEM, "/dev/shm permissions", "chmod 1777 /dev/shm",
		       "not writable by this user (mode %04o): no topic can be created",
		       (unsigned)(st.st_mode & 07777));
	else if ((st.st_mode & 01777) != 01777)
		report(d, WARN, "/dev/shm permissions", "chmod 1777 /dev/shm",
		       "mode %04o, expected 1777 (other users cannot create topics, or can delete "
		       "ours)",
		       (unsigned)(st.st_mode & 07777));
	else
		report(d, OK, "/dev/shm permissions", NULL, "mode 1777");
	if (statvfs("/dev/shm", &vfs) != 0)
		return;
	unsigned long long total = (unsigned long long)vfs.f_blocks * vfs.f_frsize,
			   avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	char t[32], a[32];
	cli_fmt_bytes((double)total, t, sizeof t);
	cli_fmt_bytes((double)avail, a, sizeof a);
	if (total < SHM_SMALL)
		report(d, WARN, "/dev/shm size",
		       "enlarge it (mount -o remount,size=1G /dev/shm; docker run --shm-size=1g)",
		       "%s in all: a publisher's pool is slots x slot size (default 32 x 64 KiB), "
		       "large "
		       "messages need more",
		       t);
	else if (avail < total / 10)
		report(d, WARN, "/dev/shm size",
		       "free space: remove leftovers (zcast gc --all, zcast rm)", "%s of %s free",
		       a, t);
	else
		report(d, OK, "/dev/shm size", NULL, "%s, %s free", t, a);
}

static void check_kernel(struct doctor *d)
{
	struct utsname u;
	if (uname(&u) == 0)
		report(d, OK, "kernel", NULL, "Linux %s", u.release);
	/* futex_waitv with no words fails with EINVAL where it exists, ENOSYS where it does not. */
	errno = 0;
	long r = syscall(SYS_futex_waitv, NULL, 0, 0, NULL, 0);
	if (r < 0 && errno == EINVAL)
		report(d, OK, "futex_waitv", NULL,
		       "available (wait sets sleep on all words in one call)");
	else
		report(d, WARN, "futex_waitv", "Linux >= 5.16 without a seccomp filter blocking it",
		       "refused (%s): wait sets fall back to slower polling of their words",
		       strerror(errno));
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd >= 0) {
		close(fd);
		report(d, OK, "pidfd_open", NULL, "available (peers' deaths are noticed at once)");
	} else {
		report(d, WARN, "pidfd_open", "Linux >= 5.3 without a seccomp filter blocking it",
		       "refused (%s): graph events about crashed peers come late", strerror(errno));
	}
	/* Liveness of members is an OFD lock: without it no crash can be told from a live process.
	 */
	char path[64];
	snprintf(path, sizeof path, "/dev/shm/zcast-doctor-%d", (int)getpid());
	int tf = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (tf < 0)
		return;
	unlink(path);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	if (fcntl(tf, F_OFD_GETLK, &fl) == 0)
		report(d, OK, "OFD locks", NULL, "available on /dev/shm");
	else
		report(d, PROBLEM, "OFD locks", "Linux >= 3.15 with a tmpfs /dev/shm",
		       "F_OFD_GETLK fails (%s): members cannot tell dead peers", strerror(errno));
	close(tf);
}

struct leftovers {
	struct doctor *d;
	const char *domain;
};

static int check_topic(const char *topic, void *ctx)
{
	struct leftovers *l = ctx;
	struct cli_topic t;
	char fix[160], what[300], service[256];
	const char *part = cli_service_part(topic, service, sizeof service);
	if (part && !strcmp(part, "responses"))
		return 0; /* check_responses says what a client left behind */
	snprintf(what, sizeof what, "%s %s", l->domain, topic);
	if (cli_topic_read(l->domain, topic, &t) != 0) {
		if (t.err == ZCAST_ENOENT || t.err == ZCAST_EAGAIN)
			return 0; /* gone meanwhile, or being created or recreated right now */
		snprintf(fix, sizeof fix,
			 "zcast -d %s info %s says more; zcast -d %s rm %s removes it", l->domain,
			 topic, l->domain, topic);
		report(l->d, t.err == ZCAST_EPERM ? WARN : PROBLEM, what, fix, "cannot be read: %s",
		       zcast_strerror(t.err));
		return 0;
	}
	/* A live process that has the topic open without being a live member is creating it,
	 * joining, leaving or collecting it right now (zcast_topic_stat.in_use): not a leftover. */
	if (t.st.in_use && !t.live_pubs && !t.live_subs)
		return 0;
	if (t.dead && !t.live_pubs && !t.live_subs) {
		snprintf(fix, sizeof fix, "zcast -d %s gc --all", l->domain);
		report(l->d, PROBLEM, what, fix, "leftover: %u dead member(s), none alive", t.dead);
	} else if (t.dead) {
		snprintf(fix, sizeof fix, "zcast -d %s gc %s (zcast gc --dry-run lists them)",
			 l->domain, topic);
		report(l->d, PROBLEM, what, fix, "%u dead member(s) beside live ones", t.dead);
	} else if (!t.live_pubs && !t.live_subs && !t.st.retain) {
		snprintf(fix, sizeof fix, "zcast -d %s rm %s", l->domain, topic);
		report(l->d, PROBLEM, what, fix, "leftover: no member and not retained");
	}
	return 0;
}

/* Pool segments of a domain that has no topic at all cannot belong to anything. */
static void check_pools(struct doctor *d, const char *domain, int topics)
{
	DIR *dir = opendir("/dev/shm");
	if (!dir)
		return;
	char prefix[64];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.@", domain), pools = 0;
	struct dirent *e;
	while ((e = readdir(dir)))
		pools += strncmp(e->d_name, prefix, (size_t)n) == 0;
	closedir(dir);
	if (pools && !topics) {
		char fix[128];
		snprintf(fix, sizeof fix, "rm /dev/shm/zcast.%s.@*", domain);
		report(d, PROBLEM, domain, fix, "%d pool segment(s) of topics that no longer exist",
		       pools);
	}
}

/* A service with clients and no server: their calls wait for one (or fail with ZCAST_ENOSERVER). */
static int check_servers(struct doctor *d, const char *domain, const struct cli_service *s)
{
	if (!s->clients || s->servers)
		return 0;
	char what[300];
	snprintf(what, sizeof what, "%s service %s", domain, s->name);
	report(d, WARN, what, "start its server (zcast service info shows the clients)",
	       "%u client(s), no server: their calls wait for one or fail", s->clients);
	return 1;
}

/* The service's type hash against the installed definition of its type (shipped or a type
 * library): members of one topic always agree (a member of another hash is refused at open, both
 * hashes named), so a difference means the running ones were built from another .srv than the
 * installed one, whose users will be refused. */
static int check_service_type(struct doctor *d, const char *domain, const struct cli_service *s)
{
	const zcast_service_type *t;
	static const uint8_t zero[ZCAST_TYPE_HASH_SIZE];
	if (!s->rq.st.type_name[0] || !memcmp(s->rq.st.type_hash, zero, sizeof zero) ||
	    cli_service_type_named(s->rq.st.type_name, &t) != 0 ||
	    !memcmp(t->hash, s->rq.st.type_hash, ZCAST_TYPE_HASH_SIZE))
		return 0;
	char what[300], installed[ZCAST_TYPE_HASH_STR_SIZE], type[64];
	zcast_type_hash_str(t->hash, installed);
	snprintf(what, sizeof what, "%s service %s", domain, s->name);
	report(d, WARN, what,
	       "rebuild the side built from the older .srv (zcast interface show names the installed "
	       "text)",
	       "type %s %s differs from the installed definition (%s): a client or server of the "
	       "installed type is refused",
	       cli_safe_copy(s->rq.st.type_name, type, sizeof type), s->rq.type_hash, installed);
	return 1;
}

/* A response topic (<service>/_rs/c<id>_<nonce>) that no live process uses any more
 * (zcast_topic_stat.in_use): its client died (its dead records wait for a reclaim) or it is a
 * leftover without members. A topic still in use is a live service's state: a client opening or
 * closing, a server answering, or a server's sweep removing it (it drops its route to a client that
 * left or died and removes the topic at once: server_sweep.c). */
static int check_response(struct doctor *d, const char *domain, const struct cli_topic *t)
{
	char service[256], what[300], fix[400];
	const char *part = cli_service_part(t->name, service, sizeof service);
	if (!part || strcmp(part, "responses") || t->err || t->live_subs || t->live_pubs ||
	    t->st.in_use)
		return 0;
	snprintf(what, sizeof what, "%s %s", domain, t->name);
	if (t->dead) {
		snprintf(fix, sizeof fix, "zcast -d %s gc %s", domain, t->name);
		report(d, PROBLEM, what, fix,
		       "response topic of a client of %s that died: %u dead member(s) not reclaimed",
		       service, t->dead);
	} else {
		snprintf(fix, sizeof fix, "zcast -d %s rm %s", domain, t->name);
		report(d, PROBLEM, what, fix, "leftover response topic of %s: no member", service);
	}
	return 1;
}

static void check_services(struct doctor *d, const char *domain)
{
	struct cli_topic *t;
	struct cli_service *v = NULL;
	int nt = cli_topics(domain, &t);
	if (nt < 0)
		return;
	int n = cli_services_of(t, nt, &v), found = 0;
	for (int i = 0; i < n; i++)
		found += check_servers(d, domain, &v[i]) + check_service_type(d, domain, &v[i]);
	for (int i = 0; i < nt; i++)
		found += check_response(d, domain, &t[i]);
	if (n > 0 && !found)
		report(d, OK, "services", NULL,
		       "%d in domain %s: each with a server or no client, no response topic left by "
		       "a client, types as installed",
		       n, domain);
	free(v);
	free(t);
}

static int run(struct cli *c)
{
	struct doctor d = {c, 0, 0, 0};
	if (c->json)
		printf("{\"checks\":[");
	else
		printf("zcast doctor (domain %s)\n", cli_domain(c));
	check_shm(&d);
	check_kernel(&d);
	struct leftovers l = {&d, cli_domain(c)};
	int before = d.problems + d.warnings;
	int topics = zcast_topic_list(l.domain, check_topic, &l);
	if (topics >= 0)
		check_pools(&d, l.domain, topics);
	if (topics >= 0 && d.problems + d.warnings == before)
		report(&d, OK, "leftovers", NULL, "none in domain %s (%d topic%s)", l.domain,
		       topics, topics == 1 ? "" : "s");
	check_services(&d, l.domain);
	if (c->json)
		printf("],\"problems\":%d,\"warnings\":%d}\n", d.problems, d.warnings);
	else
		printf("%d problem%s, %d warning%s\n", d.problems, d.problems == 1 ? "" : "s",
		       d.warnings, d.warnings == 1 ? "" : "s");
	return d.problems ? CLI_EPROBLEMS : CLI_OK;
}

const struct cli_cmd cmd_doctor = {
    .name = "doctor",
    .args = "",
    .summary = "check /dev/shm, kernel features, leftovers and services; say what to fix",
    .details =
	"Exit status 6 when a problem was found (something breaks zcast or wastes memory);\n"
	"warnings (something works, but slower) leave it 0. Leftovers are looked for in the\n"
	"domain given (-d) only; a topic a live process is creating, joining or leaving\n"
	"right now is not one. Services: clients without a server (warning), a type hash\n"
	"other than the installed definition's (warning), response topics nobody live uses\n"
	"any more, left by clients that died (problem).\n",
    .opts = (const struct cli_opt[]){{0}},
    .min_pos = 0,
    .max_pos = 0,
    .json = true,
    .run = run,
};
