/* One end of a topic for the bridge benchmarks (bridge_bench.c, bridge_replay.c): the same
 * sensor_msgs/Image either through zcast (to or from a zcast-bridge) or through a plain Cyclone DDS
 * writer/reader (C types made by idlc from tests/bridge/ros_image.idl). A message carries its
 * sequence number in header.stamp.sec and, optionally, a head of up to 16 bytes at the start of
 * its data. zcast topic "/x" is DDS topic "rt/x" (ROS 2 names: a Cyclone peer and a bridge use the
 * same wire). */
#ifndef ZB_BRIDGE_EP_H
#define ZB_BRIDGE_EP_H
#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>
#include <zcast/zcast.h>

#include "sensor_msgs/msg/Image.h"

#define ZBE_OVERHEAD                                                                               \
	48u	     /* CDR bytes of the Image before its data (frame "zb", encoding "mono8")      \
		      */
#define ZBE_HEAD 16u /* most bytes of a message's head */

typedef struct zbe_ep {
	int cyclone;
	zcast_typed_pub *zp;
	zcast_sub *zs;
	dds_entity_t pp, w, r, ws; /* pp: the caller's participant; ws: a wait set on r (Cyclone) */
	uint8_t *buf;		   /* Cyclone: the data buffer of written samples */
} zbe_ep;

/* Each exits the program with a message on failure (a benchmark has no way on). */
/* A writer of messages with up to max_data data bytes (zcast: slots slots). */
void zbe_open_writer(zbe_ep *e, const char *topic, uint32_t max_data, uint32_t slots);
/* A reliable reader (zcast: FULL queue of depth, the publisher waits; Cyclone: KEEP_ALL). A Cyclone
 * reader's read condition goes into e->ws if the caller set it (one wait set for many readers, the
 * attach argument is e), else into a wait set of its own. */
void zbe_open_reader(zbe_ep *e, const char *topic, uint32_t depth);
/* Sends message seq with n data bytes, the first hn (<= ZBE_HEAD, <= n) of them from head; waits
 * for a slot and for room rather than lose it. */
void zbe_send(zbe_ep *e, uint32_t seq, uint32_t n, const void *head, uint32_t hn);
/* Takes one message if there is one: 1 with its seq, data length and first ZBE_HEAD data bytes
 * (zero-filled past the data) in head (may be NULL); 0 if none. Never blocks. */
int zbe_take(zbe_ep *e, uint32_t *seq, uint32_t *n, uint8_t *head);
/* Receives one message (blocks): as zbe_take. */
void zbe_recv(zbe_ep *e, uint32_t *seq, uint32_t *n, uint8_t *head);
/* Number of matched remote readers (Cyclone) or of subscribers of the topic (zcast). */
uint32_t zbe_readers(zbe_ep *e, const char *topic);
/* Number of matched remote writers of a Cyclone reader (zcast: 1). */
uint32_t zbe_writers(zbe_ep *e);
void zbe_die(const char *what);
/* CLOCK_MONOTONIC in ns. */
int64_t zbe_now_ns(void);
/* The number after option `name` in argv, or def. */
long zbe_opt(int argc, char **argv, const char *name, long def);

#endif
