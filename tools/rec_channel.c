/* A zcast topic as an MCAP channel, the way rosbag2 writes ROS 2 topics: schema `ros2msg` with the
 * .msg text and its dependencies, message encoding `cdr`, QoS as rosbag2's offered_qos_profiles
 * YAML, the RIHS01 hash as topic_type_hash. zcast's own keys keep what a replay needs: the exact
 * type identity and the history depth (transient local). Untyped topics are `zcast.raw`. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "type_text.h"

static int deepest_history(const zcast_member_info *m, void *ctx)
{
	uint32_t *h = ctx;
	if (m->role == ZCAST_ROLE_PUBLISHER && m->alive && m->history_depth > *h)
		*h = m->history_depth;
	return 0;
}

/* A ROS 2 type: pkg/msg/Name with a RIHS01 hash (not a plain-struct "ZCP1" or all-zero hash). */
static bool ros_typed(const zcast_topic_stat *st)
{
	static const uint8_t zero[ZCAST_TYPE_HASH_SIZE];
	return strstr(st->type_name, "/msg/") && memcmp(st->type_hash, zero, sizeof zero) &&
	       memcmp(st->type_hash, "ZCP1", 4);
}

int rec_topic_describe(const char *domain, const char *topic, struct rec_topic_desc *d)
{
	zcast_topic_stat st;
	int r = zcast_topic_stat_get(domain, topic, &st);
	if (r < 0)
		return r;
	memset(d, 0, sizeof *d);
	snprintf(d->topic, sizeof d->topic, "%s", topic);
	snprintf(d->type_name, sizeof d->type_name, "%s", st.type_name);
	memcpy(d->type_hash, st.type_hash, sizeof d->type_hash);
	d->typed = ros_typed(&st);
	zcast_topic_members(domain, topic, deepest_history, &d->history_depth);
	if (st.history_len > d->history_depth)
		d->history_depth = st.history_len;
	return 0;
}

uint32_t rec_join_queue(uint32_t asked, uint32_t history, const zcast_topic_stat *st)
{
	uint32_t q = asked > history ? asked : history;
	return st->max_queue_depth && q > st->max_queue_depth ? st->max_queue_depth : q;
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

int rec_channel_add(struct bag_writer *w, const struct rec_topic_desc *d, bool *warn)
{
	int schema = 0;
	*warn = false;
	if (d->typed) {
		const char *text = type_text_find(d->type_name, d->type_hash);
		*warn = !text;
		text = text ? text : "";
		schema = bag_writer_schema(w, d->type_name, "ros2msg", text, strlen(text));
		if (schema < 0)
			return -1;
	}
	char qos[512], rihs[ZCAST_TYPE_HASH_STR_SIZE], hash[2 * ZCAST_TYPE_HASH_SIZE + 1],
	    history[16];
	/* rosbag2's offered_qos_profiles: one profile per publisher; zcast delivers reliably,
	 * and a topic with history is what ROS calls transient local. */
	snprintf(qos, sizeof qos,
		 "- history: keep_last\n  depth: %u\n  reliability: reliable\n  durability: %s\n"
		 "  deadline:\n    sec: 9223372036\n    nsec: 854775807\n"
		 "  lifespan:\n    sec: 9223372036\n    nsec: 854775807\n"
		 "  liveliness: automatic\n"
		 "  liveliness_lease_duration:\n    sec: 9223372036\n    nsec: 854775807\n"
		 "  avoid_ros_namespace_conventions: false\n",
		 d->history_depth ? d->history_depth : d->queue_depth,
		 d->history_depth ? "transient_local" : "volatile");
	zcast_type_hash_str(d->type_hash, rihs);
	hex(d->type_hash, ZCAST_TYPE_HASH_SIZE, hash);
	snprintf(history, sizeof history, "%u", d->history_depth);
	const char *kv[] = {"offered_qos_profiles", qos,      "topic_type_hash", rihs,
			    "zcast.type_name",	    d->type_name, "zcast.type_hash", hash,
			    "zcast.history_depth",  history};
	const char *const *pairs = d->typed ? kv : kv + 4;
	return bag_writer_channel(w, schema, d->topic, d->typed ? REC_ENC_CDR : REC_ENC_RAW, pairs,
				  d->typed ? 5 : 3);
}

static void unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n && s[2 * i] && s[2 * i + 1]; i++) {
		char b[3] = {s[2 * i], s[2 * i + 1], 0};
		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
}

void rec_channel_read(const struct bag_reader *r, const struct bag_channel *ch,
		      struct rec_topic_desc *d)
{
	memset(d, 0, sizeof *d);
	snprintf(d->topic, sizeof d->topic, "%s", ch->topic);
	d->typed = !strcmp(ch->encoding, REC_ENC_CDR);
	const char *name = bag_meta(ch->meta, ch->nmeta, "zcast.type_name");
	const char *hash = bag_meta(ch->meta, ch->nmeta, "zcast.type_hash");
	const char *rihs = bag_meta(ch->meta, ch->nmeta, "topic_type_hash");
	const struct bag_schema *s = bag_schema_get(r, ch->schema_id);
	if (!name && s) /* a rosbag2 file: the schema names the type */
		name = s->name;
	snprintf(d->type_name, sizeof d->type_name, "%s", name ? name : "");
	if (hash && strlen(hash) == 2 * ZCAST_TYPE_HASH_SIZE)
		unhex(hash, d->type_hash, ZCAST_TYPE_HASH_SIZE);
	else if (rihs && !strncmp(rihs, "RIHS01_", 7) && strlen(rihs) == 7 + 64)
		unhex(rihs + 7, d->type_hash, ZCAST_TYPE_HASH_SIZE);
	const char *h = bag_meta(ch->meta, ch->nmeta, "zcast.history_depth");
	d->foreign = !bag_meta(ch->meta, ch->nmeta, "zcast.type_name") && !h;
	d->history_depth =
	    h ? (uint32_t)strtoul(h, NULL, 10)
	      : rec_qos_history(bag_meta(ch->meta, ch->nmeta, "offered_qos_profiles"), ch->count);
}
