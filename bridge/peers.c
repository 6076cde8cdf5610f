/* Dead bridges leave DDS at once (docs/BRIDGE.md, "A bridge that restarts, and its dead
 * participant").
 *
 * A bridge killed with kill -9 stays in its peers' DDS discovery until its participant's lease
 * expires (Cyclone's default: 10 s). Until then a reliable writer keeps what the dead readers did
 * not acknowledge; when its buffer is full, it blocks, and with it the sending route and its zcast
 * publishers. Its successor on that host knows better: it holds the claim the dead one held.
 *
 * So each bridge says in its participant's USER_DATA which claims it holds, as pairs of the claim
 * file's source id (random per file: per topic, host and boot) and the claim's generation (counted
 * up in the file at every grant, under the lock, claim.c):
 *   "enclave=/;zcastsrc=<16 hex digits>,...;zcastgen=<decimal>,...;zcastann=<count>;"
 * A claim is granted only when its previous holder's file closed, which happens when that process
 * died or after it deleted its participant (zcast_bridge_stop). So a participant that announces a
 * source with a lower generation than another participant announced is gone: this thread deletes
 * Cyclone's proxy of it (with its readers and writers) as soon as the newer one is discovered,
 * which unblocks our writers at once.
 *
 * A peer can drop a dead bridge only if it saw that bridge announce the claim. So an IN route
 * opens its readers only once its claim was announced (zb_peers_wait_announced): a peer matches
 * them, and so can be held by them, only after the announcement was sent. Before, the readers came
 * first, and a bridge whose discovery thread was not scheduled for a second (load) could die
 * matched but unannounced: its peer's writer stayed held by the dead readers for their lease.
 *
 * Cyclone 0.10 has no public call to drop a remote participant; ddsi_delete_proxy_participant_by_
 * guid is what its lease expiry calls, and libddsc exports it (cyclonedds-dev ships its header).
 * As Cyclone's own callers do, it runs with the calling thread marked awake on the domain (the
 * entity index may be read only then), with no lock of ours held, in this thread rather than a
 * listener (which Cyclone calls from discovery with its own locks held). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dds/ddsi/ddsi_proxy_participant.h>
#include <dds/ddsi/ddsi_sertype.h>
#include <dds/ddsi/q_bswap.h>
#include <dds/ddsi/q_thread.h>

#include "internal.h"

#define ZB_PEER_OWN 32	  /* claims announced (more are held but not announced) */
#define ZB_PEER_KNOWN 256 /* sources remembered from other participants */
/* Cyclone sends a participant's changed USER_DATA once, best effort, and then only with its
 * periodic announcement (every 30 s by default): a lost packet would leave the peers waiting. So a
 * change is announced three times, at once, 100 ms and 1.1 s later, each time with a new
 * "zcastann=" count (an unchanged USER_DATA is not sent again). */
#define ZB_PEER_TIMES 3

struct zb_peers {
	pthread_mutex_t mu; /* own[] and the USER_DATA written from it */
	dds_entity_t participant;
	struct {
		uint64_t src, gen;
	} own[ZB_PEER_OWN];
	size_t n_own;
	uint64_t ann;	  /* announcements made */
	uint64_t claims, claims_announced; /* claims told, and how many of them were announced */
	pthread_cond_t announced_cv;	   /* claims_announced grew, or a stop (zb_peers_kick) */
	int again;	  /* announcements still to make */
	int64_t again_at; /* when the next is due (CLOCK_MONOTONIC, ns) */
	/* the discovery thread's alone */
	struct {
		uint64_t src, gen;
		dds_guid_t guid;
	} known[ZB_PEER_KNOWN];
	size_t n_known, next_evict;
	struct ddsi_domaingv *gv;
	dds_entity_t reader, ws, guard;
	pthread_t thread;
	int started;
	_Atomic int stop;
};

struct zb_peers *zb_peers_new(dds_entity_t participant)
{
	struct zb_peers *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->announced_cv, NULL);
	p->participant = participant;
	return p;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sets the participant's USER_DATA from own[]; with p->mu held, in the discovery thread only:
 * Cyclone builds our own participant's builtin-topic sample from its live QoS when this thread
 * takes it, without the lock dds_set_qos holds, so the two must not run at once. */
static void announce(struct zb_peers *p)
{
	/* the keys, then per claim 16 + 1 and at most 20 + 1 characters */
	char ud[96 + ZB_PEER_OWN * 48];
	int n = snprintf(ud, sizeof ud, "enclave=/;zcastsrc=");
	for (size_t k = 0; k < p->n_own; k++)
		n += snprintf(ud + n, sizeof ud - (size_t)n, "%016" PRIx64 "%s", p->own[k].src,
			      k + 1 < p->n_own ? "," : ";zcastgen=");
	for (size_t k = 0; k < p->n_own; k++)
		n += snprintf(ud + n, sizeof ud - (size_t)n, "%" PRIu64 "%s", p->own[k].gen,
			      k + 1 < p->n_own ? "," : ";");
	n += snprintf(ud + n, sizeof ud - (size_t)n, "zcastann=%" PRIu64 ";", ++p->ann);
	dds_qos_t *q = dds_create_qos();
	/* participant USER_DATA may change: Cyclone sends the new one at once */
	if (q) {
		dds_qset_userdata(q, ud, (size_t)n);
		if (dds_set_qos(p->participant, q) < 0 && !atomic_load(&p->stop))
			fprintf(stderr, "zcast-bridge: participant USER_DATA not updated\n");
	}
	dds_delete_qos(q);
}

void zb_peers_claimed(struct zb_peers *p, uint64_t src, uint64_t gen)
{
	pthread_mutex_lock(&p->mu);
	size_t i = 0;
	while (i < p->n_own && p->own[i].src != src)
		i++;
	if (i == p->n_own && p->n_own < ZB_PEER_OWN)
		p->n_own++;
	if (i < p->n_own) {
		p->own[i].src = src, p->own[i].gen = gen;
		p->claims++;
		p->again = ZB_PEER_TIMES;
		p->again_at = mono_ns();
		dds_set_guardcondition(p->guard, true); /* the discovery thread announces it */
	}
	pthread_mutex_unlock(&p->mu);
}

/* Drops Cyclone's proxy of a remote participant (see the top of the file); a GUID that is not a
 * proxy (our own participant) is not found, and nothing happens. */
static void drop(struct zb_peers *p, const dds_guid_t *guid)
{
	ddsi_guid_t g;
	memcpy(&g, guid->v, sizeof g); /* dds_guid_t is the GUID in network order */
	g = nn_ntoh_guid(g);
	struct thread_state *ts = lookup_thread_state();
	thread_state_awake(ts, p->gv);
	int r = ddsi_delete_proxy_participant_by_guid(p->gv, &g, ddsrt_time_wallclock(), 1);
	thread_state_asleep(ts);
	if (r >= 0)
		fprintf(stderr,
			"zcast-bridge: a successor bridge replaced participant %08" PRIx32
			":%08" PRIx32 ":%08" PRIx32 ": dropped it\n",
			g.prefix.u[0], g.prefix.u[1], g.prefix.u[2]);
}

/* The next item of a list "a,b,c" ending at `end`: 1 and the item (*s, *n bytes), or 0. */
static int item(const char **cur, const char *end, const char **s, size_t *n)
{
	if (*cur >= end)
		return 0;
	const char *c = memchr(*cur, ',', (size_t)(end - *cur));
	*s = *cur, *n = (size_t)((c ? c : end) - *cur);
	*cur = c ? c + 1 : end;
	return 1;
}

static int number(const char *s, size_t n, int base, uint64_t *v)
{
	char b[24];
	if (n == 0 || n >= sizeof b)
		return 0;
	memcpy(b, s, n);
	b[n] = 0;
	char *e;
	*v = strtoull(b, &e, base);
	return *e == 0 && b[0] != '-' && b[0] != '+';
}

/* One (source, generation) a participant announces. */
static void learn(struct zb_peers *p, const dds_guid_t *guid, uint64_t src, uint64_t gen)
{
	size_t i = 0;
	while (i < p->n_known && p->known[i].src != src)
		i++;
	if (i == p->n_known) {
		if (p->n_known < ZB_PEER_KNOWN)
			i = p->n_known++;
		else /* forgetting one only costs the early drop of its next predecessor */
			i = p->next_evict++ % ZB_PEER_KNOWN;
		p->known[i].src = src, p->known[i].gen = gen, p->known[i].guid = *guid;
		return;
	}
	int same = memcmp(p->known[i].guid.v, guid->v, 16) == 0;
	if (gen > p->known[i].gen) {
		if (!same)
			drop(p, &p->known[i].guid);
		p->known[i].gen = gen, p->known[i].guid = *guid;
	} else if (gen < p->known[i].gen && !same) {
		drop(p, guid); /* discovered after its successor */
	}
}

/* A participant's USER_DATA (remote: any bytes at all). */
static void announced(struct zb_peers *p, const dds_guid_t *guid, const char *ud, size_t n)
{
	const char *sv, *gv;
	size_t sn, gn;
	if (!zb_user_data_value(ud, n, "zcastsrc", &sv, &sn) ||
	    !zb_user_data_value(ud, n, "zcastgen", &gv, &gn))
		return;
	const char *sc = sv, *gc = gv, *s, *g;
	size_t sl, gl;
	while (item(&sc, sv + sn, &s, &sl) && item(&gc, gv + gn, &g, &gl)) {
		uint64_t src, gen;
		if (sl == 16 && number(s, sl, 16, &src) && number(g, gl, 10, &gen) && src)
			learn(p, guid, src, gen);
	}
}

static void take_all(struct zb_peers *p)
{
	void *s[16];
	dds_sample_info_t si[16];
	int n;
	do {
		memset(s, 0, sizeof s);
		n = dds_take(p->reader, s, si, 16, 16);
		for (int i = 0; i < n; i++) {
			const dds_builtintopic_participant_t *pp = s[i];
			void *ud = NULL;
			size_t sz = 0;
			/* our own participant too: a predecessor on this host (a standby took over)
			 * may have had readers our writers match, and our generation is the newest
			 */
			if (!si[i].valid_data || !dds_qget_userdata(pp->qos, &ud, &sz) || !ud) {
				dds_free(ud);
				continue;
			}
			announced(p, &pp->key, ud, sz);
			dds_free(ud);
		}
		if (n > 0)
			dds_return_loan(p->reader, s, n);
	} while (n == 16);
}

static void *discovery(void *arg)
{
	struct zb_peers *p = arg;
	while (!atomic_load(&p->stop)) {
		pthread_mutex_lock(&p->mu);
		int64_t now = mono_ns();
		if (p->again && now >= p->again_at) {
			announce(p);
			p->claims_announced = p->claims;
			pthread_cond_broadcast(&p->announced_cv); /* zb_peers_wait_announced */
			p->again--;
			p->again_at =
			    now + (p->again == ZB_PEER_TIMES - 1 ? 100 : 1000) * 1000 * 1000;
		}
		dds_duration_t wait = p->again ? p->again_at - now : DDS_INFINITY;
		pthread_mutex_unlock(&p->mu);
		/* woken by a participant discovered or changed, by a repeat due, and by the guard
		 * (zb_peers_claimed, zb_peers_stop) */
		dds_waitset_wait(p->ws, NULL, 0, wait > 0 ? wait : 0);
		ZB_DELAY("peers:wake"); /* tests: a discovery thread not scheduled for a while */
		bool set;
		dds_take_guardcondition(p->guard, &set);
		take_all(p);
	}
	return NULL;
}

int zb_peers_start(struct zb_peers *p, const struct ddsi_sertype *registered)
{
	p->gv = ddsrt_atomic_ldvoidp(&registered->gv);
	p->reader =
	    dds_create_reader(p->participant, DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, NULL, NULL);
	p->ws = dds_create_waitset(p->participant);
	p->guard = dds_create_guardcondition(p->participant);
	dds_entity_t rc = p->reader > 0 ? dds_create_readcondition(p->reader, DDS_ANY_STATE) : -1;
	if (!p->gv || rc < 0 || p->ws < 0 || p->guard < 0 || dds_waitset_attach(p->ws, rc, 0) < 0 ||
	    dds_waitset_attach(p->ws, p->guard, 0) < 0)
		return -1;
	int e = pthread_create(&p->thread, NULL, discovery, p);
	p->started = e == 0;
	return e ? -1 : 0;
}

int zb_peers_wait_announced(struct zb_peers *p, _Atomic int *stop)
{
	pthread_mutex_lock(&p->mu);
	uint64_t want = p->claims;
	while (p->claims_announced < want && !atomic_load(stop) && !atomic_load(&p->stop))
		pthread_cond_wait(&p->announced_cv, &p->mu);
	int announced = p->claims_announced >= want;
	pthread_mutex_unlock(&p->mu);
	return announced ? 0 : -1;
}

void zb_peers_kick(struct zb_peers *p)
{
	pthread_mutex_lock(&p->mu);
	pthread_cond_broadcast(&p->announced_cv);
	pthread_mutex_unlock(&p->mu);
}

void zb_peers_stop(struct zb_peers *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, 1);
	zb_peers_kick(p);
	if (p->started) {
		dds_set_guardcondition(p->guard, true);
		pthread_join(p->thread, NULL);
		p->started = 0;
	}
	/* the reader, wait set and guard go with the participant */
}

void zb_peers_free(struct zb_peers *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->announced_cv);
	free(p);
}
