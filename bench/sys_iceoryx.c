/* Eclipse iceoryx (v2, C binding) as a peer. Needs a running RouDi (bench/run.sh starts one with a
 * config whose mempools reach 8 MiB). Service = ("zbench", run_id, channel). Publisher policy
 * WAIT_FOR_CONSUMER + subscriber BLOCK_PRODUCER = backpressure, no loss (as zcast FULL).
 * Event mode: a WaitSet on the HAS_DATA state; busy-poll mode: loop on iox_sub_take_chunk.
 * No try_send: the publisher cannot fail on a full queue (WAIT_FOR_CONSUMER blocks in publish,
 * DISCARD_OLDEST drops), so overload full_fail skips iceoryx. */
#include "transport.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iceoryx_binding_c/enums.h"
#include "iceoryx_binding_c/log.h"
#include "iceoryx_binding_c/notification_info.h"
#include "iceoryx_binding_c/publisher.h"
#include "iceoryx_binding_c/runtime.h"
#include "iceoryx_binding_c/subscriber.h"
#include "iceoryx_binding_c/wait_set.h"

struct zb_chan {
	const zb_chan_params *p;
	iox_pub_storage_t pst;
	iox_sub_storage_t sst;
	iox_ws_storage_t wst;
	iox_pub_t pub;
	iox_sub_t sub;
	iox_ws_t ws;
};

static int runtime_users;

int zb_iox_roudi_check(char *why, size_t n)
{
	if (access("/dev/shm/iceoryx_mgmt", F_OK) != 0) {
		snprintf(why, n, "RouDi is not running (no /dev/shm/iceoryx_mgmt)");
		return -1;
	}
	return 0;
}

static int x_prepare(zb_chan_params *p, void **shared, char *why, size_t n)
{
	*shared = NULL;
	if (p->wake != ZB_WAKE_ALL) {
		snprintf(why, n, "iceoryx wakes its listeners itself: no --wake %s", zb_wake_names[p->wake]);
		return -1;
	}
	return zb_iox_roudi_check(why, n);
}

static int x_open(const zb_chan_params *p, void *shared, int reader, zb_chan **out)
{
	(void)shared;
	if (runtime_users++ == 0) {
		char name[64];
		snprintf(name, sizeof name, "%s_%d", p->run_id, (int)getpid());
		iox_set_loglevel(Iceoryx_LogLevel_Warn);
		iox_runtime_init(name);
	}
	zb_chan *c = calloc(1, sizeof *c);
	c->p = p;
	if (reader < 0) {
		iox_pub_options_t o;
		iox_pub_options_init(&o);
		o.historyCapacity = 0;
		o.subscriberTooSlowPolicy = p->drop_old ? ConsumerTooSlowPolicy_DISCARD_OLDEST_DATA
		                                        : ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER;
		c->pub = iox_pub_init(&c->pst, "zbench", p->run_id, p->name, &o);
	} else {
		iox_sub_options_t o;
		iox_sub_options_init(&o);
		o.queueCapacity = (uint64_t)p->depth;
		o.historyRequest = 0;
		o.queueFullPolicy = p->drop_old ? QueueFullPolicy_DISCARD_OLDEST_DATA : QueueFullPolicy_BLOCK_PRODUCER;
		c->sub = iox_sub_init(&c->sst, "zbench", p->run_id, p->name, &o);
		if (!p->spin) {
			c->ws = iox_ws_init(&c->wst);
			if (iox_ws_attach_subscriber_state(c->ws, c->sub, SubscriberState_HAS_DATA, 0, NULL) !=
			    WaitSetResult_SUCCESS)
				return -1;
		}
	}
	*out = c;
	return 0;
}

static int x_ready(zb_chan *c, int64_t deadline)
{
	while (c->pub ? !iox_pub_has_subscribers(c->pub)
	              : iox_sub_get_subscription_state(c->sub) != SubscribeState_SUBSCRIBED) {
		if (zb_now() > deadline) {
			fprintf(stderr, "iceoryx: %s not connected in time\n", c->pub ? "publisher" : "subscriber");
			return -1;
		}
		usleep(1000);
	}
	return 0;
}

static int x_send(zb_chan *c, const zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	void *chunk;
	enum iox_AllocationResult r;
	while ((r = iox_pub_loan_chunk(c->pub, &chunk, (uint32_t)size)) != AllocationResult_SUCCESS) {
		if (r != AllocationResult_RUNNING_OUT_OF_CHUNKS || zb_now() > deadline) {
			fprintf(stderr, "iox_pub_loan_chunk(%zu): result %d\n", size, (int)r);
			return -1;
		}
		if (!c->p->spin)
			usleep(10);
	}
	zb_fill(chunk, size, h, mode);
	iox_pub_publish_chunk(c->pub, chunk); /* blocks while a subscriber queue is full */
	return 0;
}

static int x_recv(zb_chan *c, zb_hdr *h, size_t size, int mode, int64_t deadline)
{
	const void *chunk;
	enum iox_ChunkReceiveResult r;
	unsigned spins = 0;
	int woke = 0;
	zb_take_ns = -1;
	for (;;) {
		int64_t t0 = zb_take_begin(woke);
		r = iox_sub_take_chunk(c->sub, &chunk);
		zb_take_end(t0);
		if (r != ChunkReceiveResult_NO_CHUNK_AVAILABLE)
			break;
		if (c->p->spin) {
			if ((++spins & 1023) == 0 && zb_now() > deadline)
				return -1;
			continue;
		}
		iox_notification_info_t ev[4];
		uint64_t missed = 0;
		struct timespec tmo = {0, 100000000};
		iox_ws_timed_wait(c->ws, tmo, ev, 4, &missed);
		woke = 1;
		if (zb_now() > deadline)
			return -1;
	}
	if (r != ChunkReceiveResult_SUCCESS) {
		fprintf(stderr, "iox_sub_take_chunk: result %d\n", (int)r);
		return -1;
	}
	zb_sink += zb_consume(chunk, size, h, mode);
	iox_sub_release_chunk(c->sub, chunk);
	return 0;
}

static void x_close(zb_chan *c)
{
	if (c->ws) {
		iox_ws_detach_subscriber_state(c->ws, c->sub, SubscriberState_HAS_DATA);
		iox_ws_deinit(c->ws);
	}
	if (c->sub)
		iox_sub_deinit(c->sub);
	if (c->pub)
		iox_pub_deinit(c->pub);
	free(c);
	if (--runtime_users == 0)
		iox_runtime_shutdown();
}

static void x_cleanup(zb_chan_params *p, void *shared) { (void)p, (void)shared; }

const zb_system zb_sys_iceoryx = {"iceoryx", x_prepare, x_open, x_ready, x_send, NULL, x_recv, x_close,
                                  x_cleanup};
