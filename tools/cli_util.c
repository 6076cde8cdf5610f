/* Small helpers every command uses: signals, time, errors, names and units. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

volatile sig_atomic_t cli_stop;

static void on_signal(int sig)
{
	(void)sig;
	cli_stop = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* SIGHUP (the terminal closed, the ssh session ended) stops a command as SIGINT does: a
	 * recorder finishes its file instead of dying with its last piece open. Not under nohup:
	 * a SIGHUP ignored when we start stays ignored. */
	struct sigaction hup;
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_DFL); /* `zcast echo | head` ends quietly */
}

int64_t cli_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void cli_sleep_ns(int64_t ns)
{
	int64_t end = cli_now_ns() + ns;
	while (!cli_stop) {
		int64_t left = end - cli_now_ns();
		if (left <= 0)
			return;
		if (left > 50000000)
			left = 50000000; /* look at cli_stop now and then */
		struct timespec ts = {left / 1000000000, left % 1000000000};
		nanosleep(&ts, NULL);
	}
}

const char *cli_domain(const struct cli *c)
{
	if (c->domain)
		return c->domain;
	const char *e = getenv("ZCAST_DOMAIN");
	return e && *e ? e : "default";
}

char *cli_safe(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
	return s;
}

const char *cli_safe_copy(const char *s, char *out, size_t n)
{
	snprintf(out, n, "%s", s);
	return cli_safe(out);
}

const char *cli_error_text(void)
{
	static _Thread_local char safe[512];
	return cli_safe_copy(zcast_last_error(), safe, sizeof safe);
}

int cli_fail(const struct cli *c, int err)
{
	const char *detail = cli_error_text();
	fprintf(stderr, "zcast %s: %s%s%s%s\n", c->cmd->name, zcast_strerror(err),
		detail[0] ? " (" : "", detail, detail[0] ? ")" : "");
	if (err == ZCAST_ENOENT)
		return CLI_ENOTOPIC;
	if (err == ZCAST_EINVAL)
		return CLI_EUSAGE; /* a name the library rejected */
	return CLI_EFAIL;
}

void cli_type_hash(const zcast_topic_stat *st, char *out, size_t n)
{
	char s[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(st->type_hash, s);
	snprintf(out, n, "%s", s);
}

void cli_proc_name(int32_t pid, char *out, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	snprintf(out, n, "?");
	FILE *f = pid > 0 ? fopen(path, "r") : NULL;
	if (!f)
		return;
	if (fgets(out, (int)n, f)) {
		out[strcspn(out, "\n")] = 0;
		cli_safe(out); /* a process names itself, escape sequences included */
	} else
		snprintf(out, n, "?");
	fclose(f);
}

const char *cli_policy_name(int policy)
{
	switch (policy) {
	case ZCAST_POLICY_FULL:
		return "FULL";
	case ZCAST_POLICY_DROP_OLD:
		return "DROP_OLD";
	case ZCAST_POLICY_BALANCE_RR:
		return "BALANCE_RR";
	default:
		return "-";
	}
}

const char *cli_role_name(int role)
{
	return role == ZCAST_ROLE_PUBLISHER    ? "pub"
	       : role == ZCAST_ROLE_SUBSCRIBER ? "sub"
					       : "tool";
}

void cli_fmt_bytes(double b, char *out, size_t n)
{
	const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
	int u = 0;
	while (b >= 1000 && u < 4) {
		b /= 1000;
		u++;
	}
	snprintf(out, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

void cli_fmt_ns(double ns, char *out, size_t n)
{
	if (ns < 1e3)
		snprintf(out, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(out, n, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, n, "%.2f ms", ns / 1e6);
	else
		snprintf(out, n, "%.2f s", ns / 1e9);
}

bool cli_append(void **v, int *n, int *cap, const void *item, size_t size)
{
	if (*n == *cap) {
		int grown = *cap ? *cap * 2 : 16;
		void *p = realloc(*v, (size_t)grown * size);
		if (!p)
			return false;
		*v = p;
		*cap = grown;
	}
	memcpy((char *)*v + (size_t)*n * size, item, size);
	(*n)++;
	return true;
}

void cli_row(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\n'))
		n--;
	line[n] = 0;
	printf("%s\n", cli_safe(line)); /* names in a row may be member-written */
}

/* Length of the valid UTF-8 sequence at p (n bytes left), or 0: no overlong forms, no surrogates,
 * nothing above U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	static const struct {
		unsigned char lead_lo, lead_hi, len, next_lo, next_hi;
	} forms[] = {
	    {0xc2, 0xdf, 2, 0x80, 0xbf}, {0xe0, 0xe0, 3, 0xa0, 0xbf}, {0xe1, 0xec, 3, 0x80, 0xbf},
	    {0xed, 0xed, 3, 0x80, 0x9f}, {0xee, 0xef, 3, 0x80, 0xbf}, {0xf0, 0xf0, 4, 0x90, 0xbf},
	    {0xf1, 0xf3, 4, 0x80, 0xbf}, {0xf4, 0xf4, 4, 0x80, 0x8f},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		if (p[0] < forms[i].lead_lo || p[0] > forms[i].lead_hi)
			continue;
		if (n < forms[i].len || p[1] < forms[i].next_lo || p[1] > forms[i].next_hi)
			return 0;
		for (size_t k = 2; k < forms[i].len; k++)
			if (p[k] < 0x80 || p[k] > 0xbf)
				return 0;
		return forms[i].len;
	}
	return 0;
}

void cli_json_strn(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		size_t u = p[i] >= 0x80 ? utf8_len(p + i, n - i) : 0;
		if (u) {
			fwrite(p + i, 1, u, f);
			i += u;
			continue;
		}
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			fprintf(f, "\\u%04x", p[i]);
		else if (p[i] >= 0x80)
			fputs("\\ufffd", f); /* not UTF-8 */
		else
			fputc(p[i], f);
		i++;
	}
	fputc('"', f);
}

void cli_json_str(FILE *f, const char *s)
{
	cli_json_strn(f, s, strlen(s));
}
