/* Doorbells: one small segment per wait set, so that a wait on many subscribers sleeps on one futex
 * word and wakes up knowing which of them fired (docs/WAITSETS.md, "The doorbell").
 *
 * The owner (a wait set) creates /dev/shm/zcast-bell.<pid>.<serial> and writes a reference to it
 * (ZC_BELL_REF, layout.h) into the record of every subscriber it waits for. A publisher that pushes
 * a message to such a subscriber sets the subscriber's bit in the doorbell's ready set and, only if
 * the owner sleeps, bumps the doorbell word and wakes it after unlocking (an owed wake, like the
 * topic word's). A ringer trusts nothing of the doorbell's: the reference is read once, the file is
 * checked (fstat: owner, mode, exactly ZC_BELL_SIZE bytes) before it is mapped, and the bit is
 * range checked; a wrong reference can only ring somebody's doorbell for nothing. */
#ifndef ZC_DOORBELL_H
#define ZC_DOORBELL_H

#include "proto_internal.h"

/* One mapped doorbell, shared by every user in this process (refcounted). */
struct zc_bell {
	_Atomic int refs;
	uint64_t key; /* ZC_BELL_REF_KEY: pid and serial */
	struct zc_bell_hdr *hdr;
	struct zc_bell *next; /* the process's table of mapped doorbells */
	bool owned;	      /* one of this process's own wait sets */
};

#define ZC_BELL_PREFIX "zcast-bell." /* /dev/shm/zcast-bell.<pid>.<serial> */
/* The file name of doorbell `key` (pid and serial). */
ZC_HIDDEN void zc_bell_name(char *out, size_t n, uint64_t key);
/* Maps an existing doorbell file after the trust checks. NULL (error recorded) when untrusted. */
ZC_HIDDEN struct zc_bell_hdr *zc_bell_map_checked(int fd, const char *name, unsigned mode);

/* ---- the process's table (bell_table.c) ---- */
/* Adds b (with the caller's reference) unless its key is there already; returns the entry to use,
 * with a reference for the caller. An owned doorbell is unlinked when the process exits. */
ZC_HIDDEN struct zc_bell *zc_bell_table_add(struct zc_bell *b);
ZC_HIDDEN void zc_bell_table_remove(struct zc_bell *b);
/* Installs the table's fork handlers now. A layer above whose own handlers take a lock that is held
 * while the table's is taken calls this first: handlers installed later prepare first. */
ZC_HIDDEN void zc_bell_table_fork_handlers(void);

/* ---- the owner: a wait set ---- */
struct zc_bell_own {
	struct zc_bell *b;
	int fd;		   /* holds the liveness lock (byte 0) */
	unsigned fork_gen; /* a forked child lets go of its parent's doorbell without touching it */
	char name[64];
};
/* Creates this process's next doorbell (removing dead ones first). 0 or a negative code. */
ZC_HIDDEN int zc_bell_create(struct zc_bell_own *o);
/* Marks it closed, unlinks it and drops the liveness lock. */
ZC_HIDDEN void zc_bell_destroy(struct zc_bell_own *o);
static inline uint64_t zc_bell_ref(const struct zc_bell_own *o, uint32_t bit)
{
	return (o->b->key << 16) | bit;
}

/* ---- ringers ---- */
/* The doorbell `key` names, mapped after the trust checks (`mode`: the caller's topic.mode), with
 * a reference; NULL when it cannot be used. */
ZC_HIDDEN struct zc_bell *zc_bell_get(uint64_t key, unsigned mode);
ZC_HIDDEN void zc_bell_put(struct zc_bell *b);
static inline bool zc_bell_closed(const struct zc_bell *b)
{
	return atomic_load_explicit(&b->hdr->closed, memory_order_relaxed) != 0;
}
/* Sets `bit` (< ZC_BELL_BITS) after the push it announces. Returns true when the owner sleeps:
 * the caller bumps the word (zc_bell_bump) and wakes it. Pairs with the owner's "announce, then
 * check the ready set" (seq_cst on both sides: one of the two sees the other). */
static inline bool zc_bell_set(struct zc_bell *b, uint32_t bit)
{
	/* SYNC: bell-ring: the bit before reading `sleeping`; partner wait/ws_wait.c arm_bell */
	atomic_fetch_or_explicit(&b->hdr->bits[bit / 64], 1ull << (bit % 64), memory_order_seq_cst);
	return atomic_load_explicit(&b->hdr->sleeping, memory_order_seq_cst) != 0;
}
/* After zc_bell_set said the owner sleeps: must this ringer bump and wake it (`woken`, layout.h)?
 * False when a claimer of this sleep has delivered its wake already. True otherwise, with *claim
 * set when this ringer won the claim: it then hands *claim to zc_bell_delivered after its
 * FUTEX_WAKE. A ringer that finds the wake claimed by another wakes too (*claim = 0): that claimer
 * may have been killed before its wake, and the others must not wait for it. */
static inline bool zc_bell_must_wake(struct zc_bell *b, uint32_t *claim)
{
	/* SYNC: bell-claim: one claimer per sleep epoch; partner wait/ws_wait.c arm_bell */
	uint32_t w = atomic_load_explicit(&b->hdr->woken, memory_order_seq_cst);
	*claim = 0;
	if (ZC_BELL_WOKEN_STATE(w) == ZC_BELL_FREE) {
		uint32_t c = w | ZC_BELL_CLAIMED;
		if (atomic_compare_exchange_strong_explicit(&b->hdr->woken, &w, c,
							    memory_order_seq_cst,
							    memory_order_seq_cst)) {
			*claim = c;
			return true;
		}
	}
	return ZC_BELL_WOKEN_STATE(w) != ZC_BELL_DELIVERED;
}
/* The claimer's FUTEX_WAKE is done: later ringers of the same sleep skip theirs. A CAS: the owner
 * may have started a new sleep (a new epoch) meanwhile, which this must not mark. */
static inline void zc_bell_delivered(struct zc_bell *b, uint32_t claim)
{
	uint32_t c = claim;
	atomic_compare_exchange_strong_explicit(&b->hdr->woken, &c,
						(claim & ~3u) | ZC_BELL_DELIVERED,
						memory_order_seq_cst, memory_order_relaxed);
}
static inline void zc_bell_bump(struct zc_bell *b)
{
	atomic_fetch_add_explicit(&b->hdr->word, 1, memory_order_seq_cst);
}
ZC_HIDDEN void zc_bell_wake(struct zc_bell *b);
/* Rings the doorbell a subscriber record's reference names, now (wakes included): the slow path
 * of releases. */
ZC_HIDDEN void zc_bell_ring_ref(uint64_t ref, unsigned mode);
/* Ringing many records at once (owed wakes, repairs, joins): bits set at once, each sleeping
 * doorbell bumped and woken once, by zc_bell_batch_wake. */
#define ZC_BELL_BATCH 32
struct zc_bell_batch {
	uint32_t n;
	struct zc_bell *b[ZC_BELL_BATCH];
};
ZC_HIDDEN void zc_bell_batch_ring(struct zc_bell_batch *bb, uint64_t ref, unsigned mode);
ZC_HIDDEN void zc_bell_batch_wake(struct zc_bell_batch *bb);

/* ---- cleanup (bell_sweep.c): a doorbell's file outlives a killed owner until somebody removes it ---- */
/* Removes the doorbell `ref` names if its owner is gone (its lock is free). */
ZC_HIDDEN void zc_bell_reap(uint64_t ref);
/* Removes every doorbell file whose owner is gone; returns how many. */
ZC_HIDDEN int zc_bell_sweep(void);

#endif
