/* Member enumeration for tools (zcast_topic_members): who is on a topic, in which state, and which
 * subscriber refuses publishes right now.
 *
 * The caller is not a member: the topic is mapped with zc_topic_peek (no lock, nothing unlinked).
 * Liveness is the OFD lock of each record, probed through a descriptor of our own (the peek mapping
 * keeps none). Every field another process can write is read once into a local, range checked, and
 * only the copy is used. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_internal.h"

/* Opens the control segment read-only for liveness probes; *ino identifies the file. */
static int open_probe(const char *shm_name, const char *topic, ino_t *ino)
{
	int fd = shm_open(shm_name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0 && errno == ENOENT)
		return zc_err(ZCAST_ENOENT, "no topic %s", topic);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) != 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return zc_errno(ZCAST_ESYS, "open topic for liveness probes");
	*ino = st.st_ino;
	return fd;
}

static void pub_info(struct zc_topic *t, uint32_t i, zcast_member_info *m)
{
	struct zc_pub_rec *r = &t->pubs[i];
	uint32_t depth = ZC_READ_ONCE(r->history_depth), pool = ZC_READ_ONCE(r->pool);
	m->history_depth = depth <= t->history_cap ? depth : 0;
	if (pool >= t->max_pools ||
	    atomic_load_explicit(&t->pools[pool].state, memory_order_acquire) != ZC_POOL_ACTIVE ||
	    t->pools[pool].owner != i)
		return; /* still joining, or a record that names someone else's pool */
	struct zc_pool_map *pm;
	if (zc_pool_get(t, pool, &pm) != 0)
		return;
	m->slot_size = pm->slot_size; /* validated when the pool was mapped */
	m->slot_count = pm->slot_count;
	for (uint32_t s = 0; s < pm->slot_count; s++) {
		struct zc_slot_hdr *h = zc_slot(pm, s);
		uint32_t st = ZC_STATE_ST(atomic_load(&h->state));
		m->slots_loaned += st == ZC_SLOT_LOANED;
		m->slots_published += st == ZC_SLOT_PUBLISHED;
		uint64_t seq = ZC_READ_ONCE(h->seq), size = ZC_READ_ONCE(h->size);
		if (st != ZC_SLOT_LOANED && seq > m->last_sequence && size <= pm->slot_size) {
			m->last_sequence = seq;
			m->last_size = size;
		}
	}
	zc_pool_put(pm);
}

/* Messages queued in a subscriber's ring: head first, then tail. The tail only grows, so tail >=
 * head; pushes between the two loads can make the difference exceed the depth for a moment, which
 * reads as full. */
static uint32_t queued(struct zc_sub_rec *r, uint32_t depth)
{
	uint64_t head = ZC_HEAD_POS(atomic_load(&r->head));
	uint64_t tail = atomic_load(&r->tail);
	uint64_t used = (tail - head) & 0xffffffffffffull;
	return used > depth ? depth : (uint32_t)used;
}

/* A worker group refuses a publish only when no active member has room. */
static bool group_full(struct zc_topic *t, uint32_t group)
{
	for (uint32_t k = 0; k < t->max_subs; k++) {
		struct zc_sub_rec *r = &t->subs[k];
		uint32_t depth = ZC_READ_ONCE(r->depth);
		if (atomic_load(&r->state) != ZC_REC_ACTIVE ||
		    r->policy != ZCAST_POLICY_BALANCE_RR || r->group != group || depth < 1 ||
		    depth > t->max_depth)
			continue;
		if (queued(r, depth) < depth)
			return false;
	}
	return true;
}

static void sub_info(struct zc_topic *t, uint32_t k, zcast_member_info *m)
{
	struct zc_sub_rec *r = &t->subs[k];
	uint32_t policy = ZC_READ_ONCE(r->policy), depth = ZC_READ_ONCE(r->depth), group = ZC_READ_ONCE(r->group);
	m->policy = policy <= ZCAST_POLICY_BALANCE_RR ? (int)policy : -1;
	m->depth = depth >= 1 && depth <= t->max_depth ? depth : 0;
	if (m->policy == ZCAST_POLICY_BALANCE_RR && group < t->max_groups) {
		memcpy(m->group, t->groups[group].name, sizeof m->group - 1);
		m->group[sizeof m->group - 1] = 0;
	}
	m->queued = queued(r, m->depth);
	m->held = atomic_load(&r->held);
	m->delivered = atomic_load(&r->delivered);
	m->dropped = atomic_load(&r->dropped);
	m->rejected = atomic_load(&r->rejected);
	bool full = m->depth && m->queued >= m->depth;
	m->refusing = full && (m->policy == ZCAST_POLICY_FULL ||
			       (m->policy == ZCAST_POLICY_BALANCE_RR && group_full(t, group)));
}

/* Fills the fields every role has; returns false for a free record. */
static bool common(struct zc_topic *t, _Atomic uint32_t *state, uint32_t member, int32_t pid,
		   zcast_member_info *m)
{
	uint32_t st = atomic_load(state);
	if (st == ZC_REC_FREE || st > ZC_REC_DRAINING)
		return false;
	m->pid = pid;
	m->joining = st == ZC_REC_CLAIMED;
	m->draining = st == ZC_REC_DRAINING;
	m->alive = zc_member_alive(t, member);
	m->policy = -1;
	return true;
}

static int walk(struct zc_topic *t, int (*fn)(const zcast_member_info *m, void *ctx), void *ctx)
{
	int count = 0;
	zcast_member_info m;
	for (uint32_t i = 0; i < t->max_pubs; i++) {
		memset(&m, 0, sizeof m);
		if (!common(t, &t->pubs[i].state, zc_member_of_pub(t, i), t->pubs[i].pid, &m))
			continue;
		m.role = ZCAST_ROLE_PUBLISHER;
		m.index = i;
		m.id = t->pubs[i].id;
		pub_info(t, i, &m);
		count++;
		if (fn && fn(&m, ctx))
			return count;
	}
	for (uint32_t k = 0; k < t->max_subs; k++) {
		memset(&m, 0, sizeof m);
		if (!common(t, &t->subs[k].state, zc_member_of_sub(t, k), t->subs[k].pid, &m))
			continue;
		m.role = ZCAST_ROLE_SUBSCRIBER;
		m.index = k;
		m.id = t->subs[k].id;
		sub_info(t, k, &m);
		count++;
		if (fn && fn(&m, ctx))
			return count;
	}
	for (uint32_t k = 0; k < ZC_TOOL_RECORDS; k++) {
		memset(&m, 0, sizeof m);
		uint32_t member = t->max_pubs + t->max_subs + k;
		if (!common(t, &t->tools[k].state, member, t->tools[k].pid, &m))
			continue;
		m.role = ZCAST_ROLE_TOOL;
		m.index = k;
		count++;
		if (fn && fn(&m, ctx))
			return count;
	}
	return count;
}

int zcast_topic_members(const char *domain, const char *topic,
			int (*fn)(const zcast_member_info *m, void *ctx), void *ctx)
{
	domain = zc_domain_or_default(domain);
	int r = zc_check_names(topic, domain);
	if (r < 0)
		return r;
	/* The probes must ask about the file that is mapped: the same file seen before and after
	 * the peek rules out a topic recreated in between (tmpfs does not hand an inode number out
	 * again at once). */
	char shm_name[300];
	zc_topic_shm_name(shm_name, sizeof shm_name, domain, topic);
	ino_t before = 0, after = 0;
	int fd = open_probe(shm_name, topic, &before);
	if (fd < 0)
		return fd;
	struct zc_topic t;
	memset(&t, 0, sizeof t);
	if ((r = zc_topic_peek(&t, &zc_topic_maps, domain, topic)) == 0) {
		int fd2 = open_probe(shm_name, topic, &after);
		if (fd2 >= 0)
			close(fd2);
		if (fd2 < 0)
			r = fd2;
		else if (after != before)
			r = zc_err(ZCAST_EAGAIN, "topic %s was recreated while being read", topic);
	}
	if (r == 0) {
		t.fd = fd; /* not a member: zc_member_alive probes through t.fd */
		r = walk(&t, fn, ctx);
		t.fd = -1;
	}
	close(fd);
	zc_topic_detach(&t);
	return r;
}
