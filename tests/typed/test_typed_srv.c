/* Typed services without the runtime: the generated service identity (zcast_service_type), the
 * declared defaults of request and response (plain struct and loan layout), and a request and a
 * response written through their writer views, compacted and read back. */
#include "../harness.h"

#include <std_srvs/srv/SetBool.h>
#include <zcast_test/srv/Config.h>

typedef zcast_test_srv_Config_Request Req;
typedef zcast_test_srv_Config_Response Resp;

static bool str_is(zcast_cdr_str s, const char *want)
{
	return s.len == strlen(want) && !memcmp(s.data, want, s.len);
}

static void test_identity(void)
{
	const zcast_service_type *s = &zcast_test_srv_Config_SERVICE;
	CHECK(!strcmp(s->name, "zcast_test/srv/Config"));
	CHECK(s->hash == zcast_test_srv_Config_TYPE_HASH);
	CHECK(s->request == &zcast_test_srv_Config_Request_TYPE);
	CHECK(s->response == &zcast_test_srv_Config_Response_TYPE);
	CHECK(!strcmp(s->request->name, "zcast_test/srv/Config_Request"));
	CHECK(!strcmp(s->response->name, "zcast_test/srv/Config_Response"));
	CHECK(strstr(s->text, "\n---\n") != NULL);
	/* the service hash is neither part's */
	CHECK(memcmp(s->hash, s->request->hash, ZCAST_TYPE_HASH_SIZE) != 0);
	char str[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(std_srvs_srv_SetBool_TYPE_HASH, str);
	CHECK(!strcmp(str, std_srvs_srv_SetBool_TYPE_HASH_STR));
}

static void test_plain_defaults(void)
{
	Req q;
	memset(&q, 0x5a, sizeof q);
	zcast_test_srv_Config_Request_init(&q);
	CHECK(str_is(q.name, "node"));
	CHECK_EQ(q.level, 3);
	CHECK_EQ(q.gains.len, 2);
	CHECK(((const double *)q.gains.data)[0] == 1.0 && ((const double *)q.gains.data)[1] == 2.5);
	CHECK(q.at.sec == 0 && q.at.nanosec == 0);
	Resp r;
	memset(&r, 0x5a, sizeof r);
	zcast_test_srv_Config_Response_init(&r);
	CHECK(r.ok);
	CHECK_EQ(r.reply.len, 0);
	CHECK_EQ(r.codes.len, 2);
	CHECK(((const uint8_t *)r.codes.data)[0] == 7 && ((const uint8_t *)r.codes.data)[1] == 8);
}

static _Alignas(8) uint8_t buf[4096];

/* A writer over buf + 8 (the CDR origin of a loan) laid out at bounds b; buf + 4 is the header. */
static void layout(const zcast_cdr_type *t, const void *b, zcast_cdr_writer *w, uint32_t *off,
		   uint32_t *cap)
{
	size_t size;
	memset(buf, 0x77, sizeof buf);
	CHECK_EQ(zcast_cdr_bound_size(t, b, &size), 0);
	CHECK(size + 8 <= sizeof buf);
	memcpy(buf + 4, "\0\1\0\0", 4);
	w->base = buf + 8, w->bounds = b, w->size = (uint32_t)size;
	zcast_cdr_layout(t, b, w->base, off, cap);
}

static size_t compact(const zcast_cdr_type *t, const zcast_cdr_writer *w)
{
	size_t size;
	CHECK_EQ(zcast_cdr_compact(t, w->bounds, w->base, &size), 0);
	return size + 4; /* with the encapsulation header */
}

static void test_request_loan(void)
{
	zcast_test_srv_Config_Request_bounds b = {.name = 16, .gains = 4};
	zcast_test_srv_Config_Request_writer w;
	zcast_test_srv_Config_Request_reader r;
	layout(&zcast_test_srv_Config_Request_TYPE, &b, &w.w, w.off, w.cap);
	size_t n = compact(&zcast_test_srv_Config_Request_TYPE, &w.w);
	CHECK_EQ(zcast_test_srv_Config_Request_read(&r, buf + 4, n), 0); /* defaults */
	CHECK(str_is(zcast_test_srv_Config_Request_name(&r), "node"));
	CHECK_EQ(zcast_test_srv_Config_Request_level(&r), 3);
	uint32_t k;
	const double *g = zcast_test_srv_Config_Request_gains(&r, &k);
	CHECK(k == 2 && g[0] == 1.0 && g[1] == 2.5);

	layout(&zcast_test_srv_Config_Request_TYPE, &b, &w.w, w.off, w.cap);
	CHECK_EQ(zcast_test_srv_Config_Request_w_name_set(&w, "motor"), 0);
	CHECK_EQ(zcast_test_srv_Config_Request_w_name_set(&w, "seventeen bytes!!"), ZCAST_EINVAL);
	zcast_test_srv_Config_Request_w_level_set(&w, -9);
	uint32_t cap;
	double *wg = zcast_test_srv_Config_Request_w_gains(&w, &cap);
	CHECK_EQ(cap, 4);
	wg[0] = 0.5, wg[1] = 1.5, wg[2] = 2.5;
	CHECK_EQ(zcast_test_srv_Config_Request_w_gains_set_len(&w, 3), 0);
	zcast_test_srv_Config_Request_w_at_sec_set(&w, 12);
	n = compact(&zcast_test_srv_Config_Request_TYPE, &w.w);
	CHECK_EQ(zcast_test_srv_Config_Request_read(&r, buf + 4, n), 0);
	CHECK(str_is(zcast_test_srv_Config_Request_name(&r), "motor"));
	CHECK_EQ(zcast_test_srv_Config_Request_level(&r), -9);
	g = zcast_test_srv_Config_Request_gains(&r, &k);
	CHECK(k == 3 && g[0] == 0.5 && g[2] == 2.5);
	CHECK_EQ(zcast_test_srv_Config_Request_at_sec(&r), 12);
	/* the copy path reads what the loan wrote */
	Req q;
	CHECK_EQ(zcast_cdr_deserialize(&zcast_test_srv_Config_Request_TYPE, buf + 4, n, &q), 0);
	CHECK(str_is(q.name, "motor") && q.level == -9 && q.gains.len == 3 && q.at.sec == 12);
	zcast_cdr_free(&zcast_test_srv_Config_Request_TYPE, &q);
}

static void test_response_loan(void)
{
	zcast_test_srv_Config_Response_bounds b = {.reply = 32, .codes = 4};
	zcast_test_srv_Config_Response_writer w;
	zcast_test_srv_Config_Response_reader r;
	layout(&zcast_test_srv_Config_Response_TYPE, &b, &w.w, w.off, w.cap);
	size_t n = compact(&zcast_test_srv_Config_Response_TYPE, &w.w);
	CHECK_EQ(zcast_test_srv_Config_Response_read(&r, buf + 4, n), 0);
	CHECK(zcast_test_srv_Config_Response_ok(&r));
	uint32_t k;
	const uint8_t *c = zcast_test_srv_Config_Response_codes(&r, &k);
	CHECK(k == 2 && c[0] == 7 && c[1] == 8);

	layout(&zcast_test_srv_Config_Response_TYPE, &b, &w.w, w.off, w.cap);
	zcast_test_srv_Config_Response_w_ok_set(&w, false);
	CHECK_EQ(zcast_test_srv_Config_Response_w_reply_set(&w, "level -9 refused"), 0);
	CHECK_EQ(zcast_test_srv_Config_Response_w_codes_set_len(&w, 5), ZCAST_EINVAL);
	n = compact(&zcast_test_srv_Config_Response_TYPE, &w.w);
	CHECK_EQ(zcast_test_srv_Config_Response_read(&r, buf + 4, n), 0);
	CHECK(!zcast_test_srv_Config_Response_ok(&r));
	CHECK(str_is(zcast_test_srv_Config_Response_reply(&r), "level -9 refused"));
	/* a bound above the declared one (uint8[<=4]) is refused, naming the member */
	zcast_test_srv_Config_Response_bounds big = {.reply = 8, .codes = 5};
	size_t size;
	CHECK_EQ(zcast_cdr_bound_size(&zcast_test_srv_Config_Response_TYPE, &big, &size), ZCAST_EINVAL);
	CHECK(strstr(zcast_last_error(), "codes") != NULL);
}

int main(void)
{
	zt_setup("typed_srv", 60);
	RUN(test_identity);
	RUN(test_plain_defaults);
	RUN(test_request_loan);
	RUN(test_response_loan);
	return 0;
}
