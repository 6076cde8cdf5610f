/* Topic and domain names and the /dev/shm names derived from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto_internal.h"

static bool is_alpha_(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int zcast_topic_name_valid(const char *topic)
{
	if (!topic)
		return ZCAST_EINVAL;
	size_t n = strnlen(topic, ZC_NAME_MAX + 1);
	if (n == 0 || n > ZC_NAME_MAX || topic[0] != '/')
		return ZCAST_EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = topic[i];
		if (c == '/') {
			if (i + 1 >= n || !is_alpha_(topic[i + 1]))
				return ZCAST_EINVAL; /* empty component, trailing '/' or leading digit */
		} else if (!is_alpha_(c) && !is_digit(c)) {
			return ZCAST_EINVAL;
		}
	}
	return 0;
}

int zcast_domain_name_valid(const char *domain)
{
	if (!domain)
		return ZCAST_EINVAL;
	size_t n = strnlen(domain, 33);
	if (n == 0 || n > 32)
		return ZCAST_EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = domain[i];
		if (!is_alpha_(c) && !is_digit(c) && c != '-')
			return ZCAST_EINVAL;
	}
	return 0;
}

const char *zc_domain_or_default(const char *domain)
{
	if (domain && *domain)
		return domain;
	const char *env = getenv("ZCAST_DOMAIN");
	return env && *env ? env : "default";
}

void zc_topic_shm_name(char *out, size_t n, const char *domain, const char *topic)
{
	int len = snprintf(out, n, "/zcast.%s.%s", domain, topic + 1);
	for (int i = (int)strlen("/zcast.") + (int)strlen(domain) + 1; i < len && (size_t)i < n; i++)
		if (out[i] == '/')
			out[i] = '.';
}

void zc_pool_shm_name(char *out, size_t n, const char *domain, uint64_t topic_hash, uint64_t pool_id)
{
	/* '@' cannot appear in a topic name, so pools never collide with topics. */
	snprintf(out, n, "/zcast.%s.@%016llx.%016llx", domain, (unsigned long long)topic_hash,
		 (unsigned long long)pool_id);
}

uint64_t zc_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

int zc_check_names(const char *topic, const char *domain)
{
	if (zcast_topic_name_valid(topic) != 0)
		return zc_err(ZCAST_EINVAL,
			      "invalid topic name \"%.210s\": want /name[/name...], each name [A-Za-z_]"
			      "[A-Za-z0-9_]*, at most %d bytes",
			      topic ? topic : "(null)", ZC_NAME_MAX);
	if (zcast_domain_name_valid(domain) != 0)
		return zc_err(ZCAST_EINVAL, "invalid domain name \"%.40s\": want [A-Za-z0-9_-]{1,32}",
			      domain);
	return 0;
}
