/* The bridge's rewriting of received samples into zcast's form (bridge/normalize.c): a 0-length
 * string (rmw_cyclonedds reads it as "") becomes "" with its NUL, big-endian XCDR1 becomes the
 * little-endian bytes zcast itself writes, and a truncated sample is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sensor_msgs/msg/Image.h"
#include "std_msgs/msg/String.h"

struct enc {
	uint8_t b[256];
	size_t n; /* header included */
	int be;
};

static void put(struct enc *e, uint64_t v, size_t k)
{
	while ((e->n - 4) % k)
		e->b[e->n++] = 0;
	for (size_t i = 0; i < k; i++)
		e->b[e->n + i] = (uint8_t)(v >> (8 * (e->be ? k - 1 - i : i)));
	e->n += k;
}

/* A string as CDR writes it; zero_len: the 0-length form (no NUL). */
static void put_str(struct enc *e, const char *s, int zero_len)
{
	size_t len = zero_len ? 0 : strlen(s) + 1;
	put(e, len, 4);
	memcpy(e->b + e->n, s, len);
	e->n += len;
}

static void image(struct enc *e, int be, int empty_frame)
{
	memset(e, 0, sizeof *e);
	e->be = be;
	e->b[1] = be ? 0 : 1; /* encapsulation: CDR_BE 00 00, CDR_LE 00 01 */
	e->n = 4;
	put(e, 12345, 4);		 /* stamp.sec */
	put(e, 678, 4);			 /* stamp.nanosec */
	put_str(e, "", empty_frame);	 /* frame_id */
	put(e, 2, 4);			 /* height */
	put(e, 3, 4);			 /* width */
	put_str(e, "mono16", 0);	 /* encoding */
	put(e, 1, 1);			 /* is_bigendian */
	put(e, 6, 4);			 /* step */
	put(e, 5, 4);			 /* data: 5 bytes */
	for (int i = 0; i < 5; i++)
		put(e, (uint64_t)(0xa0 + i), 1);
}

static int fails;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                    \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

/* normalize(in) must be exactly want, and valid for zcast's reader. */
static void expect(const zcast_cdr_type *t, const struct enc *in, const struct enc *want)
{
	uint8_t *out = NULL;
	size_t n = 0;
	CHECK(zb_normalize(t, in->b, in->n, &out, &n) == 0);
	CHECK(out && n == want->n && memcmp(out, want->b, n) == 0);
	uint8_t *aligned = aligned_alloc(8, 264);
	uint32_t off[64], len[64];
	zcast_cdr_reader rd;
	if (out && n <= 260) {
		memcpy(aligned + 4, out, n); /* the CDR origin 8-byte aligned, as in a slot */
		CHECK(zcast_cdr_read(t, aligned + 4, n, &rd, off, len) == 0);
	}
	free(aligned);
	free(out);
}

int main(void)
{
	struct enc in, want;
	/* std_msgs/String "" sent as length 0 */
	memset(&in, 0, sizeof in), memset(&want, 0, sizeof want);
	in.b[1] = want.b[1] = 1, in.n = want.n = 4;
	put_str(&in, "", 1);
	put_str(&want, "", 0);
	expect(&std_msgs_msg_String_TYPE, &in, &want);
	/* an Image in big endian, and with a 0-length frame_id too */
	image(&in, 1, 0), image(&want, 0, 0);
	expect(&sensor_msgs_msg_Image_TYPE, &in, &want);
	image(&in, 1, 1);
	expect(&sensor_msgs_msg_Image_TYPE, &in, &want);
	image(&in, 0, 1);
	expect(&sensor_msgs_msg_Image_TYPE, &in, &want);
	/* truncated, and an absurd count: refused, nothing read outside */
	image(&in, 1, 0);
	uint8_t *out = NULL;
	size_t n;
	for (size_t cut = 4; cut < in.n; cut++)
		CHECK(zb_normalize(&sensor_msgs_msg_Image_TYPE, in.b, cut, &out, &n) < 0);
	in.b[in.n - 9] = 0x7f; /* data count's high byte (big endian) */
	CHECK(zb_normalize(&sensor_msgs_msg_Image_TYPE, in.b, in.n, &out, &n) < 0);
	uint8_t xcdr2[8] = {0, 7, 0, 0};
	CHECK(zb_normalize(&std_msgs_msg_String_TYPE, xcdr2, 8, &out, &n) < 0);
	if (!fails)
		printf("PASS\n");
	return fails ? 1 : 0;
}
