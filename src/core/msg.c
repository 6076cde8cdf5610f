/* Message handles: the process-local half of ipc_shared_ptr. Copies share one block
 * and one atomic count; only the last drop touches shared memory. */
#include <stdlib.h>

#include "core_internal.h"

static bool stale(const zcast_msg *m)
{
	if (atomic_load_explicit(&m->kind, memory_order_acquire) != ZC_MSG_CONSUMED)
		return false;
#ifdef ZCAST_DEBUG_CHECKS
	abort(); /* a write through a published loan would corrupt what subscribers read */
#endif
	zc_err(ZCAST_ESTALE, "loan was already published");
	return true;
}

ZC_HOT void *zcast_msg_data(zcast_msg *m)
{
	if (!m || stale(m))
		return NULL;
	return m->data;
}

size_t zcast_msg_size(const zcast_msg *m)
{
	return !m || stale(m) ? 0 : m->size;
}

size_t zcast_msg_capacity(const zcast_msg *m)
{
	return m ? m->map->slot_size : 0;
}

/* 0 if m is an unpublished loan, else the error; `done` names the call's action for it. */
static int check_loan(zcast_msg *m, const char *done)
{
	if (!m)
		return ZCAST_EINVAL;
	if (stale(m))
		return ZCAST_ESTALE;
	if (atomic_load(&m->kind) != ZC_MSG_LOAN)
		return zc_err(ZCAST_EINVAL, "only a loan can be %s", done);
	return 0;
}

int zcast_msg_resize(zcast_msg *m, size_t size)
{
	int e = check_loan(m, "resized");
	if (e < 0)
		return e;
	if (size > m->map->slot_size)
		return zc_err(ZCAST_EINVAL, "size %zu exceeds the slot size %llu", size,
			      (unsigned long long)m->map->slot_size);
	m->size = size;
	return 0;
}

int zcast_msg_set_mark(zcast_msg *m, uint32_t mark)
{
	int e = check_loan(m, "marked");
	if (e == 0)
		m->mark = mark;
	return e;
}

zcast_msg *zcast_msg_ref(zcast_msg *m)
{
	if (m)
		atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	return m;
}

ZC_HOT void zcast_msg_drop(zcast_msg *m)
{
	if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
		return;
	switch (atomic_load(&m->kind)) {
	/* Each frees m, or keeps it for the owner's next loan or take. */
	case ZC_MSG_LOAN:
		zc_pub_return_loan(m->pub, m); /* dropped unpublished: the slot goes back */
		return;
	case ZC_MSG_CONSUMED:
		zc_pub_release_msg(m->pub, m); /* the topic owns the slot now */
		return;
	case ZC_MSG_RECEIVED:
		zc_sub_release(m->sub, m);
		return;
	}
	free(m);
}

int zcast_msg_info_get(const zcast_msg *m, zcast_msg_info *info)
{
	if (!m || !info)
		return ZCAST_EINVAL;
	if (stale(m))
		return ZCAST_ESTALE;
	/* The take's copies: the slot header is the publisher's to rewrite (and a scribbler's). */
	bool received = atomic_load(&m->kind) == ZC_MSG_RECEIVED;
	info->sequence = received ? m->stamp.sequence : 0;
	info->publish_time_ns = received ? m->stamp.publish_time_ns : 0;
	info->publisher_id = received ? m->publisher_id : m->pub->id;
	info->slot = m->slot;
	info->generation = (uint32_t)m->gen;
	info->pool_dev = m->map->dev;
	info->pool_ino = m->map->ino;
	info->pool_offset = m->map->payload_off + (uint64_t)m->slot * m->map->slot_size;
	return 0;
}
