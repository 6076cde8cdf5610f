/* Concurrent scribbler (hostile shared memory while calls run): publishers, subscribers
 * of every policy (joining and leaving all the time) and a gc/stat tool work on one topic in their
 * own processes, while a scribbler process rewrites fields of the control segment and the pools at
 * random — header limits and offsets, history window, intent, lock word, member / pool / group
 * records, ring heads, tails, depths and entries, history entries, pool headers, slot state words,
 * sizes and holder bitmaps. Mostly it toggles a field between a bad value and its own for a burst
 * and then puts it back (the window between a check and a use), sometimes it leaves a data field
 * bad. The fuzzer in tests/fuzz/ writes only between calls; this one writes during them.
 *
 * Invariants (not only return codes): no member crashes (every worker exits 0 when told to stop);
 * every call returns 0 or a defined ZCAST_E* code; every call with a bounded timeout returns
 * within 30 s (watchdog); no message reaches the application with a size above its capacity or
 * without data, and the whole payload of every taken message and every loan can be read (loans
 * written). Runs ZCAST_SCRIBBLE_SECONDS (default 20, 300 with ZCAST_LONG=1); ZCAST_SEED repeats a
 * run's scribbling; ZCAST_SCRIBBLE_ONLY=<part of a field name> narrows it down to those fields. A
 * failure names the field last written. */
#include <execinfo.h>
#include <stdarg.h>
#include <stddef.h>

#include "zt_seg.h"

#define STUCK_NS 30000000000ll
#define OP_NS 20000000 /* every blocking call of a worker: 20 ms */

enum call { C_NONE, C_OPEN, C_LOAN, C_PUBLISH, C_CLOSE, C_WAIT, C_TAKE, C_GC, C_STAT, C_N };
static const char *const call_names[C_N] = {"user code", "open", "loan", "publish", "close",
					    "wait",	 "take", "gc",	 "stat"};

enum role { PUB, PUB_HIST, SUB_FULL, SUB_DROP1, SUB_RR, SUB_ANCHOR, TOOL, N_ROLES };
static const char *const role_names[N_ROLES] = {
    "publisher",       "publisher with history",
    "FULL subscriber", "DROP_OLD depth-1 subscriber",
    "RR subscriber",   "anchor subscriber (never leaves)",
    "gc/stat tool"};
#define N_WORKERS N_ROLES

struct worker {
	_Atomic int64_t call_start; /* 0 outside a call */
	_Atomic int call;
	_Atomic uint64_t calls;
	_Atomic uint64_t
	    results[C_N][16]; /* per call: count of each result (0, -1 .. -14, positive) */
	_Atomic int errors;
	char err[240];
};

struct shared {
	struct worker w[N_WORKERS];
	_Atomic uint64_t writes; /* scribbler: fields written */
	char field[8][128];	 /* the fields written last (ring, by writes % 8) */
	_Atomic int stop_req[N_WORKERS + 1];
};

static struct shared *sh;
static volatile sig_atomic_t stop;
static int me;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

#define STOPPING() (stop || atomic_load(&sh->stop_req[me]))
#define TOPIC "/scribble"

/* The first violation a worker saw, for the driver to report. */
__attribute__((format(printf, 1, 2))) static void worker_fail(const char *fmt, ...)
{
	struct worker *w = &sh->w[me];
	if (atomic_fetch_add(&w->errors, 1) != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof w->err, fmt, ap);
	va_end(ap);
}

/* Every call goes through here: timed for the watchdog, its result checked for range. */
static int call_done(int c, int r)
{
	struct worker *w = &sh->w[me];
	atomic_store(&w->call_start, 0);
	atomic_store(&w->call, C_NONE);
	atomic_fetch_add(&w->calls, 1);
	atomic_fetch_add(&w->results[c][r > 0 ? 15 : r < ZCAST_EBUSY ? 15 : -r], 1);
	if (r > 0 && c != C_GC)
		worker_fail("zcast call '%s' returned the positive result %d", call_names[c], r);
	if (r < ZCAST_EBUSY)
		worker_fail("zcast call '%s' returned the undefined code %d", call_names[c], r);
	return r;
}
static void call_begin(int c)
{
	atomic_store(&sh->w[me].call, c);
	atomic_store(&sh->w[me].call_start, zt_now_ns());
}
#define CALL(c, expr) (call_begin(c), call_done((c), (expr)))

static void small_topic(zcast_topic_opts *t)
{
	t->max_subscribers = 16;
	t->max_publishers = 4;
	t->max_queue_depth = 16;
	t->history_capacity = 4;
}

/* A message that reached the application: size within capacity, data there, every byte readable. */
static void check_received(zcast_msg *m)
{
	size_t size = zcast_msg_size(m), cap = zcast_msg_capacity(m);
	const volatile uint8_t *p = zcast_msg_data(m);
	if (size > cap)
		worker_fail("message of %lld bytes in a slot of capacity %lld", (long long)size,
			    (long long)cap);
	if (!p) {
		worker_fail("taken message without data (size %zu)", size);
		return;
	}
	uint8_t sum = 0;
	for (size_t i = 0; i < size && i <= cap; i++)
		sum ^= p[i];
	(void)sum;
}

static void run_pub(uint32_t hist)
{
	uint64_t seq = 0;
	while (!STOPPING()) {
		zcast_pub_opts o;
		zcast_pub_opts_init(&o);
		o.slot_size = 256;
		o.slot_count = 8;
		o.history_depth = hist;
		small_topic(&o.topic);
		zcast_pub *p = NULL;
		if (CALL(C_OPEN, zcast_pub_open(TOPIC, &o, &p)) != 0) {
			zt_sleep_ms(1);
			continue;
		}
		/* A pool that stays empty (slots left bad for good): leave, a new membership has a
		 * new pool. */
		for (int n = 0, empty = 0; n < 200 && empty < 5 && !STOPPING(); n++) {
			zcast_msg *m = NULL;
			size_t len = 32 + (size_t)(rand() % 224);
			if (CALL(C_LOAN, zcast_loan_wait(p, len, OP_NS, &m)) != 0) {
				empty++;
				continue;
			}
			empty = 0;
			if (zcast_msg_capacity(m) < len || !zcast_msg_data(m))
				worker_fail("loan of %lld bytes with capacity %lld", (long long)len,
					    (long long)zcast_msg_capacity(m));
			else
				zt_fill(zcast_msg_data(m), len, ++seq, zcast_pub_id(p));
			if (CALL(C_PUBLISH, zcast_publish_wait(p, m, OP_NS)) != 0)
				zcast_msg_drop(m);
		}
		CALL(C_CLOSE, zcast_pub_close(p));
	}
}

static void run_sub(int policy, uint32_t depth, int anchor)
{
	while (!STOPPING()) {
		zcast_sub_opts o;
		zcast_sub_opts_init(&o);
		o.policy = policy;
		o.queue_depth = depth;
		o.group = policy == ZCAST_POLICY_BALANCE_RR ? "g" : NULL;
		o.history = policy == ZCAST_POLICY_FULL ? 2 : 0;
		small_topic(&o.topic);
		zcast_sub *s = NULL;
		if (CALL(C_OPEN, zcast_sub_open(TOPIC, &o, &s)) != 0) {
			zt_sleep_ms(1);
			continue;
		}
		zcast_msg *held =
		    NULL; /* one message kept until the next: releases interleave takes */
		int r = 0;
		for (int n = 0, idle = 0;
		     (anchor || (n < 300 && idle < 25)) && r != ZCAST_ECORRUPT && !STOPPING();
		     n++) {
			if (CALL(C_WAIT, zcast_wait(s, OP_NS)) != 0) {
				idle++; /* fed no more (a record left bad for good): join again */
				continue;
			}
			zcast_msg *m = NULL;
			idle++; /* also when woken for nothing (a queue that only looks full) */
			while (!STOPPING() && (r = CALL(C_TAKE, zcast_take(s, &m))) == 0) {
				check_received(m);
				zcast_msg_drop(held);
				held = m;
				idle = 0;
			}
		}
		/* A corrupted or starved queue: leave and join again, as an application would. */
		zcast_msg_drop(held);
		CALL(C_CLOSE, zcast_sub_close(s));
	}
}

static void run_tool(void)
{
	while (!STOPPING()) {
		zcast_topic_stat st;
		CALL(C_GC, zcast_topic_gc(NULL, TOPIC));
		CALL(C_STAT, zcast_topic_stat_get(NULL, TOPIC, &st));
		zt_sleep_ms(2);
	}
}

/* A worker that crashes prints where (library offsets: addr2line -e build-test/libzcast.so), then
 * dies by the same signal. */
static void on_crash(int sig)
{
	void *frames[32];
	static const char msg[] = "worker crashed, stack:\n";
	if (write(2, msg, sizeof msg - 1) < 0) {
	}
	backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int worker_main(int role)
{
	void *warm[1];
	backtrace(warm, 1); /* loads libgcc now, not inside the handler */
	int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], on_crash);
	switch (role) {
	case PUB:
		run_pub(0);
		break;
	case PUB_HIST:
		run_pub(2);
		break;
	case SUB_FULL:
		run_sub(ZCAST_POLICY_FULL, 8, 0);
		break;
	case SUB_DROP1:
		run_sub(ZCAST_POLICY_DROP_OLD, 1, 0);
		break;
	case SUB_RR:
		run_sub(ZCAST_POLICY_BALANCE_RR, 4, 0);
		break;
	case SUB_ANCHOR:
		run_sub(ZCAST_POLICY_DROP_OLD, 4, 1);
		break;
	default:
		run_tool();
	}
	return 0;
}

/* ---- the scribbler ---- */

/* What the scribbler can write: a field of a region, by kind. */
enum region {
	R_HDR,
	R_SUB,
	R_PUB,
	R_POOLREC,
	R_GROUP,
	R_RING,
	R_HISTORY,
	R_POOLHDR,
	R_SLOT,
	R_BITS
};

struct kind {
	const char *name;
	int region;
	uint32_t off, width;
	int keep_ok; /* a bad value may stay (data the library must validate), not only flicker */
};

#define K(reg, type, field, keep)                                                                  \
	{                                                                                          \
#type " " #field, reg, offsetof(type, field), sizeof(((type *)0)->field), keep     \
	}
static const struct kind kinds[] = {
    K(R_HDR, struct zc_topic_hdr, max_pubs, 0),
    K(R_HDR, struct zc_topic_hdr, max_subs, 0),
    K(R_HDR, struct zc_topic_hdr, max_depth, 0),
    K(R_HDR, struct zc_topic_hdr, history_cap, 0),
    K(R_HDR, struct zc_topic_hdr, max_pools, 0),
    K(R_HDR, struct zc_topic_hdr, n_members, 0),
    K(R_HDR, struct zc_topic_hdr, bitmap_words, 0),
    K(R_HDR, struct zc_topic_hdr, segment_size, 0),
    K(R_HDR, struct zc_topic_hdr, off_subs, 0),
    K(R_HDR, struct zc_topic_hdr, off_rings, 0),
    K(R_HDR, struct zc_topic_hdr, off_pools, 0),
    K(R_HDR, struct zc_topic_hdr, mode_unused, 0),
    K(R_HDR, struct zc_topic_hdr, hist_start, 0),
    K(R_HDR, struct zc_topic_hdr, hist_end, 0),
    K(R_HDR, struct zc_topic_hdr, hist_depth, 0),
    K(R_HDR, struct zc_topic_hdr, sub_hi, 0),
    K(R_HDR, struct zc_topic_hdr, pool_hi, 0),
    K(R_HDR, struct zc_topic_hdr, space_waiters, 0),
    K(R_HDR, struct zc_topic_hdr, intent.op, 1),
    K(R_HDR, struct zc_topic_hdr, intent.drop_sub, 1),
    K(R_HDR, struct zc_topic_hdr, intent.desc, 1),
    K(R_HDR, struct zc_topic_hdr, intent.drop_head, 1),
    K(R_HDR, struct zc_topic_hdr, intent.evict_desc, 1),
    K(R_HDR, struct zc_topic_hdr, intent.evict_pending, 1),
    K(R_HDR, struct zc_topic_hdr, lock.word, 0),
    K(R_SUB, struct zc_sub_rec, state, 0),
    K(R_SUB, struct zc_sub_rec, policy, 1),
    K(R_SUB, struct zc_sub_rec, depth, 1),
    K(R_SUB, struct zc_sub_rec, group, 1),
    K(R_SUB, struct zc_sub_rec, pid, 0),
    K(R_SUB, struct zc_sub_rec, head, 1),
    K(R_SUB, struct zc_sub_rec, tail, 1),
    K(R_SUB, struct zc_sub_rec, sleepers, 0),
    K(R_SUB, struct zc_sub_rec, woken, 0),
    K(R_SUB, struct zc_sub_rec, wake, 0),
    K(R_PUB, struct zc_pub_rec, state, 0),
    K(R_PUB, struct zc_pub_rec, pool, 1),
    K(R_PUB, struct zc_pub_rec, pid, 0),
    K(R_PUB, struct zc_pub_rec, history_depth, 0),
    K(R_PUB, struct zc_pub_rec, space_armed, 0),
    K(R_POOLREC, struct zc_pool_rec, state, 0),
    K(R_POOLREC, struct zc_pool_rec, owner, 0),
    K(R_POOLREC, struct zc_pool_rec, id, 0),
    K(R_POOLREC, struct zc_pool_rec, slot_size, 0),
    K(R_POOLREC, struct zc_pool_rec, slot_count, 0),
    K(R_GROUP, struct zc_group_rec, members, 0),
    K(R_GROUP, struct zc_group_rec, next, 1),
    {"ring entry", R_RING, 0, 8, 1},
    {"history entry", R_HISTORY, 0, 8, 1},
    K(R_POOLHDR, struct zc_pool_hdr, slot_count, 0),
    K(R_POOLHDR, struct zc_pool_hdr, slot_size, 0),
    K(R_POOLHDR, struct zc_pool_hdr, slot_stride, 0),
    K(R_POOLHDR, struct zc_pool_hdr, payload_off, 0),
    K(R_POOLHDR, struct zc_pool_hdr, bitmap_words, 0),
    K(R_POOLHDR, struct zc_pool_hdr, waiters, 0),
    K(R_SLOT, struct zc_slot_hdr, state, 1),
    K(R_SLOT, struct zc_slot_hdr, seq, 1),
    K(R_SLOT, struct zc_slot_hdr, size, 0),
    {"slot bitmap word", R_BITS, 0, 8, 1},
};
#undef K
#define N_KINDS ((int)(sizeof kinds / sizeof kinds[0]))

struct field {
	uint8_t *base; /* mapping the field lives in */
	uint64_t off;
	int width;
	int keep_ok;
	char name[128];
};

struct geometry { /* read once from the control segment before any scribbling */
	uint32_t max_pubs, max_subs, max_depth, history_cap, max_pools, max_groups;
	uint64_t off_pubs, off_subs, off_pools, off_groups, off_rings, off_history;
};

struct pool_view {
	uint8_t *p;
	size_t size;
	uint32_t slot_count, bitmap_words;
	uint64_t stride;
};

static uint64_t rnd64(void)
{
	return ((uint64_t)(uint32_t)rand() << 33) ^ ((uint64_t)(uint32_t)rand() << 11) ^
	       (uint64_t)(uint32_t)rand();
}

/* Places kind `kd` in a random record / entry / slot; 0 if it needs a pool and there is none. */
static int place(struct field *f, const struct kind *kd, uint8_t *ctl, const struct geometry *g,
		 const struct pool_view *pools, int n_pools)
{
	uint32_t hi =
	    atomic_load((_Atomic uint32_t *)(ctl + offsetof(struct zc_topic_hdr, sub_hi)));
	unsigned k = (unsigned)rand() % (hi >= 1 && hi <= 8 ? hi : 8); /* a sub record in use */
	uint64_t rec = 0;
	f->base = ctl;
	f->width = (int)kd->width;
	f->keep_ok = kd->keep_ok;
	switch (kd->region) {
	case R_HDR:
		rec = 0;
		k = 0;
		break;
	case R_SUB:
		rec = g->off_subs + k * sizeof(struct zc_sub_rec);
		break;
	case R_PUB:
		k %= 4;
		rec = g->off_pubs + k * sizeof(struct zc_pub_rec);
		break;
	case R_POOLREC:
		k %= 4;
		rec = g->off_pools + k * sizeof(struct zc_pool_rec);
		break;
	case R_GROUP:
		k %= 2;
		rec = g->off_groups + k * sizeof(struct zc_group_rec);
		break;
	case R_RING:
		k = k * g->max_depth + (unsigned)rand() % g->max_depth;
		rec = g->off_rings + 8ull * k;
		break;
	case R_HISTORY:
		k = (unsigned)rand() % g->history_cap;
		rec = g->off_history + 8ull * k;
		break;
	default: {
		if (!n_pools)
			return 0;
		const struct pool_view *v = &pools[rand() % n_pools];
		f->base = v->p;
		k = (unsigned)rand() % v->slot_count;
		rec = kd->region == R_POOLHDR ? 0 : sizeof(struct zc_pool_hdr) + k * v->stride;
		if (kd->region == R_BITS)
			rec += offsetof(struct zc_slot_hdr, bits) +
			       8ull * ((unsigned)rand() % v->bitmap_words);
	}
	}
	f->off = rec + kd->off;
	snprintf(f->name, sizeof f->name, "%s (#%u)", kd->name, k);
	return 1;
}

static uint64_t bad_value(uint64_t orig, int width)
{
	static const uint64_t special[] = {0,
					   1,
					   2,
					   3,
					   0x7fffffffull,
					   0x80000000ull,
					   0xffffffffull,
					   0x100000ull,
					   0x7fffffffffffffffull,
					   0xffffffffffffffffull,
					   1ull << 40};
	uint64_t v;
	switch (rand() % 10) { /* half of the time a value at a limit: 0, 1, sign bits, all ones */
	case 5:
	case 6:
	case 7:
	case 8:
	case 9:
	case 0:
		v = special[(unsigned)rand() % (sizeof special / sizeof special[0])];
		break;
	case 1:
		v = orig + 1;
		break;
	case 2:
		v = orig - 1;
		break;
	case 3:
		v = orig ^ (1ull << (rand() % (8 * width)));
		break;
	case 4:
		v = orig * 2 + (uint64_t)(rand() % 3);
		break;
	default:
		v = rnd64();
		break;
	}
	return width == 4 ? (uint32_t)v : v;
}

static uint64_t load(const struct field *f)
{
	void *p = f->base + f->off;
	return f->width == 4 ? atomic_load((_Atomic uint32_t *)p)
			     : atomic_load((_Atomic uint64_t *)p);
}
static void store(const struct field *f, uint64_t v)
{
	void *p = f->base + f->off;
	if (f->width == 4)
		atomic_store((_Atomic uint32_t *)p, (uint32_t)v);
	else
		atomic_store((_Atomic uint64_t *)p, v);
}

/* Maps the domain's pool files (read-write), replacing the previous views. */
static int map_pools(struct pool_view *v, int max)
{
	for (int i = 0; i < max; i++)
		if (v[i].p)
			munmap(v[i].p, v[i].size);
	memset(v, 0, sizeof *v * (size_t)max);
	char prefix[64], path[400];
	int n = snprintf(prefix, sizeof prefix, "zcast.%s.@", zt_domain()), count = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && count < max && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)n) != 0)
			continue;
		snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && (size_t)st.st_size >= 4096) {
			uint8_t *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
					  MAP_SHARED, fd, 0);
			if (p != MAP_FAILED) {
				struct zc_pool_hdr *h = (struct zc_pool_hdr *)p;
				struct pool_view pv = {p, (size_t)st.st_size, h->slot_count,
						       h->bitmap_words, h->slot_stride};
				/* Only a header that is (still) sane: our own writes are always
				 * undone first. */
				if (atomic_load(&h->magic) == ZC_POOL_MAGIC && pv.slot_count >= 1 &&
				    pv.bitmap_words >= 1 &&
				    pv.stride >=
					sizeof(struct zc_slot_hdr) + 8ull * pv.bitmap_words &&
				    sizeof *h + (uint64_t)pv.slot_count * pv.stride <= pv.size)
					v[count++] = pv;
				else
					munmap(p, (size_t)st.st_size);
			}
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return count;
}

static int scribbler_main(unsigned seed, int64_t run_ns)
{
	srand(seed);
	size_t size = 0;
	struct zc_topic_hdr *h = NULL;
	for (int i = 0; i < 10000 && !h; i++) { /* the anchor creates the topic */
		char path[400];
		zt_topic_path(path, sizeof path, TOPIC);
		if (access(path, F_OK) == 0)
			h = zt_map_topic(TOPIC, &size);
		else
			zt_sleep_ms(1);
	}
	CHECK(h);
	for (int i = 0; i < 10000 && atomic_load(&h->magic) != ZC_TOPIC_MAGIC; i++)
		zt_sleep_ms(1);
	struct geometry g = {h->max_pubs,  h->max_subs,	  h->max_depth, h->history_cap,
			     h->max_pools, h->max_groups, h->off_pubs,	h->off_subs,
			     h->off_pools, h->off_groups, h->off_rings, h->off_history};
	CHECK(g.max_subs >= 8 && g.max_pubs >= 4 && g.max_pools >= 4 && g.max_groups >= 2 &&
	      g.history_cap >= 1);
	CHECK(g.off_rings + 8ull * 8 * g.max_depth <= size &&
	      g.off_history + 8ull * g.history_cap <= size);
	const char *only = getenv("ZCAST_SCRIBBLE_ONLY"); /* e.g. "depth": only fields so named */
	int64_t t0 = zt_now_ns(), slice = run_ns / N_KINDS;
	struct pool_view pools[8] = {{0}};
	int n_pools = 0;
	int64_t next_scan = 0;
	while (!stop) {
		if (zt_now_ns() > next_scan) {
			n_pools = map_pools(pools, 8);
			next_scan = zt_now_ns() + 20000000;
		}
		/* Half the bursts sweep the kinds in turn (every kind gets its share of a short
		 * run), half pick one at random (mixtures). */
		struct field f;
		int kd, tries = 0;
		do {
			kd = rand() % 2 ? (int)((zt_now_ns() - t0) / slice % N_KINDS)
					: rand() % N_KINDS;
		} while (++tries < 1000 &&
			 ((only && !strstr(kinds[kd].name, only)) ||
			  !place(&f, &kinds[kd], (uint8_t *)h, &g, pools, n_pools)));
		if (tries == 1000) { /* nothing to write yet (no pool for a pool field) */
			zt_sleep_ms(1);
			continue;
		}
		snprintf(sh->field[(atomic_load(&sh->writes) + 1) % 8], sizeof sh->field[0], "%s",
			 f.name);
		atomic_fetch_add(&sh->writes, 1);
		uint64_t orig = load(&f), bad[4];
		for (int i = 0; i < 4; i++)
			bad[i] = bad_value(orig, f.width);
		if (f.keep_ok && rand() % 20 == 0) {
			store(&f, bad[0]); /* left bad: the library must cope for good */
		} else {
			/* Flicker for up to 3 ms: bad, own, another bad, own ... so that a member
			 * that checked the field and reads it again meets another value; then put
			 * back. */
			int64_t until = zt_now_ns() + rand() % 3000000;
			while (zt_now_ns() < until && !stop) {
				for (int i = 0; i < 64; i++) {
					store(&f, bad[i % 4]);
					store(&f, orig);
				}
			}
			if (rand() % 8 ==
			    0) { /* and sometimes bad for a while: the checks must see it */
				store(&f, bad[0]);
				zt_sleep_ms(1);
			}
			store(&f, orig);
		}
	}
	return 0;
}

/* ---- the test ---- */

static int64_t run_ns;

static pid_t start(int i, unsigned seed)
{
	fflush(NULL);
	pid_t pid = zt_fork_on_term(on_term);
	if (pid == 0) {
		srand(seed);
		me = i;
		_exit(i == N_WORKERS ? scribbler_main(seed, run_ns) : worker_main(i));
	}
	zt_children[i] = pid; /* killed if the test fails */
	return pid;
}

static const char *who(int i)
{
	return i == N_WORKERS ? "scribbler" : role_names[i];
}

static void report_and_fail(int i, const char *what)
{
	struct worker *w = i < N_WORKERS ? &sh->w[i] : NULL;
	uint64_t n = atomic_load(&sh->writes);
	fprintf(stderr, "FAIL: %s %s%s%s\n", who(i), what, w && atomic_load(&w->errors) ? ": " : "",
		w && atomic_load(&w->errors) ? w->err : "");
	fprintf(stderr,
		"  after %llu writes; the last fields written, newest first (a field left bad may "
		"be older):\n",
		(unsigned long long)n);
	for (uint64_t k = 0; k < 8 && k < n; k++)
		fprintf(stderr, "    %s\n", sh->field[(n - k) % 8]);
	zt_fail();
}

/* Workers and scribbler alive, no call over the watchdog, no reported violation. */
static void check(const pid_t *pids)
{
	for (int i = 0; i <= N_WORKERS; i++) {
		int st;
		if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
			char what[120];
			zt_describe_status(what, sizeof what, st);
			zt_children[i] = 0;
			report_and_fail(i, what);
		}
		if (i == N_WORKERS)
			continue;
		struct worker *w = &sh->w[i];
		if (atomic_load(&w->errors))
			report_and_fail(i, "broke an invariant");
		int64_t t = atomic_load(&w->call_start);
		if (t && zt_now_ns() - t > STUCK_NS) {
			char what[120];
			snprintf(what, sizeof what,
				 "stuck in %s for %lld s (every call is bounded)",
				 call_names[atomic_load(&w->call)], STUCK_NS / 1000000000ll);
			report_and_fail(i, what);
		}
	}
}

/* SIGTERM; the process must exit 0 within the watchdog. */
static void stop_one(pid_t *pids, int i)
{
	atomic_store(&sh->stop_req[i], 1);
	kill(pids[i], SIGTERM);
	int64_t deadline = zt_now_ns() + STUCK_NS + 5000000000ll;
	int st;
	while (waitpid(pids[i], &st, WNOHANG) != pids[i]) {
		if (zt_now_ns() > deadline)
			report_and_fail(i, "did not exit after SIGTERM");
		zt_sleep_ms(2);
	}
	zt_children[i] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char what[120];
		zt_describe_status(what, sizeof what, st);
		report_and_fail(i, what);
	}
}

int main(void)
{
	const char *env = getenv("ZCAST_SCRIBBLE_SECONDS");
	int seconds = env ? atoi(env) : getenv("ZCAST_LONG") ? 300 : 20;
	run_ns = (int64_t)(seconds > 0 ? seconds : 1) * 1000000000ll;
	zt_setup("scribble", (unsigned)seconds + 200);
	unsigned seed =
	    getenv("ZCAST_SEED") ? (unsigned)atoi(getenv("ZCAST_SEED")) : (unsigned)getpid();
	printf("# seed %u, %d s\n", seed, seconds);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	pid_t pids[N_WORKERS + 1];
	zt_n_children = N_WORKERS + 1;
	pids[SUB_ANCHOR] = start(SUB_ANCHOR, seed + SUB_ANCHOR); /* creates the topic, keeps it */
	for (int i = 0; i < 1000 && atomic_load(&sh->w[SUB_ANCHOR].calls) == 0; i++)
		zt_sleep_ms(5);
	for (int i = 0; i < N_WORKERS; i++)
		if (i != SUB_ANCHOR)
			pids[i] = start(i, seed + (unsigned)i);
	pids[N_WORKERS] = start(N_WORKERS, seed);
	int64_t end = zt_now_ns() + (int64_t)seconds * 1000000000ll;
	while (zt_now_ns() < end) {
		check(pids);
		zt_sleep_ms(10);
	}
	stop_one(pids, N_WORKERS); /* the scribbler stops first: its last flicker is undone */
	uint64_t calls = 0;
	for (int i = 0; i < N_WORKERS; i++)
		calls += atomic_load(&sh->w[i].calls);
	for (int i = 0; i < N_WORKERS; i++) {
		check(pids);
		stop_one(pids, i);
	}
	for (int c = 1; c < C_N;
	     c++) { /* what the calls returned: did the members get work done? */
		uint64_t n[16] = {0};
		for (int i = 0; i < N_WORKERS; i++)
			for (int k = 0; k < 16; k++)
				n[k] += atomic_load(&sh->w[i].results[c][k]);
		printf("# %-6s", call_names[c]);
		for (int k = 0; k < 16; k++)
			if (n[k])
				printf(" %s=%llu",
				       k == 0	 ? "ok"
				       : k == 15 ? ">0"
						 : zcast_strerror(-k),
				       (unsigned long long)n[k]);
		printf("\n");
	}
	printf("# %llu fields scribbled, %llu calls checked\n",
	       (unsigned long long)atomic_load(&sh->writes), (unsigned long long)calls);
	return 0;
}
