/* Dropping a hold: clearing one holder bit, and freeing the slot once every bit is clear.
 *
 * Invariant: bits are added only to a slot that is exclusively loaned (at publish) or, under the
 * topic lock, to a slot whose history bit is set (late join). Hence once every word reads zero, and
 * the history word was read first, nobody can add a bit again: the slot may be freed, by exactly
 * one CAS (PUBLISHED, gen) -> (FREE, gen + 1). Clear-then-scan is sequentially consistent so that
 * of two releasers clearing the last two bits, at least one sees zero. */
#include <limits.h>

#include "proto_internal.h"

bool zc_slot_bits_zero(struct zc_pool_map *m, uint32_t i)
{
	struct zc_slot_hdr *s = zc_slot(m, i);
	/* Word 0 holds the history bit: read it first (see above). */
	for (uint32_t w = 0; w < m->bitmap_words; w++)
		if (atomic_load_explicit(&s->bits[w], memory_order_seq_cst) != 0)
			return false;
	return true;
}

ZC_HOT bool zc_slot_free(struct zc_pool_map *m, uint32_t i, uint32_t from_state, uint64_t gen)
{
	struct zc_slot_hdr *s = zc_slot(m, i);
	uint64_t expect = ZC_STATE(from_state, gen);
	/* SYNC: slot-free: the releases before FREE; partner core/loan.c try_loan (CAS). Store
	 * buffering with loan_impl's announce: both sides seq_cst, so one of us sees the other. */
	if (!atomic_compare_exchange_strong_explicit(&s->state, &expect,
						     ZC_STATE(ZC_SLOT_FREE, gen + 1),
						     memory_order_seq_cst, memory_order_relaxed))
		return false;
	ZC_CRASH("free:after-cas");
	struct zc_pool_hdr *h = zc_pool_hdr(m);
	/* SYNC: pool-freed: FREE before reading waiters; partners core/loan.c loan_impl,
	 * wait/room.c zc_room_arm */
	if (atomic_load_explicit(&h->waiters, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&h->freed, 1, memory_order_seq_cst);
		zc_futex_wake(&h->freed, INT_MAX); /* a loan_wait and a room entry may both wait */
	}
	return true;
}

bool zc_slot_try_free(struct zc_pool_map *m, uint32_t i, uint64_t gen)
{
	if (!zc_slot_bits_zero(m, i))
		return false;
	return zc_slot_free(m, i, ZC_SLOT_PUBLISHED, gen);
}

ZC_HOT bool zc_slot_release_bit(struct zc_pool_map *m, uint32_t i, uint32_t bit, uint64_t gen)
{
	struct zc_slot_hdr *s = zc_slot(m, i);
	ZC_TSAN_RELEASE(&s->state); /* our reads of the payload end here (see internal.h) */
	atomic_fetch_and_explicit(&s->bits[bit / 64], ~(1ull << (bit % 64)), memory_order_seq_cst);
	ZC_CRASH("release:after-clear");
	return zc_slot_try_free(m, i, gen);
}
